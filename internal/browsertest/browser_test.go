package browsertest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/notebridge/notebridge/internal/stack"
)

var keep = flag.Bool("browser.keep", false,
	"also save the screenshots into bench/results/browser/ (the paths are logged; see them with -v)")

// exportPage and exportDatabase are the parts of the Notion emulator's
// /_emulator/export the test compares with what the browser shows.
type exportPage struct {
	ID        string           `json:"id"`
	Title     string           `json:"title"`
	Archived  bool             `json:"archived"`
	Pages     []exportPage     `json:"pages"`
	Databases []exportDatabase `json:"databases"`
}

type exportDatabase struct {
	ID       string       `json:"id"`
	Title    string       `json:"title"`
	Archived bool         `json:"archived"`
	Rows     []exportPage `json:"rows"`
}

// navItem is a page or database the view's page tree lists (rows are not
// listed there).
type navItem struct{ ID, Title string }

// migrated is a database holding migrated pages (its live rows).
type migrated struct {
	DB   exportDatabase
	Rows []exportPage
}

// walkExport collects the live pages and databases of the page tree and
// every live database with live rows, anywhere (rows' own sub-pages and
// databases included).
func walkExport(pages []exportPage, inTree bool, nav *[]navItem, dbs *[]migrated) {
	for _, p := range pages {
		if p.Archived {
			continue
		}
		if inTree {
			*nav = append(*nav, navItem{p.ID, p.Title})
		}
		walkExport(p.Pages, inTree, nav, dbs)
		for _, db := range p.Databases {
			if db.Archived {
				continue
			}
			if inTree {
				*nav = append(*nav, navItem{db.ID, db.Title})
			}
			m := migrated{DB: db}
			for _, r := range db.Rows {
				if !r.Archived {
					m.Rows = append(m.Rows, r)
				}
			}
			if len(m.Rows) > 0 {
				*dbs = append(*dbs, m)
			}
			walkExport(m.Rows, false, nav, dbs)
		}
	}
}

// sameID compares Notion IDs with or without dashes.
func sameID(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "-", "")) }
	return norm(a) == norm(b)
}

// shownTitle is how the view shows a title: whitespace collapsed as a
// browser renders it, "Untitled" when empty.
func shownTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "Untitled"
	}
	return s
}

// sameTitle reports whether a link's text shows title, alone or after an
// icon (one symbol and a space, as the page tree marks databases).
func sameTitle(text, title string) bool {
	text, title = shownTitle(text), shownTitle(title)
	if text == title {
		return true
	}
	icon, rest, ok := strings.Cut(text, " ")
	r := []rune(icon)
	return ok && rest == title && len(r) == 1 && !unicode.IsLetter(r[0]) && !unicode.IsDigit(r[0])
}

// missingLinks returns the items that have no link to
// /_emulator/view/<ID> reading their title.
func missingLinks(links []Link, items []navItem) []string {
	var missing []string
	for _, it := range items {
		found := false
		for _, l := range links {
			u, err := url.Parse(l.Href)
			if err != nil {
				continue
			}
			id, ok := strings.CutPrefix(u.Path, "/_emulator/view/")
			if ok && sameID(id, it.ID) && sameTitle(l.Text, it.Title) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, fmt.Sprintf("%q (%s)", it.Title, it.ID))
		}
	}
	return missing
}

// TestMigrationInTheBrowser runs the demo (a real migration on the
// emulators, a Temporal dev server and a worker), keeps it up, and looks at
// it in a headless Chromium as a person would: the Notion emulator's HTML
// view lists every migrated page the emulator's export holds, a migrated
// page opens, and the Temporal Web UI finds the migration workflow by its
// ID. Then Ctrl-C (SIGINT) must stop everything the demo started.
func TestMigrationInTheBrowser(t *testing.T) {
	needChromium(t)
	root, err := stack.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Minute)
	defer cancel()
	start := time.Now()
	shots := t.TempDir()

	// The demo, on a fast profile, left running.
	demoDir := t.TempDir()
	d, err := startDemo(ctx, root, demoDir, "-scale", "600", "-pages", "4")
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			// The test stopped early: Ctrl-C as a person would, killed
			// if that does not do it.
			if err := d.interrupt(30 * time.Second); err != nil {
				t.Log(err)
			}
			d.kill() // whatever is left of the run
		}
		if t.Failed() {
			t.Logf("demo output:\n%s", d.out.String())
		}
	})
	sctx, scancel := context.WithTimeout(ctx, 4*time.Minute)
	sum, err := d.waitSummary(sctx)
	scancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the demo migrated and printed its summary after %s: workflow %s, Web UI %s, Notion view %s",
		time.Since(start).Round(time.Second), sum.WorkflowID, sum.UIURL, sum.ViewURL)
	if strings.Contains(d.out.String(), "WARNING:") {
		t.Logf("the demo warned that the migration was not clean (the browser checks go on)")
	}

	// What the Notion emulator holds: the truth the view is checked against.
	base, ok := strings.CutSuffix(sum.ViewURL, "/_emulator/view")
	if !ok {
		t.Fatalf("the Notion view address %q does not end in /_emulator/view", sum.ViewURL)
	}
	var ws struct {
		Pages []exportPage `json:"pages"`
	}
	if err := getJSON(ctx, base+"/_emulator/export", &ws); err != nil {
		t.Fatal(err)
	}
	var nav []navItem
	var dbs []migrated
	walkExport(ws.Pages, true, &nav, &dbs)
	rows := 0
	for _, m := range dbs {
		rows += len(m.Rows)
	}
	if rows == 0 {
		t.Fatal("the Notion emulator's export holds no migrated page")
	}
	if sum.Migrated >= 0 && sum.Migrated != rows {
		t.Errorf("the demo's summary says %d pages migrated; the export holds %d", sum.Migrated, rows)
	}

	b, err := Launch(ctx, Options{Dir: t.TempDir(), Width: 1280, Height: 900})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	}()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	shoot := func(name string) {
		t.Helper()
		path := filepath.Join(shots, name+".png")
		if err := p.ScreenshotView(ctx, path); err != nil {
			t.Errorf("screenshot %s: %v", name, err)
			return
		}
		saved = append(saved, path)
	}
	// open loads u and polls the page's links until want returns no
	// missing item or 60 s pass.
	open := func(u, what string, want func([]Link) []string) {
		t.Helper()
		if err := p.Navigate(ctx, u); err != nil {
			t.Fatal(err)
		}
		var missing []string
		wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
		defer wcancel()
		err := p.WaitFor(wctx, what, func(ctx context.Context) (bool, error) {
			links, err := p.Links(ctx)
			if err != nil {
				return false, err
			}
			missing = want(links)
			return len(missing) == 0, nil
		})
		if err != nil {
			t.Errorf("%s: %v; missing: %s", u, err, strings.Join(missing, ", "))
		}
	}

	// The Notion view: the page tree, each section's database of migrated
	// pages, and one migrated page.
	browseStart := time.Now()
	open(sum.ViewURL, "the page tree", func(ls []Link) []string { return missingLinks(ls, nav) })
	shoot("notion-view")
	for i, m := range dbs {
		items := make([]navItem, len(m.Rows))
		for j, r := range m.Rows {
			items[j] = navItem{r.ID, r.Title}
		}
		open(sum.ViewURL+"/"+m.DB.ID, fmt.Sprintf("the %d migrated pages of %q", len(items), m.DB.Title),
			func(ls []Link) []string { return missingLinks(ls, items) })
		if i == 0 {
			shoot("notion-database")
		}
	}
	page := dbs[0].Rows[0]
	if err := p.Navigate(ctx, sum.ViewURL+"/"+page.ID); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, p, "the migrated page "+page.Title, jsHeading, func(h1 string) bool {
		return shownTitle(h1) == shownTitle(page.Title)
	})
	shoot("notion-page")
	// The notebook's "Migration report" page: the losses, each linked to
	// its page.
	report := findTitled(ws.Pages, "Migration report")
	if report == nil {
		t.Errorf("the Notion export holds no %q page", "Migration report")
	} else {
		if err := p.Navigate(ctx, sum.ViewURL+"/"+report.ID); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, p, "the migration report page", jsText, func(s string) bool {
			return strings.Contains(s, "Migration report") && strings.Contains(s, "pages migrated from OneNote")
		})
		shoot("notion-report")
	}
	t.Logf("the Notion view lists all %d migrated pages in %d databases and %d tree items (%s)",
		rows, len(dbs), len(nav), time.Since(browseStart).Round(time.Millisecond))

	// The Temporal Web UI: the workflow list filtered by the ID, and the
	// workflow's own page as the demo printed it.
	uiStart := time.Now()
	ui, err := url.Parse(sum.UIURL)
	if err != nil {
		t.Fatalf("the demo's Web UI address %q: %v", sum.UIURL, err)
	}
	list := ui.Scheme + "://" + ui.Host + "/namespaces/default/workflows?query=" +
		url.QueryEscape(`WorkflowId="`+sum.WorkflowID+`"`)
	if err := p.Navigate(ctx, list); err != nil {
		t.Fatal(err)
	}
	// The filter shows the ID at once; the row, a link to the workflow,
	// comes when the list has loaded.
	waitLinks(t, ctx, p, "a row of the Web UI's list linking to "+sum.WorkflowID, func(ls []Link) bool {
		return slices.ContainsFunc(ls, func(l Link) bool { return linksToWorkflow(l, sum.WorkflowID) })
	})
	shoot("temporal-list")
	if err := p.Navigate(ctx, sum.UIURL); err != nil {
		t.Fatal(err)
	}
	completed := regexp.MustCompile(`(?i)\bcompleted\b`)
	waitJS(t, ctx, p, "the workflow "+sum.WorkflowID+" on its Web UI page, completed", jsText, func(s string) bool {
		return strings.Contains(s, sum.WorkflowID) && completed.MatchString(s)
	})
	metadata(t, ctx, p, "Migrate notebook")
	shoot("temporal-workflow")
	// A section's child workflow and the limiter's, found through the
	// list as a person would, each on its own page.
	for _, w := range []struct{ name, query, prefix, summary string }{
		{"temporal-section", `WorkflowType="MigrateSection"`, sum.WorkflowID + "/section/", "of notebook"},
		{"temporal-limiter", `WorkflowType="GraphLimiter"`, "limiter/graph-onenote/", "Rate limiter for graph-onenote"},
	} {
		if err := p.Navigate(ctx, ui.Scheme+"://"+ui.Host+"/namespaces/default/workflows?query="+url.QueryEscape(w.query)); err != nil {
			t.Fatal(err)
		}
		var href string
		waitLinks(t, ctx, p, "a row of the Web UI's list linking to a workflow "+w.prefix+"…", func(ls []Link) bool {
			for _, l := range ls {
				if strings.Contains(l.Text, w.prefix) && strings.Contains(l.Href, "/workflows/") {
					href = l.Href
					return true
				}
			}
			return false
		})
		if href == "" {
			continue
		}
		if err := p.Navigate(ctx, href); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, p, "the workflow "+w.prefix+"… on its Web UI page", jsText, func(s string) bool {
			return strings.Contains(s, w.prefix) && strings.Contains(s, "User Metadata")
		})
		metadata(t, ctx, p, w.summary)
		shoot(w.name)
	}
	t.Logf("the Temporal Web UI shows %s in its list and on its page (%s)", sum.WorkflowID, time.Since(uiStart).Round(time.Millisecond))

	if *keep {
		keepShots(t, root, saved)
	} else {
		t.Logf("screenshots (removed with the test's temp dir; -browser.keep keeps them): %s", strings.Join(saved, " "))
	}

	// Ctrl-C stops everything the demo started.
	before, err := d.processes()
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 5 {
		t.Errorf("found %d processes of the demo run before Ctrl-C, want at least 5 (the demo, temporal, two emulators, the worker): %+v", len(before), before)
	}
	stopped = true
	if err := d.interrupt(time.Minute); err != nil {
		t.Error(err)
	}
	// Dead orphans may wait for init to reap them; running ones must not
	// be there at all.
	after, err := d.processes()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range after {
		t.Errorf("process %d survived the demo's Ctrl-C: %s", p.PID, p.Cmdline)
	}
	t.Logf("Ctrl-C stopped the demo and its %d processes; whole test %s", len(before), time.Since(start).Round(time.Second))
}

// metadata opens the "User Metadata" tab of the workflow page p shows
// (its summary, static details and current details: the names and the
// health) and waits for it to load and, where the frames the Web UI
// renders the Markdown in can be read, to show summary.
func metadata(t *testing.T, ctx context.Context, p *Page, summary string) {
	t.Helper()
	var clicked bool
	if err := p.Eval(ctx, `(() => { const a = Array.from(document.querySelectorAll("a, button")).find(e => e.innerText.trim() === "User Metadata"); if (!a) return false; a.click(); return true; })()`, &clicked); err != nil || !clicked {
		t.Errorf("no User Metadata tab on the workflow's page (%v)", err)
		return
	}
	waitJS(t, ctx, p, "the User Metadata tab", jsText, func(s string) bool {
		return strings.Contains(s, "Current Details") && strings.Contains(s, "Events with Metadata")
	})
	const jsFrames = `Array.from(document.querySelectorAll("iframe"), f => (f.contentDocument && f.contentDocument.body) ? f.contentDocument.body.innerText.trim() : "")`
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// Every frame drawn (the current details come after the summary),
	// one of them the summary.
	var frames []string
	if err := p.WaitFor(wctx, "the summary "+strconv.Quote(summary)+" and the details", func(ctx context.Context) (bool, error) {
		err := p.Eval(ctx, jsFrames, &frames)
		return err == nil && len(frames) > 1 && !slices.Contains(frames, "") &&
			slices.ContainsFunc(frames, func(f string) bool { return strings.Contains(f, summary) }), err
	}); err != nil {
		t.Logf("the summary %q is not in the readable frames (%v); the screenshot shows what the Web UI drew", summary, err)
	}
}

// linksToWorkflow reports whether l opens the Web UI's page of the
// workflow id (/namespaces/<ns>/workflows/<id>[/<run ID>/...]) and shows
// the ID.
func linksToWorkflow(l Link, id string) bool {
	u, err := url.Parse(l.Href)
	if err != nil || !strings.Contains(l.Text, id) {
		return false
	}
	_, rest, ok := strings.Cut(u.Path, "/workflows/")
	return ok && (rest == id || strings.HasPrefix(rest, id+"/"))
}

// waitLinks polls the page's links until ok accepts them or 90 s pass.
func waitLinks(t *testing.T, ctx context.Context, p *Page, what string, ok func([]Link) bool) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var last []Link
	err := p.WaitFor(wctx, what, func(ctx context.Context) (bool, error) {
		ls, err := p.Links(ctx)
		last = ls
		return err == nil && ok(ls), err
	})
	if err != nil {
		t.Errorf("%v; the page's links: %+v", err, last)
	}
}

// Expressions for waitJS: the page's rendered text, and its first
// heading's.
const (
	jsText    = `document.body ? document.body.innerText : ""`
	jsHeading = `(document.querySelector("h1") || {}).innerText || ""`
)

// waitJS polls the string expression expr in the page until ok accepts
// its value or 90 s pass (the Web UI is a JavaScript app that loads its
// data after the page).
func waitJS(t *testing.T, ctx context.Context, p *Page, what, expr string, ok func(string) bool) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var last string
	err := p.WaitFor(wctx, what, func(ctx context.Context) (bool, error) {
		err := p.Eval(ctx, expr, &last)
		return err == nil && ok(last), err
	})
	if err != nil {
		if len(last) > 2000 {
			last = last[:2000] + "..."
		}
		t.Errorf("%v; the page shows:\n%s", err, last)
	}
}

// keepShots copies the screenshots into bench/results/browser/.
func keepShots(t *testing.T, root string, paths []string) {
	t.Helper()
	dir := filepath.Join(root, "bench", "results", "browser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("keep screenshots: %v", err)
		return
	}
	for _, src := range paths {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Errorf("keep screenshots: %v", err)
			continue
		}
		dst := filepath.Join(dir, filepath.Base(src))
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Errorf("keep screenshots: %v", err)
			continue
		}
		t.Logf("screenshot kept: %s", dst)
	}
}

// getJSON decodes the JSON answer of a GET.
func getJSON(ctx context.Context, u string, v any) error {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("GET %s: %s: %s", u, resp.Status, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: decode: %w", u, err)
	}
	return nil
}

// findTitled finds the live page titled title in the page tree.
func findTitled(pages []exportPage, title string) *exportPage {
	for i := range pages {
		p := &pages[i]
		if p.Archived {
			continue
		}
		if p.Title == title {
			return p
		}
		if f := findTitled(p.Pages, title); f != nil {
			return f
		}
	}
	return nil
}
