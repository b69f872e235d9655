package browsertest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needChromium skips under -short and fails, naming the install script,
// when Chromium is missing.
func needChromium(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a headless Chromium")
	}
	if _, err := FindChromium(); err != nil {
		t.Fatal(err)
	}
}

// launch starts a browser for the test and closes it when the test ends.
func launch(t *testing.T, ctx context.Context) *Browser {
	t.Helper()
	b, err := Launch(ctx, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
		assertGroupGone(t, b.PID())
	})
	return b
}

// assertGroupGone checks that no process of the group pgid still runs.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	live, err := LiveInGroup(pgid)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range live {
		t.Errorf("process %d (%s) of group %d survived", p.PID, p.Cmdline, pgid)
	}
}

// TestBrowserRunsScriptsAndScreenshots loads a page whose content a script
// writes late, waits for it, reads its links, evaluates expressions, saves
// a screenshot and times out a wait that cannot succeed.
func TestBrowserRunsScriptsAndScreenshots(t *testing.T) {
	needChromium(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!DOCTYPE html><html><body><h1>Loading</h1><script>
setTimeout(() => {
  document.querySelector("h1").textContent = "Rendered by script";
  const a = document.createElement("a");
  a.href = "/page/42"; a.textContent = "  Page   forty-two ";
  document.body.append(a);
}, 400);
</script></body></html>`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := launch(t, ctx)
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	if err := p.WaitFor(wctx, "the scripted heading", func(ctx context.Context) (bool, error) {
		s, err := p.Text(ctx)
		return strings.Contains(s, "Rendered by script"), err
	}); err != nil {
		t.Fatal(err)
	}
	links, err := p.Links(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || links[0].Href != srv.URL+"/page/42" || links[0].Text != "Page forty-two" {
		t.Errorf("links = %+v, want one to %s/page/42 reading %q", links, srv.URL, "Page forty-two")
	}

	var sum int
	if err := p.Eval(ctx, `Promise.resolve(40 + 2)`, &sum); err != nil || sum != 42 {
		t.Errorf("Eval(40 + 2) = %d, %v; want 42", sum, err)
	}
	if err := p.Eval(ctx, `(() => { throw new Error("boom") })()`, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a thrown exception gave %v, want an error naming it", err)
	}

	shot := filepath.Join(t.TempDir(), "page.png")
	if err := p.Screenshot(ctx, shot); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 1000 {
		t.Errorf("screenshot is %d bytes and not a PNG", len(png))
	}
	// A wait that never succeeds ends with its context and says what it
	// waited for.
	wctx, wcancel = context.WithTimeout(ctx, time.Second)
	defer wcancel()
	err = p.WaitFor(wctx, "a heading that never comes", func(ctx context.Context) (bool, error) {
		s, err := p.Text(ctx)
		return strings.Contains(s, "never"), err
	})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "a heading that never comes") {
		t.Errorf("err = %v, want a deadline naming what was awaited", err)
	}

	if err := p.Close(ctx); err != nil {
		t.Errorf("close tab: %v", err)
	}
}

func TestLaunchNamesWhatIsWrong(t *testing.T) {
	ctx := context.Background()
	if _, err := Launch(ctx, Options{}); err == nil || !strings.Contains(err.Error(), "Options.Dir") {
		t.Errorf("Launch without a directory: %v, want an error naming Options.Dir", err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-chromium")
	if _, err := Launch(ctx, Options{Dir: t.TempDir(), Binary: missing}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Launch of a missing binary: %v, want an error naming it", err)
	}
}

func TestBrowserCallsFailAfterClose(t *testing.T) {
	needChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := launch(t, ctx)
	b.Close()
	if _, err := b.NewPage(ctx); err == nil {
		t.Error("NewPage on a closed browser succeeded")
	}
}
