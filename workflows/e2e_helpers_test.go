package workflows_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/convert"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/internal/verify"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

// emuSections lists a generated notebook's sections in the order the
// migration flattens them: the notebook's own, then each group's.
func emuSections(nb *graph.Notebook) []*graph.Section {
	var out []*graph.Section
	var walk func(ss []*graph.Section, gs []*graph.SectionGroup)
	walk = func(ss []*graph.Section, gs []*graph.SectionGroup) {
		out = append(out, ss...)
		for _, g := range gs {
			walk(g.Sections, g.SectionGroups)
		}
	}
	walk(nb.Sections, nb.SectionGroups)
	return out
}

// treeCalls is how many Graph requests reading nb's tree takes: the
// expanded notebooks call (it holds the first level of section groups with
// their sections), then for each group below it a listing of its sections,
// and for every group a listing of the groups inside it.
func treeCalls(nb *graph.Notebook) int {
	var below func(g *graph.SectionGroup, first bool) int
	below = func(g *graph.SectionGroup, first bool) int {
		n := 1 // its groups
		if !first {
			n++ // its sections
		}
		for _, c := range g.SectionGroups {
			n += below(c, false)
		}
		return n
	}
	n := 1
	for _, g := range nb.SectionGroups {
		n += below(g, true)
	}
	return n
}

// toOneNote gives the notebook's shape as the Graph client sees it.
func toOneNote(nb *graph.Notebook) onenote.Notebook {
	var groups func(gs []*graph.SectionGroup) []onenote.SectionGroup
	sections := func(ss []*graph.Section) []onenote.Section {
		var out []onenote.Section
		for _, s := range ss {
			out = append(out, onenote.Section{ID: s.ID, DisplayName: s.DisplayName})
		}
		return out
	}
	groups = func(gs []*graph.SectionGroup) []onenote.SectionGroup {
		var out []onenote.SectionGroup
		for _, g := range gs {
			out = append(out, onenote.SectionGroup{ID: g.ID, DisplayName: g.DisplayName,
				Sections: sections(g.Sections), SectionGroups: groups(g.SectionGroups)})
		}
		return out
	}
	return onenote.Notebook{ID: nb.ID, DisplayName: nb.DisplayName, Sections: sections(nb.Sections), SectionGroups: groups(nb.SectionGroups)}
}

// expectedPages converts every migrated page's HTML and ink, read from a
// second, unlimited emulator holding the same generated data (so the
// referee's counts stay the migration's own), into its content signature.
func expectedPages(t *testing.T, sections []*graph.Section) map[string]string {
	t.Helper()
	ref := graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})
	ref.AddNotebooks(e2eUser, graph.Generate(genSpec())...)
	ts := httptest.NewServer(ref)
	defer ts.Close()
	return expectedFrom(t, ts.URL+"/v1.0", ref.IssueToken(e2eUser, []string{"Notes.Read"}, time.Hour), sections, nil)
}

// expectedFrom converts every page of sections (but those in gone), read
// with its ink from the reference Graph emulator at graphURL with tok, as
// the pipeline reads it, into its content signature.
func expectedFrom(t *testing.T, graphURL, tok string, sections []*graph.Section, gone map[string]bool) map[string]string {
	t.Helper()
	c, err := onenote.New(onenote.Config{BaseURL: graphURL,
		Tokens: onenote.TokenSourceFunc(func(context.Context) (string, error) { return tok, nil })})
	if err != nil {
		t.Fatal(err)
	}
	return expectedWith(t, func(id string) ([]byte, []byte, error) {
		pc, _, err := c.GetPageContent(context.Background(), id, onenote.ContentOptions{IncludeInkML: true})
		return pc.HTML, pc.InkML, err
	}, sections, gone)
}

// expectedWith is expectedFrom with the content read by fetch (HTML and
// InkML of a page).
func expectedWith(t *testing.T, fetch func(id string) (html, inkML []byte, err error), sections []*graph.Section, gone map[string]bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	guids := map[string]bool{}
	for _, s := range sections {
		for _, p := range s.Pages {
			if !gone[p.ID] {
				guids[strings.ToLower(strings.Trim(p.GUID, "{}"))] = true
			}
		}
	}
	for _, s := range sections {
		for _, p := range s.Pages {
			if gone[p.ID] {
				continue
			}
			html, inkML, err := fetch(p.ID)
			if err != nil {
				t.Fatalf("reference content of %s: %v", p.ID, err)
			}
			res, err := convert.Page(html, convert.Options{InkML: inkML})
			if err != nil {
				t.Fatalf("convert %s: %v", p.ID, err)
			}
			out[p.ID] = signature(res.Blocks, guids)
			if slices.ContainsFunc(res.Losses, func(l convert.Loss) bool { return l.Severity == convert.Dropped }) {
				// The page lost something: the writer puts its callout on top.
				out[p.ID] = lossMark + out[p.ID]
			}
		}
	}
	return out
}

// signature is a block tree's shape and text: block types depth first,
// the text of every run, internal links to migrated pages and mentions as
// "[link]" (links to pages not migrated become plain text followed by the
// link pass's note), and media as
// "media". migrated holds the lower-case page-id GUIDs of migrated pages.
func signature(bs []blocks.Block, migrated map[string]bool) string {
	var b strings.Builder
	var walk func(bs []blocks.Block, depth int)
	runs := func(rt []blocks.RichText) {
		for _, r := range rt {
			if r.Mention != "" || (r.PageRef != "" && migrated[strings.ToLower(r.PageRef)]) {
				b.WriteString("[link]")
				continue
			}
			b.WriteString(r.Text)
			b.WriteString(r.Equation)
			if r.PageRef != "" {
				// What the link pass adds after a link to a page not
				// migrated.
				b.WriteString(" (OneNote page not migrated)")
			}
		}
	}
	walk = func(bs []blocks.Block, depth int) {
		for _, x := range bs {
			fmt.Fprintf(&b, "\n%s%s:", strings.Repeat(" ", depth), x.Type)
			runs(x.RichText)
			for _, row := range x.Cells {
				b.WriteString("|")
				runs(row)
			}
			if x.Media != nil {
				b.WriteString("media")
			}
			b.WriteString(x.Expression)
			walk(x.Children, depth+1)
		}
	}
	walk(bs, 0)
	return b.String()
}

// lossMark stands for the loss callout (notion.IsLossCallout) at the top
// of a page in a signature.
const lossMark = "\n[loss callout]"

// exportedRow is a migrated page as the Notion emulator holds it.
type exportedRow struct {
	ID, OneNoteID, LastModified, Parent string
	Signature                           string
}

// exportedRows finds every live row of every section database under the
// notebook's page, keyed by OneNote page ID; dup lists IDs seen twice.
func exportedRows(t *testing.T, ws notionemu.Workspace, notebook string) (rows map[string]exportedRow, dup []string) {
	t.Helper()
	return exportedRowsIn(t, ws.Pages, notebook)
}

// exportedRowsUnder is exportedRows for the notebook migrated under the
// Notion page parent.
func exportedRowsUnder(t *testing.T, ws notionemu.Workspace, parent, notebook string) (rows map[string]exportedRow, dup []string) {
	t.Helper()
	p := findPage(ws.Pages, func(p notionemu.Page) bool {
		return strings.ReplaceAll(p.ID, "-", "") == strings.ReplaceAll(parent, "-", "")
	})
	if p == nil {
		t.Fatalf("no Notion page %s", parent)
	}
	return exportedRowsIn(t, p.Pages, notebook)
}

// findPage finds the first page (depth first) that match says is the one.
func findPage(ps []notionemu.Page, match func(notionemu.Page) bool) *notionemu.Page {
	for i := range ps {
		if match(ps[i]) {
			return &ps[i]
		}
		if p := findPage(ps[i].Pages, match); p != nil {
			return p
		}
	}
	return nil
}

func exportedRowsIn(t *testing.T, pages []notionemu.Page, notebook string) (rows map[string]exportedRow, dup []string) {
	t.Helper()
	rows = map[string]exportedRow{}
	walkPage := func(p notionemu.Page) {
		stack.EachRow([]notionemu.Page{p}, func(r notionemu.Page) {
			raw, err := json.Marshal(r.Blocks)
			if err != nil {
				t.Fatal(err)
			}
			var bs []blocks.Block
			if err := json.Unmarshal(raw, &bs); err != nil {
				t.Fatalf("row %s does not read back: %v", r.ID, err)
			}
			er := exportedRow{ID: r.ID, OneNoteID: verify.PropText(r.Properties[notion.PropOneNoteID]),
				LastModified: verify.PropDate(r.Properties[notion.PropLastModified]),
				Parent:       verify.PropRelation(r.Properties[notion.PropParent])}
			if len(bs) > 0 && notion.IsLossCallout(bs[0]) {
				er.Signature, bs = lossMark, bs[1:]
			}
			er.Signature += signature(bs, nil)
			if _, ok := rows[er.OneNoteID]; ok {
				dup = append(dup, er.OneNoteID)
			}
			rows[er.OneNoteID] = er
		})
	}
	var find func(ps []notionemu.Page) bool
	find = func(ps []notionemu.Page) bool {
		for _, p := range ps {
			if p.Title == notebook && !p.Archived {
				walkPage(p)
				return true
			}
			if find(p.Pages) {
				return true
			}
		}
		return false
	}
	if !find(pages) {
		t.Fatalf("no Notion page titled %q", notebook)
	}
	return rows, dup
}

// checkLossReport checks the notebook's "Migration report" page: it is
// the report's, every page with a loss callout is linked under a lost
// kind and every page linked there has the callout, and the report's
// counts by kind add up to its totals.
func checkLossReport(t *testing.T, ws notionemu.Workspace, rep workflows.NotebookReport, rows map[string]exportedRow) {
	t.Helper()
	if rep.ReportPageID == "" {
		t.Fatalf("no migration report page: %s", rep.ReportError)
	}
	var page *notionemu.Page
	var find func(ps []notionemu.Page)
	find = func(ps []notionemu.Page) {
		for i := range ps {
			if ps[i].ID == rep.ReportPageID && !ps[i].Archived && ps[i].Title == notion.ReportTitle {
				page = &ps[i]
			}
			find(ps[i].Pages)
		}
	}
	find(ws.Pages)
	if page == nil {
		t.Fatalf("report page %s not in the Notion export", rep.ReportPageID)
	}
	raw, err := json.Marshal(page.Blocks)
	if err != nil {
		t.Fatal(err)
	}
	var bs []blocks.Block
	if err := json.Unmarshal(raw, &bs); err != nil {
		t.Fatal(err)
	}
	linkedLost := map[string]bool{}
	section := ""
	for _, b := range bs {
		switch {
		case b.Type == blocks.Heading2:
			section = blocks.PlainText(b.RichText)
		case b.Type == blocks.BulletedListItem && section == "Lost" && len(b.RichText) > 0 && b.RichText[0].Mention != "":
			linkedLost[strings.ReplaceAll(b.RichText[0].Mention, "-", "")] = true
		}
	}
	callouts := 0
	for id, r := range rows {
		has := strings.HasPrefix(r.Signature, lossMark)
		if has {
			callouts++
		}
		if linked := linkedLost[strings.ReplaceAll(r.ID, "-", "")]; has != linked {
			t.Errorf("page %s: loss callout %v, linked under a lost kind in the report %v", id, has, linked)
		}
	}
	lost, approx := 0, 0
	for _, k := range rep.LossKinds {
		if k.Severity == report.Lost {
			lost += k.Count
		} else {
			approx += k.Count
		}
	}
	if lost != rep.Losses || approx != rep.Approximations {
		t.Errorf("counts by kind add up to %d lost, %d approximated; the report says %d and %d", lost, approx, rep.Losses, rep.Approximations)
	}
	t.Logf("migration report: %d pages with a loss callout; %s", callouts, report.Summary(rep.LossKinds))
}
