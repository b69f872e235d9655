package workflows_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/browsertest"
	"github.com/notebridge/notebridge/internal/verify"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/workflows"
)

// envInt reads a whole number from the environment, or def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q is not a whole number", name, v)
	}
	return n
}

// TestSyncKeepsNotionEqualToOneNote is a property over generated edit
// sequences: whatever people do in OneNote (edit, rename and delete pages,
// add pages and subpages, change levels, move pages and page groups,
// rename and move sections, rename section groups, timestamp wobbles) and
// in Notion (rename or move a section database, rename a container page),
// after each sync Notion equals OneNote: one live row per page, with its
// title, section, Parent item, order and body text, one container per
// section and group, no duplicate; and the run's Graph requests are the
// tree, the listings and the fetches its changes need. A failure names the
// seed; NOTEBRIDGE_SYNC_SEED, NOTEBRIDGE_SYNC_RUNS and
// NOTEBRIDGE_SYNC_EDITS replay or lengthen it (make sync-properties).
func TestSyncKeepsNotionEqualToOneNote(t *testing.T) {
	seed := envInt(t, "NOTEBRIDGE_SYNC_SEED", 1)
	runs := envInt(t, "NOTEBRIDGE_SYNC_RUNS", 8)
	edits := envInt(t, "NOTEBRIDGE_SYNC_EDITS", 25)
	replay := fmt.Sprintf("NOTEBRIDGE_SYNC_SEED=%d NOTEBRIDGE_SYNC_RUNS=%d NOTEBRIDGE_SYNC_EDITS=%d go test -count=1 -run TestSyncKeepsNotionEqualToOneNote ./workflows/",
		seed, runs, edits)
	t.Logf("seed %d, %d sync runs of %d edits; replay: %s", seed, runs, edits, replay)
	defer func() {
		if t.Failed() {
			t.Logf("FAILED with seed %d; replay: %s", seed, replay)
		}
	}()
	spec := graph.GenSpec{Seed: uint64(seed), Owner: e2eUser, Notebooks: 1, GroupDepth: 1, SectionsPerContainer: 2,
		PagesPerSection: 8, SubpageLevels: 2, LinksPerPage: 1}
	h := newHarnessWith(t, harnessOptions{spec: spec})
	nb := h.notebooks[0]
	in := workflows.MigrateInput{User: e2eUser, Notebook: nb.DisplayName, NotionParent: h.root, Limits: h.profile,
		SectionParallelism: 3, PageParallelism: 3}
	if rep := wait(t, h.start(t, in), 5*time.Minute); rep.FailedPages != 0 {
		t.Fatalf("migration: %s", rep.Message)
	}
	checkEqual(t, h, nb, 0)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	steps := 0
	reportPage := ""
	for run := 1; run <= runs && !t.Failed(); run++ {
		time.Sleep(1100 * time.Millisecond) // edits get a timestamp of their own second
		var done []string
		for len(done) < edits {
			e, ok := h.graph.RandomEdit(e2eUser, rng)
			if !ok {
				continue
			}
			if _, err := h.graph.Apply(e); err != nil {
				t.Fatalf("run %d: applying %s: %v", run, e, err)
			}
			done = append(done, e.String())
		}
		done = append(done, personEdit(t, h, nb, rng))
		steps += len(done)
		before := h.graphRequests()
		rep := h.syncRun(t, run, workflows.DeletesArchive)
		got := h.graphRequests() - before
		sr := rep.Sync
		if sr == nil {
			t.Fatalf("run %d: no sync report: %s", run, rep.Message)
		}
		// Each page written costs its content (no resources here); a
		// check costs one content.
		want := int64(treeCalls(nb) + sr.ListCalls + rep.Written + sr.ContentChecks)
		t.Logf("run %d: %d edits; %s; Graph requests %d = tree %d + listings %d + contents %d (written %d, checks %d)",
			run, len(done), sr.Summary(), got, treeCalls(nb), sr.ListCalls, rep.Written+sr.ContentChecks, rep.Written, sr.ContentChecks)
		if got != want {
			t.Errorf("run %d: %d Graph requests, want %d", run, got, want)
		}
		if rep.FailedPages != 0 || rep.FailedSections != 0 || len(sr.Failed) != 0 {
			t.Errorf("run %d: failed pages %d, sections %d, row changes %q: %s", run, rep.FailedPages, rep.FailedSections, sr.Failed, rep.Message)
		}
		if t.Failed() || checkEqual(t, h, nb, run) > 0 {
			t.Logf("run %d's edits:\n  %s", run, strings.Join(done, "\n  "))
		}
		reportPage = cmp.Or(rep.ReportPageID, reportPage)
	}
	t.Logf("%d edits over %d sync runs", steps, runs)
	// The report page holds the latest runs' entries under the totals.
	entries, totals := 0, ""
	for _, s := range reportTexts(t, h.notion.Export(), nb.DisplayName) {
		switch {
		case strings.HasPrefix(s, "Sync run "):
			entries++
		case strings.HasPrefix(s, "Sync totals: "):
			totals = s
		}
	}
	if want := min(runs, notion.MaxSyncEntries); entries != want || !strings.HasPrefix(totals, fmt.Sprintf("Sync totals: %d runs", runs)) {
		t.Errorf("the report page holds %d sync entries (want %d) and totals %q", entries, want, totals)
	}
	if dir := os.Getenv("NOTEBRIDGE_SHOTS"); dir != "" && reportPage != "" {
		shoot(t, h.st.NotionURL+"/_emulator/view/"+reportPage, filepath.Join(dir, fmt.Sprintf("sync-report-after-%d-runs.png", runs)))
	}
}

// shoot saves a screenshot of url to path with headless Chromium.
func shoot(t *testing.T, url, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := browsertest.Launch(ctx, browsertest.Options{Dir: t.TempDir(), Width: 1100, Height: 900})
	if err != nil {
		t.Fatalf("screenshot of %s: %v", url, err)
	}
	defer b.Close()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	// The sync entries and their totals end the page: show them.
	var found bool
	if err := p.Eval(ctx, `(() => { const e = [...document.querySelectorAll("*")].find(n => n.childElementCount === 0 &&
		n.textContent.startsWith("Sync totals")); if (e) { e.scrollIntoView(); } return !!e; })()`, &found); err != nil || !found {
		t.Errorf("no sync totals on %s (%v)", url, err)
	}
	if err := p.ScreenshotView(ctx, path); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// personEdit makes one change a person makes in Notion: rename a section
// database, move one to another container page of the notebook, or
// rename a container page. It returns what it did.
func personEdit(t *testing.T, h *harness, nb *graph.Notebook, rng *rand.Rand) string {
	t.Helper()
	book := notebookPage(t, h.notion.Export(), nb.DisplayName)
	var dbs []notionemu.Database
	pages := []notionemu.Page{*book}
	var walk func(p notionemu.Page)
	walk = func(p notionemu.Page) {
		for _, d := range p.Databases {
			if !d.Archived {
				dbs = append(dbs, d)
			}
		}
		for _, c := range p.Pages {
			if !c.Archived && c.Title != notion.ReportTitle {
				pages = append(pages, c)
				walk(c)
			}
		}
	}
	walk(*book)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	switch k := rng.IntN(3); {
	case k == 0 && len(dbs) > 0:
		d := dbs[rng.IntN(len(dbs))]
		must(h.notion.PersonRename(d.ID, "Renamed in Notion "+strconv.Itoa(rng.IntN(1000))))
		return "notion: rename database " + d.Title
	case k == 1 && len(dbs) > 0:
		d, to := dbs[rng.IntN(len(dbs))], pages[rng.IntN(len(pages))]
		must(h.notion.PersonMove(d.ID, to.ID))
		return fmt.Sprintf("notion: move database %s under %s", d.Title, to.Title)
	default:
		p := pages[rng.IntN(len(pages))]
		must(h.notion.PersonRename(p.ID, "Renamed page "+strconv.Itoa(rng.IntN(1000))))
		return "notion: rename page " + p.Title
	}
}

// notebookPage finds the live notebook page titled name.
func notebookPage(t *testing.T, ws notionemu.Workspace, name string) *notionemu.Page {
	t.Helper()
	p := findPage(ws.Pages, func(p notionemu.Page) bool { return p.Title == name && !p.Archived })
	if p == nil {
		t.Fatalf("no live Notion page titled %q", name)
	}
	return p
}

// sectionDatabase finds the database titled title directly under the live
// notebook page titled notebook.
func sectionDatabase(t *testing.T, ws notionemu.Workspace, notebook, title string) notionemu.Database {
	t.Helper()
	for _, d := range notebookPage(t, ws, notebook).Databases {
		if d.Title == title {
			return d
		}
	}
	t.Fatalf("no section database %q under the notebook page %q", title, notebook)
	return notionemu.Database{}
}

// groupCount counts a notebook's section groups.
func groupCount(gs []*graph.SectionGroup) int {
	n := len(gs)
	for _, g := range gs {
		n += groupCount(g.SectionGroups)
	}
	return n
}

// checkEqual asserts that Notion holds the notebook as OneNote has it now,
// and returns the number of differences.
func checkEqual(t *testing.T, h *harness, nb *graph.Notebook, run int) int {
	t.Helper()
	var diffs []string
	bad := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	ws := h.notion.Export()
	book := notebookPage(t, ws, nb.DisplayName)
	// Containers: one live database per section, one page per group.
	titles := map[string]int{}
	groups := 0
	var walk func(p notionemu.Page)
	walk = func(p notionemu.Page) {
		for _, d := range p.Databases {
			if !d.Archived {
				titles[d.Title]++
			}
		}
		for _, c := range p.Pages {
			if !c.Archived && c.Title != notion.ReportTitle {
				groups++
				walk(c)
			}
		}
	}
	walk(*book)
	secs := emuSections(nb)
	want := map[string]int{}
	for _, s := range secs {
		want[s.DisplayName]++
	}
	for name, n := range want {
		if titles[name] != n {
			bad("section %q: %d live databases, want %d", name, titles[name], n)
		}
	}
	for name, n := range titles {
		if want[name] == 0 {
			bad("database %q (%d) is no OneNote section's", name, n)
		}
	}
	if g := groupCount(nb.SectionGroups); groups != g {
		bad("%d section group pages, want %d", groups, g)
	}
	// Rows: one live row per page, with its title, section, parent and
	// order.
	rows := notionRows(t, ws, nb.DisplayName)
	exported, dup := exportedRows(t, ws, nb.DisplayName)
	for _, d := range dup {
		bad("page %s has more than one live row", d)
	}
	byRow := map[string]string{}
	for id, r := range exported {
		byRow[strings.ReplaceAll(r.ID, "-", "")] = id
	}
	live := map[string]syncRow{}
	for _, r := range rows {
		if !r.Archived {
			live[r.OneNoteID] = r
		}
	}
	orders := rowOrders(ws, nb.DisplayName)
	liveIDs := map[string]bool{}
	for _, id := range h.graph.PageIDs(e2eUser) {
		liveIDs[id] = true
	}
	gone := map[string]bool{}
	pagesNow := 0
	for _, s := range secs {
		var ps []*graph.Page
		for _, p := range s.Pages {
			if liveIDs[p.ID] {
				ps = append(ps, p)
			} else {
				gone[p.ID] = true
			}
		}
		slices.SortStableFunc(ps, func(a, b *graph.Page) int { return a.Order - b.Order })
		type open struct {
			level int
			id    string
		}
		var stack []open
		for i, p := range ps {
			pagesNow++
			for len(stack) > 0 && stack[len(stack)-1].level >= p.Level {
				stack = stack[:len(stack)-1]
			}
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1].id
			}
			stack = append(stack, open{p.Level, p.ID})
			r, ok := live[p.ID]
			if !ok {
				bad("page %s (%q in %s) has no live row", p.ID, p.Title, s.DisplayName)
				continue
			}
			if r.Title != p.Title || r.Database != s.DisplayName {
				bad("row of %s: %q in %q, OneNote has %q in %q", p.ID, r.Title, r.Database, p.Title, s.DisplayName)
			}
			if got := byRow[strings.ReplaceAll(exported[p.ID].Parent, "-", "")]; got != parent {
				bad("row of %s (%q): parent %q, OneNote has %q", p.ID, p.Title, got, parent)
			}
			if o := orders[p.ID]; o != i+1 {
				bad("row of %s (%q): order %d, OneNote has %d", p.ID, p.Title, o, i+1)
			}
		}
	}
	if len(live) != pagesNow {
		bad("%d live rows for %d OneNote pages", len(live), pagesNow)
	}
	// Body text: what each page's OneNote content converts to now (pages
	// linking to a deleted page keep a mention of its archived row).
	// Read without a request: the check spends none of the user's Graph
	// budget, which the run under test shares.
	wantSig := expectedWith(t, func(id string) ([]byte, []byte, error) {
		html, inkML, err := h.graph.PageContent(id)
		if inkML == "" {
			return []byte(html), nil, err // no ink: none, as the client reads it
		}
		return []byte(html), []byte(inkML), err
	}, secs, gone)
	for id, sig := range wantSig {
		if strings.Contains(sig, "(OneNote page not migrated)") {
			continue
		}
		if got := exported[id].Signature; got != sig {
			bad("page %s: Notion's content differs from OneNote's:\n got %s\nwant %s", id, clipSig(got), clipSig(sig))
		}
	}
	for _, d := range diffs {
		t.Errorf("after run %d: %s", run, d)
	}
	return len(diffs)
}

// rowOrders reads every live row's Order, by OneNote page ID.
func rowOrders(ws notionemu.Workspace, notebook string) map[string]int {
	out := map[string]int{}
	var walk func(ps []notionemu.Page, in bool)
	walk = func(ps []notionemu.Page, in bool) {
		for _, p := range ps {
			if p.Archived {
				continue
			}
			inside := in || p.Title == notebook
			if inside {
				for _, d := range p.Databases {
					for _, r := range d.Rows {
						if r.Archived {
							continue
						}
						if m, ok := r.Properties[notion.PropOrder].(map[string]any); ok {
							if n, ok := m["number"].(float64); ok {
								out[verify.PropText(r.Properties[notion.PropOneNoteID])] = int(n)
							}
						}
					}
				}
			}
			walk(p.Pages, inside)
		}
	}
	walk(ws.Pages, false)
	return out
}
