package browsertest

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/notebridge/notebridge/activities"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

type inkTokens string

func (tok inkTokens) TokenSource(string) (onenote.TokenSource, error) {
	return onenote.TokenSourceFunc(func(context.Context) (string, error) { return string(tok), nil }), nil
}

// TestInkInTheBrowser migrates the three ink fixtures (convert/testdata/ink)
// through the page activities (ink is on by default), then opens each page
// in the Notion emulator's view in Chromium: every drawing must be an image
// the browser decoded, between the paragraphs it was drawn next to.
// Screenshots: -browser.keep saves them to bench/results/browser/.
func TestInkInTheBrowser(t *testing.T) {
	needChromium(t)
	root, err := stack.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	fixtures := []struct {
		name string
		want []string // the page's content in the view: "p:text" or "img"
	}{
		{"ink-only", []string{"img", "img"}},
		{"beside-text", []string{"p:Agenda", "p:Budget review", "img", "p:Hiring plan", "img",
			"p:Actions", "p:Send the draft", "p:Book the room", "img"}},
		{"highlighter-over-text", []string{"p:Plain first line", "p:This line is highlighted", "img", "p:This line is underlined", "img"}},
	}
	when := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	sec := &graph.Section{DisplayName: "Drawings", CreatedDateTime: when, LastModifiedDateTime: when}
	for _, fx := range fixtures {
		base := filepath.Join(root, "convert", "testdata", "ink", fx.name)
		html, err := os.ReadFile(base + ".html")
		if err != nil {
			t.Fatal(err)
		}
		inkML, err := os.ReadFile(base + ".inkml")
		if err != nil {
			t.Fatal(err)
		}
		sec.Pages = append(sec.Pages, &graph.Page{Title: fx.name, CreatedDateTime: when, LastModifiedDateTime: when,
			HTML: string(html), InkML: string(inkML)})
	}
	nb := &graph.Notebook{DisplayName: "Ink", CreatedDateTime: when, LastModifiedDateTime: when, Sections: []*graph.Section{sec}}
	gs := graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})
	gs.AddNotebooks("alice", nb)
	gts := httptest.NewServer(gs)
	defer gts.Close()
	ns := notionemu.NewServer(notionemu.Config{Seed: 1, Rate: -1})
	nts := httptest.NewServer(ns)
	defer nts.Close()
	nc, err := notion.NewClient(notion.Config{BaseURL: nts.URL, Token: notion.StaticToken(ns.IssueToken()),
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 1000, Burst: 100}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := activities.New(activities.Config{GraphBaseURL: gts.URL + "/v1.0", Notion: nc, StagingDir: t.TempDir(),
		Tokens: inkTokens(gs.IssueToken("alice", []string{"Notes.Read"}, time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	acts.Register(env)
	call := func(name string, in, out any) {
		t.Helper()
		v, err := env.ExecuteActivity(name, in)
		if err == nil {
			err = v.Get(out)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var nbs activities.ListNotebooksResult
	call(activities.ListNotebooksName, activities.ListNotebooksInput{User: "alice", Match: "Ink"}, &nbs)
	var layout notion.Layout
	call(activities.EnsureLayoutName, activities.EnsureLayoutInput{ParentPageID: ns.RootPageID(), Notebook: *nbs.Match}, &layout)
	var pages activities.ListPagesResult
	call(activities.ListPagesName, activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}}, &pages)
	written := map[string]string{} // title -> Notion page
	for _, p := range pages.Pages {
		key := activities.StageKey("ink/" + p.ID)
		var meta activities.ContentMeta
		call(activities.FetchContentName, activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key}, &meta)
		var w activities.WritePageResult
		call(activities.WritePageName, activities.WritePageInput{Key: key, DatabaseID: layout.SectionDatabaseIDs[sec.ID], Page: p, SectionPath: "Ink / Drawings"}, &w)
		written[p.Title] = w.NotionPageID
	}

	b := launch(t, ctx)
	var shots []string
	for _, fx := range fixtures {
		id := written[fx.name]
		if id == "" {
			t.Fatalf("page %s was not written", fx.name)
		}
		pg, err := b.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := pg.Navigate(ctx, nts.URL+"/_emulator/view/"+id); err != nil {
			t.Fatal(err)
		}
		// The content after the page's properties, paragraphs by text and
		// images once the browser decoded them (naturalWidth > 0).
		const expr = `JSON.stringify(Array.from(document.querySelectorAll("main > p, main > figure > img")).map(e =>
			e.tagName === "IMG" ? (e.complete && e.naturalWidth > 0 ? "img" : "img-not-loaded") : "p:" + e.textContent.trim()))`
		want, _ := json.Marshal(fx.want)
		waitJS(t, ctx, pg, fx.name+" shows its ink in place", expr, func(s string) bool { return s == string(want) })
		shot := filepath.Join(t.TempDir(), "ink-"+fx.name+".png")
		if err := pg.Screenshot(ctx, shot); err != nil {
			t.Fatal(err)
		}
		shots = append(shots, shot)
		if err := pg.Close(ctx); err != nil {
			t.Error(err)
		}
	}
	t.Logf("screenshots: %s", strings.Join(shots, ", "))
	if *keep {
		keepShots(t, root, shots)
	}
}
