package notion_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
)

func rt(s string) []blocks.RichText { return []blocks.RichText{{Text: s}} }

func nestedList(depth, fan int, typ blocks.Type, label string) blocks.Block {
	b := blocks.Block{Type: typ, RichText: rt(label)}
	if depth > 1 {
		for i := 0; i < fan; i++ {
			b.Children = append(b.Children, nestedList(depth-1, fan, typ, fmt.Sprintf("%s.%d", label, i+1)))
		}
	}
	return b
}

func table(rows, width int, label string) blocks.Block {
	t := blocks.Block{Type: blocks.Table, TableWidth: width, HasColumnHeader: true}
	for r := 0; r < rows; r++ {
		row := blocks.Block{Type: blocks.TableRow}
		for c := 0; c < width; c++ {
			row.Cells = append(row.Cells, rt(fmt.Sprintf("%s r%d c%d", label, r, c)))
		}
		t.Children = append(t.Children, row)
	}
	return t
}

func image(n int, res resources) blocks.Block {
	id := fmt.Sprintf("res-%02d", n)
	data := append([]byte("\x89PNG\r\n\x1a\n"), []byte(strings.Repeat(fmt.Sprintf("pixels of image %d;", n), 50+n))...)
	res[id] = data
	return blocks.Block{Type: blocks.Image, Caption: rt(fmt.Sprintf("Figure %d", n)),
		Media: &blocks.Media{Resource: &blocks.Resource{ID: id, Name: fmt.Sprintf("image-%02d.png", n), MIME: "image/png"}}}
}

// bigPage is a page of exactly 3,000 blocks: lists nested 4 levels deep,
// three tables (one of 150 rows), 20 images, and assorted text blocks.
func bigPage() ([]blocks.Block, resources) {
	res := resources{}
	var bs []blocks.Block
	add := func(b blocks.Block) { bs = append(bs, b) }
	add(blocks.Block{Type: blocks.Heading1, RichText: rt("A big page")})
	add(table(150, 3, "big"))
	add(table(12, 2, "small"))
	add(table(4, 5, "wide"))
	// A heading whose children cannot go with it (too deep): it is
	// created toggleable without them.
	add(blocks.Block{Type: blocks.Heading3, RichText: rt("toggle heading"), Children: []blocks.Block{nestedList(3, 2, blocks.BulletedListItem, "under heading")}})
	add(blocks.Block{Type: blocks.Toggle, RichText: rt("toggle"), Children: []blocks.Block{nestedList(4, 2, blocks.ToDo, "todo")}})
	add(blocks.Block{Type: blocks.Callout, Icon: "💡", Color: "yellow_background", RichText: rt("callout"), Children: []blocks.Block{{Type: blocks.Paragraph, RichText: rt("in callout")}}})
	add(blocks.Block{Type: blocks.Equation, Expression: `e^{i\pi}+1=0`})
	for i := 0; blocks.Count(bs) < 2900; i++ {
		switch i % 8 {
		case 0:
			add(nestedList(4, 3, blocks.BulletedListItem, fmt.Sprintf("bullet %d", i)))
		case 1:
			add(nestedList(4, 2, blocks.NumberedListItem, fmt.Sprintf("number %d", i)))
		case 2:
			if i/8 < 20 {
				add(image(i/8+1, res))
			} else {
				add(blocks.Block{Type: blocks.Divider})
			}
		case 3:
			add(blocks.Block{Type: blocks.ToDo, RichText: rt(fmt.Sprintf("to do %d", i)), Checked: i%3 == 0})
		case 4:
			add(blocks.Block{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "bold ", Annotations: blocks.Annotations{Bold: true}},
				{Text: fmt.Sprintf("paragraph %d", i), Annotations: blocks.Annotations{Color: "blue_background"}}, {Text: " link", Link: "https://example.com/x"}}})
		case 5:
			add(blocks.Block{Type: blocks.Heading2, RichText: rt(fmt.Sprintf("heading %d", i))})
		case 6:
			add(blocks.Block{Type: blocks.Code, Language: "go", RichText: rt(fmt.Sprintf("x := %d", i))})
		case 7:
			add(blocks.Block{Type: blocks.Quote, RichText: rt(fmt.Sprintf("quote %d", i)), Children: []blocks.Block{{Type: blocks.Paragraph, RichText: rt("inside")}}})
		}
	}
	for n := 1; blocks.Count(bs) < 3000; n++ {
		if n <= 20 && countImages(bs) < 20 {
			add(image(countImages(bs)+1, res))
			continue
		}
		add(blocks.Block{Type: blocks.Paragraph, RichText: rt(fmt.Sprintf("closing paragraph %d", n))})
	}
	return bs, res
}

func countImages(bs []blocks.Block) int {
	n := 0
	for _, b := range bs {
		if b.Type == blocks.Image {
			n++
		}
		n += countImages(b.Children)
	}
	return n
}

func pageInput(id string, bs []blocks.Block, res resources) notion.PageInput {
	return notion.PageInput{OneNotePageID: id, Title: "Page " + id, SectionPath: "Notebook/Section",
		Created:      time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC),
		LastModified: time.Date(2024, 3, 2, 11, 30, 15, 250e6, time.UTC),
		Link:         "https://onedrive.live.com/view.aspx?page=" + id, Blocks: bs, Resources: res.open}
}

// rowsOf returns every row (archived ones too) of database db whose
// OneNote page ID is id.
func rowsOf(t *testing.T, ws emu.Workspace, db, id string) []emu.Page {
	t.Helper()
	d := findDatabase(ws.Pages, db)
	if d == nil {
		t.Fatalf("database %s not in the export", db)
	}
	var out []emu.Page
	for _, r := range d.Rows {
		if prop(r, notion.PropOneNoteID) == id {
			out = append(out, r)
		}
	}
	return out
}

// checkOnePage checks that the export holds exactly one row for id, done,
// whose content equals want.
func checkOnePage(t *testing.T, e *env, db, id string, want []blocks.Block, res resources) {
	t.Helper()
	checkOneNormalisedPage(t, e, db, id, expectedBlocks(t, want, res))
}

// checkOneNormalisedPage is checkOnePage with the expected blocks already
// normalised (see expectedBlocks).
func checkOneNormalisedPage(t *testing.T, e *env, db, id string, want []blocks.Block) {
	t.Helper()
	ws := e.srv.Export()
	rows := rowsOf(t, ws, db, id)
	if len(rows) != 1 {
		t.Fatalf("%d rows for %s, want 1", len(rows), id)
	}
	row := rows[0]
	if row.Archived || prop(row, notion.PropStatus) != notion.StatusDone {
		t.Fatalf("row archived=%v status=%q, want a live row with status done", row.Archived, prop(row, notion.PropStatus))
	}
	got := exportedBlocks(t, ws, row)
	if d := diffBlocks(got, want, ""); d != "" {
		t.Fatalf("exported page differs from the input: %s", d)
	}
}

func TestWriteBigPageExportEqualsInput(t *testing.T) {
	e := newEnv(t, emu.Config{})
	e.http = newHTTPServer(t, e.srv) // this test goes through real HTTP
	c := e.client(t, nil)
	db := e.section(t, c)
	bs, res := bigPage()
	if n := blocks.Count(bs); n != 3000 || countImages(bs) != 20 {
		t.Fatalf("generated %d blocks, %d images", n, countImages(bs))
	}
	start := e.clock.Now()
	r, err := c.WritePage(context.Background(), db, pageInput("big", bs, res))
	if err != nil {
		t.Fatal(err)
	}
	elapsed := e.clock.Now().Sub(start)
	t.Logf("3,000 blocks: %d requests, %d blocks written, %v of virtual time (%.2f req/s)",
		r.Requests, r.BlocksWritten, elapsed.Round(time.Second), float64(r.Requests)/elapsed.Seconds())
	if r.BlocksWritten != 3000 || len(r.Losses) != 0 {
		t.Errorf("result %d blocks, losses %v", r.BlocksWritten, r.Losses)
	}
	checkOnePage(t, e, db, "big", bs, res)
	row := rowsOf(t, e.srv.Export(), db, "big")[0]
	for name, want := range map[string]string{notion.PropName: "Page big", notion.PropSectionPath: "Notebook/Section",
		notion.PropLastModified: "2024-03-02T11:30:15.250Z"} {
		if got := prop(row, name); got != want && !strings.HasPrefix(got, "2024-03-02T11:30:15") {
			t.Errorf("property %s = %q, want %q", name, got, want)
		}
	}
	if s := e.srv.Stats().Tokens[e.token]; s.RateLimited != 0 {
		t.Errorf("%d requests were rate limited", s.RateLimited)
	}

	// Unchanged: one query, nothing written.
	again, err := c.WritePage(context.Background(), db, pageInput("big", bs, res))
	if err != nil || !again.Unchanged || again.Requests != 1 || again.PageID != r.PageID {
		t.Fatalf("second write = %+v, %v; want unchanged after 1 request", again, err)
	}

	// Changed in OneNote: replaced in place, same row.
	changed := pageInput("big", []blocks.Block{{Type: blocks.Paragraph, RichText: rt("rewritten")}}, res)
	changed.LastModified = changed.LastModified.Add(time.Hour)
	r3, err := c.WritePage(context.Background(), db, changed)
	if err != nil || r3.PageID != r.PageID || r3.Unchanged {
		t.Fatalf("changed write = %+v, %v", r3, err)
	}
	checkOnePage(t, e, db, "big", changed.Blocks, res)
}

// crashTransport passes calls through until call limit, then "crashes":
// the rest of the write stops. With applied set, the call that crashes
// still reaches Notion and only its answer is lost.
type crashTransport struct {
	next    http.RoundTripper
	limit   int
	applied bool
	cancel  context.CancelFunc

	mu    sync.Mutex
	calls int
}

var errCrash = errors.New("crashed")

func (c *crashTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.calls++
	n := c.calls
	c.mu.Unlock()
	if c.limit < 0 || n <= c.limit {
		return c.next.RoundTrip(r)
	}
	if n == c.limit+1 && c.applied {
		if resp, err := c.next.RoundTrip(r); err == nil {
			resp.Body.Close()
		}
	}
	c.cancel()
	return nil, errCrash
}

// crashPage is a page whose write exercises every kind of step: uploads,
// a create, appends to the page, children appended to returned IDs, table
// rows beyond the first 100, and more than 100 top-level blocks.
func crashPage() ([]blocks.Block, resources) {
	res := resources{}
	bs := []blocks.Block{image(1, res), nestedList(4, 2, blocks.BulletedListItem, "deep"), table(120, 2, "t")}
	for i := 0; i < 110; i++ {
		bs = append(bs, blocks.Block{Type: blocks.Paragraph, RichText: rt(fmt.Sprintf("p%d", i))})
	}
	bs = append(bs, image(2, res), nestedList(3, 2, blocks.NumberedListItem, "n"),
		nestedList(6, 2, blocks.BulletedListItem, "six levels")) // children left for later, three times over
	return bs, res
}

// stride is the step between cut points of the second-order crash sweeps:
// every call normally, every fourth with -short.
func stride() int {
	if testing.Short() {
		return 4
	}
	return 1
}

// smallCrashPage is crashPage with 10 paragraphs instead of 110, for
// tests whose every step deletes the page's blocks one by one.
func smallCrashPage() ([]blocks.Block, resources) {
	bs, res := crashPage()
	return append(bs[:13:13], bs[len(bs)-3:]...), res
}

func TestCrashAtEveryCallThenRerunWritesOnePage(t *testing.T) {
	bs, res := crashPage()
	// A clean write, to count its calls.
	e := newEnv(t, emu.Config{})
	db := e.section(t, e.client(t, nil))
	counter := &crashTransport{limit: -1}
	clean := e.client(t, func(next http.RoundTripper) http.RoundTripper { counter.next = next; return counter })
	if _, err := clean.WritePage(context.Background(), db, pageInput("p", bs, res)); err != nil {
		t.Fatal(err)
	}
	calls := counter.calls
	t.Logf("a clean write makes %d calls", calls)
	want := expectedBlocks(t, bs, res)

	for _, applied := range []bool{false, true} {
		for k := 0; k < calls; k++ {
			name := fmt.Sprintf("stop after %d calls", k)
			if applied {
				name = fmt.Sprintf("call %d applied, answer lost", k+1)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, emu.Config{})
				db := e.section(t, e.client(t, nil))
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ct := &crashTransport{limit: k, applied: applied, cancel: cancel}
				crashing := e.client(t, func(next http.RoundTripper) http.RoundTripper { ct.next = next; return ct })
				if _, err := crashing.WritePage(ctx, db, pageInput("p", bs, res)); err == nil {
					t.Fatalf("the write survived its crash")
				}
				// The process restarts: a new client runs the write again.
				r, err := e.client(t, nil).WritePage(context.Background(), db, pageInput("p", bs, res))
				if err != nil {
					t.Fatalf("rerun: %v", err)
				}
				if r.Requests > calls+4 {
					t.Errorf("the rerun made %d requests; a clean write makes %d", r.Requests, calls)
				}
				// Only a crash that lost the answer to the last call (marking
				// the row done) leaves a complete page behind.
				if last := applied && k == calls-1; r.Unchanged != last {
					t.Fatalf("rerun: unchanged = %v, want %v", r.Unchanged, last)
				}
				checkOneNormalisedPage(t, e, db, "p", want)
			})
		}
	}
}

// TestUnknownOutcomesAreReconciled injects writes that are applied but
// answered 500 or 504, and plain transient errors, into a page write.
func TestUnknownOutcomesAreReconciled(t *testing.T) {
	small, smallRes := crashPage()
	big, bigRes := bigPage()
	for seed := uint64(1); seed <= 9; seed++ {
		bs, res := small, smallRes
		if seed == 9 {
			bs, res = big, bigRes
		}
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			e := newEnv(t, emu.Config{Seed: seed})
			c := e.client(t, nil)
			db := e.section(t, c)
			e.srv.SetFaults(emu.Faults{AppliedThenInternalError: 0.1, AppliedThenGatewayTimeout: 0.1,
				InternalError: 0.02, BadGateway: 0.02, Unavailable: 0.02, Conflict: 0.02, Overload: 0.02})
			r, err := c.WritePage(context.Background(), db, pageInput("p", bs, res))
			e.srv.SetFaults(emu.Faults{})
			if err != nil {
				t.Fatal(err)
			}
			st := e.srv.Stats().Tokens[e.token]
			t.Logf("%d requests; statuses %v", r.Requests, st.ByStatus)
			checkOnePage(t, e, db, "p", bs, res)
		})
	}
}

func TestLayoutFindsBeforeCreating(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	spec := notion.NotebookSpec{ID: "nb", Name: "Work", Sections: []notion.SectionSpec{{ID: "s1", Name: "Inbox"}, {ID: "s2", Name: "Inbox"}},
		SectionGroups: []notion.SectionGroupSpec{{ID: "g1", Name: "Projects", Sections: []notion.SectionSpec{{ID: "s3", Name: "Alpha"}},
			SectionGroups: []notion.SectionGroupSpec{{ID: "g2", Name: "Archive", Sections: []notion.SectionSpec{{ID: "s4", Name: "Old"}}}}}}}
	first, err := c.EnsureLayout(context.Background(), e.srv.RootPageID(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.SectionDatabaseIDs) != 4 || len(first.GroupPageIDs) != 2 || first.SectionDatabaseIDs["s1"] == first.SectionDatabaseIDs["s2"] {
		t.Fatalf("layout %+v", first)
	}
	creates := func() int {
		n := 0
		for _, r := range e.srv.Requests(e.token) {
			if r.Method == "POST" && (r.Path == "/v1/pages" || r.Path == "/v1/databases") {
				n++
			}
		}
		return n
	}
	before := creates()
	second, err := c.EnsureLayout(context.Background(), e.srv.RootPageID(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if creates() != before {
		t.Errorf("the second run created %d containers", creates()-before)
	}
	if first.Created != 7 || second.Created != 0 {
		t.Errorf("created %d then %d containers, want 7 then 0", first.Created, second.Created)
	}
	if first.Existing || !second.Existing {
		t.Errorf("notebook page existing before the run: %v then %v, want false then true", first.Existing, second.Existing)
	}
	first.Created, first.Existing = 0, true
	if fmt.Sprint(first) != fmt.Sprint(second) {
		t.Errorf("second layout %+v, want %+v", second, first)
	}
	// The section databases have the whole schema, the self-relation too.
	ws := e.srv.Export()
	d := findDatabase(ws.Pages, first.SectionDatabaseIDs["s4"])
	if d == nil || d.Title != "Old" {
		t.Fatalf("database of s4: %+v", d)
	}
	for _, p := range []string{notion.PropName, notion.PropOneNoteID, notion.PropSectionPath, notion.PropCreated,
		notion.PropLastModified, notion.PropLink, notion.PropParent, notion.PropStatus} {
		if _, ok := d.Properties[p]; !ok {
			t.Errorf("database lacks property %q", p)
		}
	}
	rel, _ := d.Properties[notion.PropParent].(map[string]any)["relation"].(map[string]any)
	if rel == nil || strings.ReplaceAll(fmt.Sprint(rel["database_id"]), "-", "") != strings.ReplaceAll(d.ID, "-", "") {
		t.Errorf("Parent item relation %v does not point at its own database %s", rel, d.ID)
	}
}

func TestSubpageIsSubItemOfItsParent(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	parent, err := c.WritePage(context.Background(), db, pageInput("parent", []blocks.Block{{Type: blocks.Paragraph, RichText: rt("p")}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	in := pageInput("child", []blocks.Block{{Type: blocks.Paragraph, RichText: rt("c")}}, nil)
	in.ParentPageID = parent.PageID
	if _, err := c.WritePage(context.Background(), db, in); err != nil {
		t.Fatal(err)
	}
	row := rowsOf(t, e.srv.Export(), db, "child")[0]
	rel := fmt.Sprint(row.Properties[notion.PropParent])
	if !strings.Contains(rel, parent.PageID) {
		t.Errorf("child's Parent item = %s, want %s", rel, parent.PageID)
	}
}

func TestRefusedFilesAreReportedAgainstEmulator(t *testing.T) {
	e := newEnv(t, emu.Config{MaxFileUploadBytes: 4000})
	c := e.client(t, nil)
	db := e.section(t, c)
	res := resources{"ok": []byte("hello"), "exe": []byte("MZ..."), "big": make([]byte, 5000)}
	bs := []blocks.Block{
		{Type: blocks.File, Media: &blocks.Media{Resource: &blocks.Resource{ID: "ok", Name: "notes.txt", MIME: "text/plain"}}},
		{Type: blocks.File, Media: &blocks.Media{Resource: &blocks.Resource{ID: "exe", Name: "setup.exe", MIME: "application/x-msdownload"}}},
		{Type: blocks.PDF, Media: &blocks.Media{Resource: &blocks.Resource{ID: "big", Name: "scan.pdf", MIME: "application/pdf"}}},
	}
	r, err := c.WritePage(context.Background(), db, pageInput("files", bs, res))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Losses) != 2 || !strings.Contains(r.Losses[0].Detail, "setup.exe") || !strings.Contains(r.Losses[1].Detail, "scan.pdf") {
		t.Fatalf("losses %+v, want setup.exe and scan.pdf", r.Losses)
	}
	ws := e.srv.Export()
	got := exportedBlocks(t, ws, rowsOf(t, ws, db, "files")[0])
	// The callout at the top names both refused files.
	if len(got) == 0 || got[0].Type != blocks.Callout || !strings.Contains(blocks.PlainText(got[0].RichText), "setup.exe") ||
		!strings.Contains(blocks.PlainText(got[0].RichText), "scan.pdf") {
		t.Fatalf("first block %+v, want the loss callout naming both files", got)
	}
	got = got[1:]
	if len(got) != 3 || got[0].Type != blocks.File || got[1].Type != blocks.Paragraph || got[2].Type != blocks.Paragraph ||
		!strings.Contains(blocks.PlainText(got[1].RichText), "setup.exe") {
		t.Fatalf("blocks %+v", got)
	}
}

func TestExpiredUploadIsUploadedAgain(t *testing.T) {
	e := newEnv(t, emu.Config{UploadExpiry: 20 * time.Second})
	c := e.client(t, nil)
	db := e.section(t, c)
	// 250 paragraphs before the image: its request goes out well after
	// 20 s of virtual time at 3 requests a second.
	res := resources{}
	var bs []blocks.Block
	for i := 0; i < 2500; i++ {
		bs = append(bs, blocks.Block{Type: blocks.Paragraph, RichText: rt(fmt.Sprint(i))})
	}
	bs = append(bs, image(1, res))
	if _, err := c.WritePage(context.Background(), db, pageInput("late", bs, res)); err != nil {
		t.Fatal(err)
	}
	checkOnePage(t, e, db, "late", bs, res)
	n := 0
	for _, u := range e.srv.Export().Uploads {
		if u.Filename == "image-01.png" {
			n++
		}
	}
	if n < 2 {
		t.Errorf("the image was uploaded %d times, want a fresh upload before attaching", n)
	}
}

func TestRewritePageLinksSecondPass(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	const guidB = "{BBBBBBBB-0000-4000-8000-000000000002}"
	a := []blocks.Block{
		{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "go to "},
			{Text: "page B", PageRef: guidB, Link: "onenote:#B&section-id={S}&page-id=" + guidB + "&end"}}},
		{Type: blocks.BulletedListItem, RichText: rt("list"), Children: []blocks.Block{{Type: blocks.Paragraph,
			RichText: []blocks.RichText{{Text: "missing", PageRef: "{CCCC}", Link: "onenote:#C&page-id={CCCC}&end"}}}}},
	}
	ra, err := c.WritePage(context.Background(), db, pageInput("a", a, nil))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := c.WritePage(context.Background(), db, pageInput("b", []blocks.Block{{Type: blocks.Paragraph, RichText: rt("B")}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.RewritePageLinks(context.Background(), ra.PageID, map[string]string{"bbbbbbbb-0000-4000-8000-000000000002": rb.PageID})
	if err != nil {
		t.Fatal(err)
	}
	if res.BlocksWritten != 2 || len(res.Losses) != 1 || res.Losses[0].Kind != notion.LossLink || res.Losses[0].Location != "block 2.1 (paragraph)" {
		t.Errorf("result %+v", res)
	}
	ws := e.srv.Export()
	got := exportedBlocks(t, ws, rowsOf(t, ws, db, "a")[0])
	if m := got[0].RichText[1]; m.Mention == "" || strings.ReplaceAll(m.Mention, "-", "") != strings.ReplaceAll(rb.PageID, "-", "") {
		t.Errorf("link became %+v, want a mention of %s", m, rb.PageID)
	}
	if m := got[1].Children[0].RichText; m[0].Link != "" || blocks.PlainText(m) != "missing (OneNote page not migrated)" {
		t.Errorf("link to a page not migrated became %+v, want plain text with a note", m)
	}
}

func TestEmptyPage(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	r, err := c.WritePage(context.Background(), db, pageInput("empty", nil, nil))
	if err != nil || r.BlocksWritten != 0 || r.Requests != 3 {
		t.Fatalf("result %+v, %v; want 0 blocks in 3 requests (query, create, done)", r, err)
	}
	checkOnePage(t, e, db, "empty", nil, nil)
}

func TestWorkspaceBlockLimitIsTyped(t *testing.T) {
	e := newEnv(t, emu.Config{WorkspaceBlockLimit: 50})
	c := e.client(t, nil)
	db := e.section(t, c)
	var bs []blocks.Block
	for i := 0; i < 80; i++ {
		bs = append(bs, blocks.Block{Type: blocks.Paragraph, RichText: rt(fmt.Sprint(i))})
	}
	_, err := c.WritePage(context.Background(), db, pageInput("x", bs, nil))
	if !errors.Is(err, notion.ErrWorkspaceBlockLimit) || errors.Is(err, notion.ErrValidation) {
		t.Fatalf("err = %v, want ErrWorkspaceBlockLimit", err)
	}
}

// TestCrashDuringRepairThenRerun crashes a write half-way, then crashes
// the write that repairs it at every call, then runs it once more.
func TestCrashDuringRepairThenRerun(t *testing.T) {
	bs, res := crashPage()
	const k = 7 // the first crash: mid-way through the appends
	crashed := func(t *testing.T) (*env, string) {
		e := newEnv(t, emu.Config{})
		db := e.section(t, e.client(t, nil))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ct := &crashTransport{limit: k, applied: true, cancel: cancel}
		c := e.client(t, func(next http.RoundTripper) http.RoundTripper { ct.next = next; return ct })
		if _, err := c.WritePage(ctx, db, pageInput("p", bs, res)); err == nil {
			t.Fatal("the write survived its crash")
		}
		return e, db
	}
	e, db := crashed(t)
	counter := &crashTransport{limit: -1}
	c := e.client(t, func(next http.RoundTripper) http.RoundTripper { counter.next = next; return counter })
	if _, err := c.WritePage(context.Background(), db, pageInput("p", bs, res)); err != nil {
		t.Fatal(err)
	}
	calls := counter.calls
	t.Logf("the repairing write makes %d calls", calls)
	want := expectedBlocks(t, bs, res)
	for _, applied := range []bool{false, true} {
		for j := 0; j < calls; j += stride() {
			t.Run(fmt.Sprintf("repair stops at call %d, applied %v", j+1, applied), func(t *testing.T) {
				t.Parallel()
				e, db := crashed(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ct := &crashTransport{limit: j, applied: applied, cancel: cancel}
				c := e.client(t, func(next http.RoundTripper) http.RoundTripper { ct.next = next; return ct })
				if _, err := c.WritePage(ctx, db, pageInput("p", bs, res)); err == nil {
					t.Fatal("the repair survived its crash")
				}
				if _, err := e.client(t, nil).WritePage(context.Background(), db, pageInput("p", bs, res)); err != nil {
					t.Fatalf("final run: %v", err)
				}
				checkOneNormalisedPage(t, e, db, "p", want)
			})
		}
	}
}

// TestCrashWhileReplacingChangedPage writes a page, then crashes at every
// call the write of its changed version, then runs that write again. The
// new version has the same block types as the old, so only the row's
// state, never a look at the content, can tell old blocks from new.
func TestCrashWhileReplacingChangedPage(t *testing.T) {
	old, res := smallCrashPage()
	changed, _ := smallCrashPage()
	for i := range changed {
		if changed[i].Type == blocks.Paragraph {
			changed[i].RichText = rt("changed " + blocks.PlainText(changed[i].RichText))
		}
	}
	newer := pageInput("p", changed, res)
	newer.LastModified = newer.LastModified.Add(24 * time.Hour)

	written := func(t *testing.T) (*env, string) {
		e := newEnv(t, emu.Config{})
		c := e.client(t, nil)
		db := e.section(t, c)
		if _, err := c.WritePage(context.Background(), db, pageInput("p", old, res)); err != nil {
			t.Fatal(err)
		}
		return e, db
	}
	e, db := written(t)
	counter := &crashTransport{limit: -1}
	c := e.client(t, func(next http.RoundTripper) http.RoundTripper { counter.next = next; return counter })
	if _, err := c.WritePage(context.Background(), db, newer); err != nil {
		t.Fatal(err)
	}
	calls := counter.calls
	t.Logf("replacing the page makes %d calls", calls)
	want := expectedBlocks(t, changed, res)
	checkOneNormalisedPage(t, e, db, "p", want)

	for k := 0; k < calls; k += stride() {
		for _, applied := range []bool{false, true} {
			t.Run(fmt.Sprintf("stop after %d calls, applied %v", k, applied), func(t *testing.T) {
				t.Parallel()
				e, db := written(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ct := &crashTransport{limit: k, applied: applied, cancel: cancel}
				c := e.client(t, func(next http.RoundTripper) http.RoundTripper { ct.next = next; return ct })
				if _, err := c.WritePage(ctx, db, newer); err == nil {
					t.Fatal("the write survived its crash")
				}
				if _, err := e.client(t, nil).WritePage(context.Background(), db, newer); err != nil {
					t.Fatalf("rerun: %v", err)
				}
				checkOneNormalisedPage(t, e, db, "p", want)
			})
		}
	}
}

// TestHalfWrittenPageThatDoesNotMatchIsReplaced resumes a half-written
// page with different content under the same date: the mismatch is
// noticed and the page rewritten.
func TestHalfWrittenPageThatDoesNotMatchIsReplaced(t *testing.T) {
	e := newEnv(t, emu.Config{})
	db := e.section(t, e.client(t, nil))
	bs, res := crashPage()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct := &crashTransport{limit: 8, cancel: cancel}
	c := e.client(t, func(next http.RoundTripper) http.RoundTripper { ct.next = next; return ct })
	if _, err := c.WritePage(ctx, db, pageInput("p", bs, res)); err == nil {
		t.Fatal("the write survived its crash")
	}
	other := []blocks.Block{{Type: blocks.Heading1, RichText: rt("other")}, table(3, 2, "x")}
	if _, err := e.client(t, nil).WritePage(context.Background(), db, pageInput("p", other, res)); err != nil {
		t.Fatal(err)
	}
	checkOnePage(t, e, db, "p", other, res)
}

// TestUploadExpiredAtAttachIsUploadedAgain makes the emulator's clock jump
// two hours once the files are uploaded, so that Notion finds the uploads
// expired although the client believes them fresh: the attach is refused,
// and the files are uploaded again and attached.
func TestUploadExpiredAtAttachIsUploadedAgain(t *testing.T) {
	clock := newVirtualClock()
	var mu sync.Mutex
	var skew time.Duration
	e := newEnv(t, emu.Config{Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock.Now().Add(skew)
	}})
	e.clock = clock
	c := e.client(t, nil)
	db := e.section(t, c)
	res := resources{}
	bs := []blocks.Block{image(1, res), image(2, res), image(3, res)}
	in := pageInput("p", bs, res)
	in.Resources = func(ctx context.Context, r blocks.Resource) (io.ReadCloser, int64, string, error) {
		if r.ID == "res-03" {
			mu.Lock()
			skew = 2 * time.Hour
			mu.Unlock()
		}
		return res.open(ctx, r)
	}
	if _, err := c.WritePage(context.Background(), db, in); err != nil {
		t.Fatal(err)
	}
	checkOnePage(t, e, db, "p", bs, res)
	if n := len(e.srv.Export().Uploads); n != 6 {
		t.Errorf("%d uploads, want 6 (3, then again the 3 of the refused request)", n)
	}
}

// TestLargeAttachmentGoesInParts sends a file over 20 MB through the
// emulator, which checks the part sizes Notion requires.
func TestLargeAttachmentGoesInParts(t *testing.T) {
	if testing.Short() {
		t.Skip("21 MB of file")
	}
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	data := make([]byte, 21*1000*1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	res := resources{"big": data}
	bs := []blocks.Block{{Type: blocks.PDF, Media: &blocks.Media{Resource: &blocks.Resource{ID: "big", Name: "scan.pdf", MIME: "application/pdf"}}}}
	r, err := c.WritePage(context.Background(), db, pageInput("big-file", bs, res))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Losses) != 0 {
		t.Fatalf("losses %+v", r.Losses)
	}
	checkOnePage(t, e, db, "big-file", bs, res)
	if ups := e.srv.Export().Uploads; len(ups) != 1 || ups[0].Mode != "multi_part" {
		t.Errorf("uploads %+v, want one multi_part upload", ups)
	}
}
