package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/convert"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/onenote"
)

const testUser = "alice"

// testSpec is a small notebook with everything the pipeline carries:
// a section group, subpages, images, attachments, printouts, ink, tables
// and internal links.
func testSpec() graph.GenSpec {
	return graph.GenSpec{Seed: 11, Owner: testUser, Notebooks: 1, GroupDepth: 1, GroupsPerLevel: 1,
		SectionsPerContainer: 2, PagesPerSection: 4, SubpageLevels: 2, ImagesPerPage: 1, AttachmentsPerPage: 1,
		PrintoutEvery: 3, InkEvery: 4, LinksPerPage: 2, ImageBytes: 700, AttachmentBytes: 900}
}

// migrated is a notebook written into a Notion emulator by the real
// converter and writer, without Temporal: the pipeline's steps in order,
// then the link pass.
type migrated struct {
	notion   *notionemu.Server
	parent   string
	excluded string // the section ID left out
	pages    int
	// src is the source emulator and nbs the notebooks it holds.
	src *graph.Server
	nbs []*graph.Notebook
	// write writes page id again, as a re-run of the migration would.
	write func(id string)
}

func migrate(t *testing.T) *migrated {
	t.Helper()
	ctx := context.Background()
	src := graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})
	nbs := graph.Generate(testSpec())
	src.AddNotebooks(testUser, nbs...)
	m := &migrated{notion: notionemu.NewServer(notionemu.Config{Seed: 1, Rate: -1}), src: src, nbs: nbs}
	gts := httptest.NewServer(src)
	t.Cleanup(gts.Close)
	tok := src.IssueToken(testUser, []string{"Notes.Read"}, time.Hour)
	gc, err := onenote.New(onenote.Config{BaseURL: gts.URL + "/v1.0",
		Tokens: onenote.TokenSourceFunc(func(context.Context) (string, error) { return tok, nil })})
	if err != nil {
		t.Fatal(err)
	}

	nts := httptest.NewServer(m.notion)
	t.Cleanup(nts.Close)
	m.parent = m.notion.RootPageID()
	nc, err := notion.NewClient(notion.Config{BaseURL: nts.URL, Token: notion.StaticToken(m.notion.IssueToken()),
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 1000, Burst: 100}, nil),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}

	nb := nbs[0]
	m.excluded = nb.SectionGroups[0].Sections[1].ID
	sections := func(ss []*graph.Section) []notion.SectionSpec {
		var out []notion.SectionSpec
		for _, s := range ss {
			if s.ID != m.excluded {
				out = append(out, notion.SectionSpec{ID: s.ID, Name: s.DisplayName})
			}
		}
		return out
	}
	g := nb.SectionGroups[0]
	layout, err := nc.EnsureLayout(ctx, m.parent, notion.NotebookSpec{ID: nb.ID, Name: nb.DisplayName,
		Sections: sections(nb.Sections), SectionGroups: []notion.SectionGroupSpec{{ID: g.ID, Name: g.DisplayName, Sections: sections(g.Sections)}}})
	if err != nil {
		t.Fatal(err)
	}

	open := func(ctx context.Context, r blocks.Resource) (io.ReadCloser, int64, string, error) {
		var buf bytes.Buffer
		res, _, err := gc.DownloadResource(ctx, r.URL, &buf, 1<<20)
		if err != nil {
			return nil, 0, "", err
		}
		mime := r.MIME
		if mime == "" {
			mime = res.ContentType
		}
		return io.NopCloser(&buf), int64(buf.Len()), mime, nil
	}
	// opener serves a page's drawings as the converter made them, and
	// downloads its other resources.
	opener := func(drawn []convert.InkImage) func(ctx context.Context, r blocks.Resource) (io.ReadCloser, int64, string, error) {
		return func(ctx context.Context, r blocks.Resource) (io.ReadCloser, int64, string, error) {
			if im, ok := convert.Drawing(r, drawn); ok {
				return io.NopCloser(bytes.NewReader(im.Data)), int64(len(im.Data)), im.MIME, nil
			}
			return open(ctx, r)
		}
	}
	targets := map[string]string{} // page-id GUID -> row
	rows := map[string]string{}    // OneNote page ID -> row
	type placed struct {
		page          *graph.Page
		db, path, row string
	}
	where := map[string]placed{}
	write := func(w placed, links map[string]string) (hasLinks bool) {
		p := w.page
		pc, _, err := gc.GetPageContent(ctx, p.ID, onenote.ContentOptions{IncludeInkML: true})
		if err != nil {
			t.Fatal(err)
		}
		conv, err := convert.Page(pc.HTML, convert.Options{InkML: pc.InkML})
		if err != nil {
			t.Fatal(err)
		}
		res, err := nc.WritePage(ctx, w.db, notion.PageInput{OneNotePageID: p.ID,
			Title: conv.Title, SectionPath: w.path, Created: p.CreatedDateTime, LastModified: p.LastModifiedDateTime,
			ParentPageID: w.row, Blocks: conv.Blocks, Resources: opener(conv.Ink), LinkTargets: links})
		if err != nil {
			t.Fatalf("write %s: %v", p.ID, err)
		}
		rows[p.ID] = res.PageID
		targets[p.GUID] = res.PageID
		return len(conv.Links) > 0
	}
	var withLinks []string
	for _, s := range append(slices.Clone(nb.Sections), g.Sections...) {
		if s.ID == m.excluded {
			continue
		}
		var stack []*graph.Page
		for _, p := range s.Pages {
			for len(stack) > 0 && stack[len(stack)-1].Level >= p.Level {
				stack = stack[:len(stack)-1]
			}
			w := placed{page: p, db: layout.SectionDatabaseIDs[s.ID], path: s.DisplayName}
			if len(stack) > 0 {
				w.row = rows[stack[len(stack)-1].ID]
			}
			stack = append(stack, p)
			where[p.ID] = w
			if write(w, nil) {
				withLinks = append(withLinks, rows[p.ID])
			}
			m.pages++
		}
	}
	for _, id := range withLinks {
		if _, err := nc.RewritePageLinks(ctx, id, targets); err != nil {
			t.Fatal(err)
		}
	}
	m.write = func(id string) { write(where[id], targets) }
	return m
}

func (m *migrated) source() Source {
	return Source{User: testUser, Notebooks: graph.Generate(testSpec()), Exclude: []string{m.excluded}}
}

// liveRows points at every row of every database of ws.
func liveRows(ws *notionemu.Workspace) []*notionemu.Page {
	var out []*notionemu.Page
	var walk func(p *notionemu.Page)
	walk = func(p *notionemu.Page) {
		for i := range p.Databases {
			for j := range p.Databases[i].Rows {
				out = append(out, &p.Databases[i].Rows[j])
			}
		}
		for i := range p.Pages {
			walk(&p.Pages[i])
		}
	}
	for i := range ws.Pages {
		walk(&ws.Pages[i])
	}
	return out
}

// firstDB is the first section database of the notebook.
func firstDB(ws *notionemu.Workspace) *notionemu.Database {
	return &ws.Pages[0].Pages[0].Databases[0]
}

func paragraph(text string) map[string]any {
	return map[string]any{"rich_text": []any{map[string]any{"type": "text", "text": map[string]any{"content": text}, "plain_text": text}}, "color": "default"}
}

func TestCompare(t *testing.T) {
	m := migrate(t)
	exp, err := Expect(context.Background(), m.source())
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Pages) != m.pages || m.pages != 12 {
		t.Fatalf("expected %d pages, migrated %d, want 12", len(exp.Pages), m.pages)
	}
	var mentions, media, subpages, drawings int
	for _, p := range exp.Pages {
		drawings += p.Drawings
		for _, l := range p.Blocks {
			mentions += strings.Count(l, "@page(")
			media += strings.Count(l, "<file sha256:")
		}
		if p.Parent != "" {
			subpages++
		}
	}
	if mentions == 0 || media == 0 || subpages == 0 || drawings == 0 {
		t.Fatalf("the expectation lacks mentions (%d), files (%d), subpages (%d) or drawings (%d)", mentions, media, subpages, drawings)
	}

	cases := []struct {
		name   string
		mutate func(ws *notionemu.Workspace)
		check  func(t *testing.T, r *Report)
	}{
		{"untouched export equals the source", func(*notionemu.Workspace) {}, func(t *testing.T, r *Report) {
			if !r.OK() || r.Matched != 12 || r.FoundRows != 12 || r.BlocksFound != r.BlocksExpected || r.BlocksExpected == 0 {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a removed row is missing", func(ws *notionemu.Workspace) {
			db := firstDB(ws)
			db.Rows = db.Rows[1:]
		}, func(t *testing.T, r *Report) {
			if len(r.Missing) != 1 || r.Matched != 11 || r.OK() {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"an archived row is missing and counted as archived", func(ws *notionemu.Workspace) {
			firstDB(ws).Rows[2].Archived = true
		}, func(t *testing.T, r *Report) {
			if len(r.Missing) != 1 || r.ArchivedRows != 1 {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a second row of a page is a duplicate", func(ws *notionemu.Workspace) {
			db := firstDB(ws)
			dup := db.Rows[0]
			dup.ID = "0000dup0-0000-0000-0000-000000000000"
			db.Rows = append(db.Rows, dup)
		}, func(t *testing.T, r *Report) {
			if len(r.Duplicates) != 1 || len(r.Duplicates[0].Rows) != 2 || r.FoundRows != 13 || r.OK() {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a changed block is one missing and one extra", func(ws *notionemu.Workspace) {
			row := &firstDB(ws).Rows[1]
			row.Blocks[0] = notionemu.Block{ID: row.Blocks[0].ID, Type: "paragraph", Content: paragraph("tampered")}
		}, func(t *testing.T, r *Report) {
			if len(r.Different) != 1 || r.BlockDiffs != 2 || !strings.Contains(r.Different[0].Diff, "+ paragraph: tampered") {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a lost last block is missing", func(ws *notionemu.Workspace) {
			row := &firstDB(ws).Rows[3]
			row.Blocks = row.Blocks[:len(row.Blocks)-1]
		}, func(t *testing.T, r *Report) {
			if len(r.Different) != 1 || r.Different[0].Missing < 1 || r.Different[0].Extra != 0 {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a row left writing is a mismatch", func(ws *notionemu.Workspace) {
			firstDB(ws).Rows[0].Properties[notion.PropStatus] = map[string]any{"select": map[string]any{"name": notion.StatusWriting}}
		}, func(t *testing.T, r *Report) {
			if len(r.Mismatches) != 1 || r.Mismatches[0].Field != "migration status" {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a subpage without its parent item is a mismatch", func(ws *notionemu.Workspace) {
			for _, row := range firstDB(ws).Rows {
				if PropRelation(row.Properties[notion.PropParent]) != "" {
					row.Properties[notion.PropParent] = map[string]any{"relation": []any{}}
					return
				}
			}
			t.Fatal("no subpage in the first database")
		}, func(t *testing.T, r *Report) {
			if len(r.Mismatches) != 1 || r.Mismatches[0].Field != "parent item" || r.Mismatches[0].Got != "" {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a drawing with other bytes differs", func(ws *notionemu.Workspace) {
			for i := range ws.Uploads {
				if u := &ws.Uploads[i]; u.Attached && strings.HasPrefix(u.Filename, "ink-") {
					u.SHA256 = strings.Repeat("1", 64)
					return
				}
			}
			t.Fatal("no drawing uploaded")
		}, func(t *testing.T, r *Report) {
			if len(r.Different) != 1 || !strings.Contains(r.Different[0].Diff, "+ image: <file sha256:111111111111") {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"an uploaded file with other bytes differs", func(ws *notionemu.Workspace) {
			for i := range ws.Uploads {
				if ws.Uploads[i].Attached {
					ws.Uploads[i].SHA256 = strings.Repeat("0", 64)
					return
				}
			}
		}, func(t *testing.T, r *Report) {
			if len(r.Different) != 1 || !strings.Contains(r.Different[0].Diff, "sha256:000000000000") {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a link the link pass missed differs", func(ws *notionemu.Workspace) {
			for _, row := range liveRows(ws) {
				for i, b := range row.Blocks {
					rt, _ := b.Content["rich_text"].([]any)
					for j, x := range rt {
						if r, _ := x.(map[string]any); r["type"] == "mention" {
							rt[j] = map[string]any{"type": "text", "text": map[string]any{"content": "a link",
								"link": map[string]any{"url": "onenote:#x&page-id={00000000-0000-0000-0000-000000000000}&end"}}}
							row.Blocks[i].Content["rich_text"] = rt
							return
						}
					}
				}
			}
			t.Fatal("no top-level mention in the export")
		}, func(t *testing.T, r *Report) {
			if len(r.Different) != 1 || !strings.Contains(r.Different[0].Diff, "[a link](onenote:") {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a row of a page not migrated is unexpected", func(ws *notionemu.Workspace) {
			db := firstDB(ws)
			x := db.Rows[0]
			x.ID = "0000beef-0000-0000-0000-000000000000"
			x.Properties = map[string]any{}
			for k, v := range db.Rows[0].Properties {
				x.Properties[k] = v
			}
			x.Properties[notion.PropOneNoteID] = map[string]any{"rich_text": []any{map[string]any{"plain_text": "not-a-page"}}}
			db.Rows = append(db.Rows, x)
		}, func(t *testing.T, r *Report) {
			if len(r.Unexpected) != 1 || r.Unexpected[0].ID != "not-a-page" || r.OK() {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a second notebook page is a container problem", func(ws *notionemu.Workspace) {
			root := &ws.Pages[0]
			again := root.Pages[0]
			again.ID = "0000book-0000-0000-0000-000000000000"
			again.Databases, again.Pages = nil, nil
			root.Pages = append(root.Pages, again)
		}, func(t *testing.T, r *Report) {
			if len(r.Containers) != 1 || !strings.Contains(r.Containers[0], "2 live Notion pages") || len(r.Missing) != 0 {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
		{"a missing section database loses its pages", func(ws *notionemu.Workspace) {
			firstDB(ws).Archived = true
		}, func(t *testing.T, r *Report) {
			if len(r.Containers) != 1 || len(r.Missing) != 4 {
				t.Errorf("report:\n%s", r.Diff(3))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := m.notion.Export()
			c.mutate(&ws)
			c.check(t, Compare(exp, ws, m.parent))
		})
	}

	t.Run("under another parent nothing is found", func(t *testing.T) {
		r := Compare(exp, m.notion.Export(), "ffffffff-ffff-ffff-ffff-ffffffffffff")
		if len(r.Missing) != 12 || len(r.Containers) != 1 || !strings.Contains(r.Containers[0], "under the parent page") {
			t.Errorf("report:\n%s", r.Diff(1))
		}
	})
}

// TestExpectFollowsTheSource: given the notebooks the source emulator
// holds, the expectation follows pages changed or deleted there.
func TestExpectFollowsTheSource(t *testing.T) {
	m := migrate(t)
	ctx := context.Background()
	shared := Source{User: testUser, Notebooks: m.nbs, Exclude: []string{m.excluded}}
	touched := m.nbs[0].Sections[0].Pages[1].ID
	if err := m.src.TouchPage(touched); err != nil {
		t.Fatal(err)
	}
	r, err := Check(ctx, shared, m.notion.Export(), m.parent)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || len(r.Mismatches) != 1 || r.Mismatches[0].Field != "last modified" || r.Mismatches[0].Page.ID != touched ||
		len(r.Different) != 1 || r.Different[0].Page.ID != touched {
		t.Errorf("before the touched page is written again:\n%s", r.Diff(1))
	}
	m.write(touched)
	if r, err = Check(ctx, shared, m.notion.Export(), m.parent); err != nil || !r.OK() {
		t.Errorf("after the touched page is written again (%v):\n%s", err, r.Diff(1))
	}
	// A fresh copy of the source knows nothing of the touch.
	if r, err = Check(ctx, m.source(), m.notion.Export(), m.parent); err != nil || r.OK() || r.Matched != 11 {
		t.Errorf("against a fresh copy (%v):\n%s", err, r.Diff(1))
	}

	deleted := m.nbs[0].Sections[0].Pages[3].ID
	if err := m.src.DeletePage(deleted); err != nil {
		t.Fatal(err)
	}
	r, err = Check(ctx, shared, m.notion.Export(), m.parent)
	if err != nil || r.ExpectedPages != 11 || len(r.Unexpected) != 1 || r.Unexpected[0].ID != deleted {
		t.Errorf("a page deleted in OneNote but still in Notion (%v):\n%s", err, r.Diff(1))
	}
}

func TestExpectBadSource(t *testing.T) {
	for _, src := range []Source{
		{},
		{User: testUser},
		{User: testUser, Notebooks: graph.Generate(testSpec()), Notebook: "No such notebook"},
	} {
		if _, err := Expect(context.Background(), src); !errors.Is(err, ErrSource) {
			t.Errorf("%+v: %v, want ErrSource", src.Notebook, err)
		}
	}
}

func TestLines(t *testing.T) {
	none := func(r blocks.RichText) blocks.RichText { return r }
	noMedia := func(*blocks.Media) string { return "?" }
	cases := []struct {
		name string
		a, b []blocks.Block
		same bool
	}{
		{"a split run reads as one",
			[]blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "abcdef", Annotations: blocks.Annotations{Bold: true}}}}},
			[]blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "abc", Annotations: blocks.Annotations{Bold: true}}, {Text: "def", Annotations: blocks.Annotations{Bold: true}}}}},
			true},
		{"default colour is no colour",
			[]blocks.Block{{Type: blocks.Paragraph, Color: "default", RichText: []blocks.RichText{{Text: "x", Annotations: blocks.Annotations{Color: "default"}}}}},
			[]blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "x"}}}},
			true},
		{"formatting counts",
			[]blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "x", Annotations: blocks.Annotations{Italic: true}}}}},
			[]blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "x"}}}},
			false},
		{"a checked to-do differs from an open one",
			[]blocks.Block{{Type: blocks.ToDo, Checked: true, RichText: []blocks.RichText{{Text: "x"}}}},
			[]blocks.Block{{Type: blocks.ToDo, RichText: []blocks.RichText{{Text: "x"}}}},
			false},
		{"nesting counts",
			[]blocks.Block{{Type: blocks.BulletedListItem, Children: []blocks.Block{{Type: blocks.Paragraph}}}},
			[]blocks.Block{{Type: blocks.BulletedListItem}, {Type: blocks.Paragraph}},
			false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := Lines(c.a, none, noMedia), Lines(c.b, none, noMedia)
			if slices.Equal(a, b) != c.same {
				t.Errorf("same=%v, want %v:\n%q\n%q", slices.Equal(a, b), c.same, a, b)
			}
		})
	}
}

func TestDiffLines(t *testing.T) {
	cases := []struct {
		want, got      []string
		missing, extra int
	}{
		{[]string{"a", "b", "c"}, []string{"a", "b", "c"}, 0, 0},
		{[]string{"a", "b", "c"}, []string{"a", "c"}, 1, 0},
		{[]string{"a", "c"}, []string{"a", "b", "c"}, 0, 1},
		{[]string{"a", "b", "c"}, []string{"a", "x", "c"}, 1, 1},
		{nil, []string{"x", "y"}, 0, 2},
		{[]string{"x", "y"}, nil, 2, 0},
	}
	for _, c := range cases {
		d := diffLines(c.want, c.got)
		if d.missing != c.missing || d.extra != c.extra {
			t.Errorf("%q vs %q: missing %d extra %d, want %d and %d\n%s", c.want, c.got, d.missing, d.extra, c.missing, c.extra, d.text)
		}
	}
	long := make([]string, 40)
	for i := range long {
		long[i] = fmt.Sprintf("line %d", i)
	}
	changed := slices.Clone(long)
	changed[20] = "changed"
	d := diffLines(long, changed)
	if !strings.Contains(d.text, "- "+long[20]) || !strings.Contains(d.text, "+ changed") || strings.Contains(d.text, long[5]+"\n") || !strings.Contains(d.text, long[18]+"\n") {
		t.Errorf("diff shows too much or too little:\n%s", d.text)
	}
}
