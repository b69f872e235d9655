package notion_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/report"
)

// TestMigrationReport writes three pages (one that lost ink and a file
// Notion refused, one with an approximation only, one whole), then the
// report, twice: the notebook page holds one report page and one summary,
// the report links every entry to its page, only the page that lost
// something has a callout, the rows carry their order and loss kinds, and
// the JSON report validates against docs/report.schema.json.
func TestMigrationReport(t *testing.T) {
	e, c, l := reportLayout(t)
	ctx := context.Background()
	db := l.SectionDatabaseIDs["s1"]
	ink := report.Entry{Kind: "ink", Severity: report.Lost, What: "ink (drawing or handwriting) is not returned by Graph", Where: "near “Sketch”", Count: 2}
	color := report.Entry{Kind: "color-approximated", Severity: report.Approximated, What: `text colour "#c00000" shown as Notion "red"`, Count: 3}
	skipped := report.Entry{Kind: "image-skipped", Severity: report.Skipped, What: "image not migrated (option skipImages)", Count: 2}
	res := resources{"exe": []byte("MZ...")}
	pages := []struct {
		id     string
		order  int
		losses []report.Entry
		blocks []blocks.Block
	}{
		// Written out of order: the report follows Order.
		{"whole", 3, nil, []blocks.Block{{Type: blocks.Paragraph, RichText: rt("all here")}}},
		{"lossy", 1, []report.Entry{color, ink}, []blocks.Block{{Type: blocks.Paragraph, RichText: rt("Sketch")},
			{Type: blocks.File, Media: &blocks.Media{Resource: &blocks.Resource{ID: "exe", Name: "setup.exe", MIME: "application/x-msdownload"}}}}},
		{"tinted", 2, []report.Entry{color, skipped}, []blocks.Block{{Type: blocks.Paragraph, RichText: rt("red text")}}},
	}
	notionIDs := map[string]string{}
	for _, p := range pages {
		in := pageInput(p.id, p.blocks, res)
		in.Order, in.Losses = p.order, p.losses
		write := c.WritePage
		if p.id == "whole" {
			// One page read back: the report counts its verdict.
			write = func(ctx context.Context, db string, in notion.PageInput) (notion.Result, error) {
				r, err := c.WriteVerifiedPage(ctx, db, in)
				return r.Result, err
			}
		}
		w, err := write(ctx, db, in)
		if err != nil {
			t.Fatalf("page %s: %v", p.id, err)
		}
		notionIDs[p.id] = w.PageID
	}
	sections := []notion.ReportSection{{Name: "Notebook / Section", DatabaseID: db}}
	var rep report.Report
	var err error
	var firstIDs []string
	for run := 1; run <= 2; run++ {
		if rep, err = c.CollectReport(ctx, "Notebook", l.NotebookPageID, sections); err != nil {
			t.Fatal(err)
		}
		if err := c.WriteReport(ctx, &rep); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		// A run with nothing new leaves the report's blocks as they are.
		var ids []string
		if p := findTitled(e.srv.Export().Pages, notion.ReportTitle); p != nil {
			for _, b := range p.Blocks {
				ids = append(ids, b.ID)
			}
		}
		if run == 2 && (len(ids) == 0 || !slices.Equal(ids, firstIDs)) {
			t.Errorf("the second run rewrote the report: blocks %q, were %q", ids, firstIDs)
		}
		firstIDs = ids
	}

	if rep.Pages != 3 || rep.Lost != 3 || rep.Approximated != 6 || rep.Skipped != 2 {
		t.Errorf("report counts %d pages, %d lost, %d approximated, %d skipped; want 3, 3 (ink ×2, the file), 6 (colour ×3 twice), 2 (images by option)",
			rep.Pages, rep.Lost, rep.Approximated, rep.Skipped)
	}
	wantKinds := []report.KindCount{{Kind: "ink", Severity: report.Lost, Count: 2, Pages: 1},
		{Kind: "attachment", Severity: report.Lost, Count: 1, Pages: 1},
		{Kind: "color-approximated", Severity: report.Approximated, Count: 6, Pages: 2},
		{Kind: "image-skipped", Severity: report.Skipped, Count: 2, Pages: 1}}
	if !slices.Equal(rep.Kinds, wantKinds) {
		t.Errorf("kinds %v, want %v", rep.Kinds, wantKinds)
	}
	if len(rep.LossPages) != 2 || rep.LossPages[0].Title != "Page lossy" || rep.LossPages[1].Title != "Page tinted" {
		t.Errorf("loss pages %+v, want lossy then tinted (OneNote order)", rep.LossPages)
	}

	ws := e.srv.Export()
	nb := findTitled(ws.Pages, "Notebook")
	if nb == nil {
		t.Fatal("no notebook page in the export")
	}
	var reports []emu.Page
	for _, p := range nb.Pages {
		if p.Title == notion.ReportTitle && !p.Archived {
			reports = append(reports, p)
		}
	}
	if len(reports) != 1 || reports[0].ID != rep.ReportPageID {
		t.Fatalf("%d report pages under the notebook (want 1, %s)", len(reports), rep.ReportPageID)
	}
	// Every entry is a bullet that mentions its page, under its kind.
	body := exportedBlocks(t, ws, reports[0])
	if rep.Verification != (report.Verification{Verified: 1, Unverified: 2}) {
		t.Errorf("verification %+v, want 1 verified and 2 not checked", rep.Verification)
	}
	if got := blocks.PlainText(body[1].RichText); !strings.HasPrefix(got, "1 of 3 pages verified, 2 not checked: each page written is read back") {
		t.Errorf("the report's verification line: %q", got)
	}
	mentions := map[string][]string{}
	var walk func(bs []blocks.Block, under string)
	walk = func(bs []blocks.Block, under string) {
		for _, b := range bs {
			switch b.Type {
			case blocks.Heading3, blocks.Toggle:
				under = blocks.PlainText(b.RichText)
			case blocks.BulletedListItem:
				if len(b.RichText) > 0 && b.RichText[0].Mention != "" {
					mentions[b.RichText[0].Mention] = append(mentions[b.RichText[0].Mention], under+": "+blocks.PlainText(b.RichText))
				}
			}
			walk(b.Children, under)
		}
	}
	walk(body, "")
	lossy, tinted := mentions[notionIDs["lossy"]], mentions[notionIDs["tinted"]]
	if len(lossy) != 3 || !strings.HasPrefix(lossy[0], "ink lost") || !strings.Contains(lossy[0], "near “Sketch” (×2)") ||
		!strings.HasPrefix(lossy[1], "attachment lost") || !strings.Contains(lossy[1], "setup.exe") ||
		!strings.HasPrefix(lossy[2], "color-approximated") {
		t.Errorf("the report's entries of the lossy page: %q", lossy)
	}
	if len(tinted) != 2 || !strings.HasPrefix(tinted[1], "image-skipped skipped ×2") || len(mentions) != 2 {
		t.Errorf("the report mentions %v, want the lossy page 3 times and the tinted page twice (its skipped images under their own kind)", mentions)
	}

	// The notebook page says what it holds, once, linking the report.
	var summaries []blocks.Block
	for _, b := range exportedBlocks(t, ws, *nb) {
		if b.Type == blocks.Callout {
			summaries = append(summaries, b)
		}
	}
	if len(summaries) != 1 || !strings.Contains(blocks.PlainText(summaries[0].RichText), "1 section, 3 pages: Notebook / Section (3 pages)") ||
		!slices.ContainsFunc(summaries[0].RichText, func(r blocks.RichText) bool { return r.Mention == rep.ReportPageID }) {
		t.Errorf("notebook page summaries %+v", summaries)
	}

	// Rows: the order, the kinds lost, a callout only where something
	// is lost.
	for _, p := range pages {
		row := rowsOf(t, ws, db, p.id)[0]
		ms, _ := row.Properties[notion.PropLosses].(map[string]any)["multi_select"].([]any)
		var kinds []string
		for _, m := range ms {
			kinds = append(kinds, m.(map[string]any)["name"].(string))
		}
		if order := row.Properties[notion.PropOrder].(map[string]any)["number"]; order != float64(p.order) {
			t.Errorf("page %s: order %v, want %d", p.id, order, p.order)
		}
		bs := exportedBlocks(t, ws, row)
		hasCallout := len(bs) > 0 && bs[0].Type == blocks.Callout
		lost := p.id == "lossy"
		if hasCallout != lost || (lost && !slices.Equal(kinds, []string{"ink", "attachment"})) || (!lost && len(kinds) != 0) {
			t.Errorf("page %s: callout %v, loss kinds %q", p.id, hasCallout, kinds)
		}
	}

	validateReport(t, rep)
}

// reportLayout lays out notebook "Notebook" (ID nb) with one section,
// "Section" (ID s1), under the root page of a fresh emulator, through a
// client of it.
func reportLayout(t *testing.T) (*env, *notion.Client, notion.Layout) {
	t.Helper()
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	l, err := c.EnsureLayout(context.Background(), e.srv.RootPageID(), notion.NotebookSpec{ID: "nb", Name: "Notebook",
		Sections: []notion.SectionSpec{{ID: "s1", Name: "Section"}}})
	if err != nil {
		t.Fatal(err)
	}
	return e, c, l
}

// validateReport checks a report's JSON against docs/report.schema.json.
func validateReport(t *testing.T, rep report.Report) {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile("../docs/report.schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the report does not validate against docs/report.schema.json: %v\n%s", err, raw)
	}
}

// findTitled finds a page by title anywhere in an export's tree.
func findTitled(ps []emu.Page, title string) *emu.Page {
	for i := range ps {
		if ps[i].Title == title && !ps[i].Archived {
			return &ps[i]
		}
		if p := findTitled(ps[i].Pages, title); p != nil {
			return p
		}
	}
	return nil
}

// TestLinkPassLossesReachTheReport marks a page's links rewritten with
// what the link pass could not keep a link: the entry joins the page's
// own on its row, so the migration report (and its JSON) lists it, and
// marking again from the same read of the row writes the same record.
func TestLinkPassLossesReachTheReport(t *testing.T) {
	_, c, l := reportLayout(t)
	ctx := context.Background()
	db := l.SectionDatabaseIDs["s1"]
	color := report.Entry{Kind: "color-approximated", Severity: report.Approximated, What: `text colour "#c00000" shown as Notion "red"`, Count: 1}
	in := pageInput("linker", []blocks.Block{{Type: blocks.Paragraph, RichText: append(rt("see "),
		blocks.RichText{Text: "Gone page", PageRef: "guid-gone"})}}, nil)
	in.Order, in.Losses, in.LinkID = 1, []report.Entry{color}, "guid-linker"
	if _, err := c.WritePage(ctx, db, in); err != nil {
		t.Fatal(err)
	}
	var row notion.Row
	if err := c.Rows(ctx, db, notion.RowFilter{Done: true, LinksPending: true}, func(r notion.Row) error { row = r; return nil }); err != nil {
		t.Fatal(err)
	}
	pass, err := c.RewriteRowLinks(ctx, row, map[string]string{})
	if err != nil || len(pass.Losses) != 1 {
		t.Fatalf("link pass: %d losses, %v (want the link to the page not migrated)", len(pass.Losses), err)
	}
	link := pass.Losses[0].Entry()
	for range 2 {
		if err := c.MarkLinksRewritten(ctx, row, []report.Entry{link}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := c.CollectReport(ctx, "Notebook", l.NotebookPageID, []notion.ReportSection{{Name: "Notebook / Section", DatabaseID: db}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.LossPages) != 1 || !slices.Equal(rep.LossPages[0].Entries, []report.Entry{color, link}) {
		t.Fatalf("loss pages %+v, want the page with its colour and the link pass's entry", rep.LossPages)
	}
	wantKinds := []report.KindCount{{Kind: "color-approximated", Severity: report.Approximated, Count: 1, Pages: 1},
		{Kind: "link", Severity: report.Approximated, Count: 1, Pages: 1}}
	if !slices.Equal(rep.Kinds, wantKinds) {
		t.Errorf("kinds %v, want %v", rep.Kinds, wantKinds)
	}
	validateReport(t, rep)
}
