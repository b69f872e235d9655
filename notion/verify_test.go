package notion_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/notion/readback"
	"github.com/notebridge/notebridge/report"
)

// verifyPage is a page of a few kinds of content, drawn from r: text,
// nested lists, an image, a table and, for some, more than one request's
// worth of top-level blocks.
func verifyPage(r *rand.Rand, n int, res resources) []blocks.Block {
	var bs []blocks.Block
	for i := range 2 + r.IntN(6) {
		bs = append(bs, blocks.Block{Type: blocks.Paragraph, RichText: rt(fmt.Sprintf("page %d paragraph %d with a few words", n, i))})
	}
	if r.IntN(2) == 0 {
		bs = append(bs, nestedList(2+r.IntN(2), 2, blocks.BulletedListItem, fmt.Sprintf("item %d", n)))
	}
	if r.IntN(2) == 0 {
		bs = append(bs, image(n, res))
	}
	if r.IntN(3) == 0 {
		bs = append(bs, table(3, 2, fmt.Sprintf("t%d", n)))
	}
	if r.IntN(4) == 0 {
		for i := range 105 {
			bs = append(bs, blocks.Block{Type: blocks.Paragraph, RichText: rt(fmt.Sprintf("more %d", i))})
		}
	}
	bs = append(bs, blocks.Block{Type: blocks.Paragraph, RichText: rt(fmt.Sprintf("last words of page %d", n))})
	return bs
}

// writeVerified writes a page as the WritePage activity does: an error is
// retried (Temporal retries the activity), up to a few times.
func writeVerified(t *testing.T, c *notion.Client, db string, in notion.PageInput) notion.VerifiedResult {
	t.Helper()
	var err error
	for range 4 {
		var res notion.VerifiedResult
		if res, err = c.WriteVerifiedPage(context.Background(), db, in); err == nil {
			return res
		}
	}
	t.Fatalf("page %s: %v", in.OneNotePageID, err)
	return notion.VerifiedResult{}
}

// TestPartialWritesAreCaughtOrNamed is the property of read-back
// verification under the emulator's partial-write fault, over several
// seeds: no page whose content differs from what was meant is reported
// verified; a page the fault cut is either rewritten whole (verified) or
// named with a verification loss on its row.
func TestPartialWritesAreCaughtOrNamed(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	cut, verified, rewritten, named := 0, 0, 0, 0
	for seed := range seeds {
		for _, how := range []string{emu.CutChildren, emu.CutText, ""} {
			e := newEnv(t, emu.Config{Seed: uint64(seed + 1)})
			c := e.client(t, nil)
			db := e.section(t, c)
			e.srv.SetFaults(emu.Faults{PartialWrite: 0.25, PartialWriteCut: how})
			r := rand.New(rand.NewPCG(uint64(seed), 7))
			type page struct {
				id  string
				bs  []blocks.Block
				res resources
				out notion.VerifiedResult
			}
			var pages []page
			for n := range 8 {
				res := resources{}
				p := page{id: fmt.Sprintf("s%d-%s-p%d", seed, how, n), bs: verifyPage(r, n+1, res), res: res}
				p.out = writeVerified(t, c, db, pageInput(p.id, p.bs, res))
				pages = append(pages, p)
			}
			e.srv.SetFaults(emu.Faults{})
			ws := e.srv.Export()
			hit := map[string]bool{}
			for _, w := range e.srv.PartialWrites() {
				hit[strings.ReplaceAll(w.PageID, "-", "")] = true
			}
			cut += len(e.srv.PartialWrites())
			for _, p := range pages {
				rows := rowsOf(t, ws, db, p.id)
				if len(rows) != 1 {
					t.Fatalf("%s: %d rows", p.id, len(rows))
				}
				row := rows[0]
				intact := diffBlocks(exportedBlocks(t, ws, row), expectedBlocks(t, p.bs, p.res), "") == ""
				state := prop(row, notion.PropVerification)
				if state != string(p.out.Verdict.State) {
					t.Errorf("%s: row says %q, result %q", p.id, state, p.out.Verdict.State)
				}
				switch {
				case state == string(readback.Verified) && !intact:
					t.Errorf("%s: reported verified but its content differs from what was written", p.id)
				case state == string(readback.Verified):
					verified++
					if p.out.Rewritten {
						rewritten++
					}
				case state == string(readback.Differs):
					named++
					es, err := report.Decode(prop(row, notion.PropLossRecord))
					if err != nil || !hasVerificationLoss(es) {
						t.Errorf("%s: differs but its loss record names no verification loss: %v %v", p.id, es, err)
					}
				default:
					t.Errorf("%s: verdict %q", p.id, state)
				}
				if hit[strings.ReplaceAll(row.ID, "-", "")] && state == string(readback.Verified) && !p.out.Rewritten && !intact {
					t.Errorf("%s: cut, not rewritten, and verified", p.id)
				}
			}
		}
	}
	t.Logf("%d writes cut; %d pages verified (%d of them rewritten), %d named", cut, verified, rewritten, named)
	if cut == 0 || rewritten == 0 {
		t.Errorf("the fault never cut a page that was then rewritten (cut %d, rewritten %d): the property was not exercised", cut, rewritten)
	}
}

func hasVerificationLoss(es []report.Entry) bool {
	for _, e := range es {
		if e.Kind == notion.LossVerification && e.Severity == report.Lost && strings.HasSuffix(e.What, "after two writes") {
			return true
		}
	}
	return false
}

// TestEveryWriteCutIsNamed: with every write cut, no page can be
// written whole; each is written twice and named.
func TestEveryWriteCutIsNamed(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	e.srv.SetFaults(emu.Faults{PartialWrite: 1, PartialWriteCut: emu.CutText})
	bs := []blocks.Block{{Type: blocks.Paragraph, RichText: rt("Trip notes for May")}, {Type: blocks.Paragraph, RichText: rt("Bring a hat")}}
	res := writeVerified(t, c, db, pageInput("cut", bs, nil))
	if !res.Rewritten || res.Verdict.State != readback.Differs {
		t.Fatalf("result %+v, want rewritten and differs", res)
	}
	want := "verification: 2 words and 4 characters missing after two writes"
	var got []string
	for _, en := range res.Entries {
		got = append(got, en.Kind+": "+en.What)
	}
	if !strings.Contains(strings.Join(got, "|"), want) {
		t.Errorf("entries %q, want one %q", got, want)
	}
	if res.Reads < 2 {
		t.Errorf("%d reads for two read-backs", res.Reads)
	}
}

// TestCleanWriteIsVerifiedWithOneReadPerLevel: without faults a page is
// verified at once, for one read per block with children and one for
// the page.
func TestCleanWriteIsVerifiedWithOneReadPerLevel(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	res := resources{}
	bs := []blocks.Block{{Type: blocks.Paragraph, RichText: rt("one")}, nestedList(2, 2, blocks.BulletedListItem, "l"), image(1, res)}
	out := writeVerified(t, c, db, pageInput("clean", bs, res))
	if out.Verdict.State != readback.Verified || out.Rewritten {
		t.Fatalf("result %+v", out)
	}
	if out.Reads != 2 {
		t.Errorf("%d reads, want 2 (the page, the list item with children)", out.Reads)
	}
	again := writeVerified(t, c, db, pageInput("clean", bs, res))
	if !again.Unchanged || again.Reads != 0 {
		t.Errorf("unchanged page: %+v, want no read", again)
	}
}

// TestRecheckAfterAPersonEdits: a later check of a finished migration
// finds the section database under the notebook page, reports the page a
// person edited in Notion as edited (not as differing), a page that lost
// a block since as differing, and the others as verified.
func TestRecheckAfterAPersonEdits(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	l, err := c.EnsureLayout(context.Background(), e.srv.RootPageID(), notion.NotebookSpec{ID: "nb", Name: "Notebook",
		Sections:      []notion.SectionSpec{{ID: "s1", Name: "Section"}},
		SectionGroups: []notion.SectionGroupSpec{{ID: "g1", Name: "Group", Sections: []notion.SectionSpec{{ID: "s2", Name: "Inner"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	db := l.SectionDatabaseIDs["s1"]
	ids := map[string]string{}
	for _, id := range []string{"a", "b", "c", "d"} {
		bs := []blocks.Block{{Type: blocks.Paragraph, RichText: rt("Notes of page " + id)}, nestedList(2, 2, blocks.BulletedListItem, "todo "+id)}
		ids[id] = writeVerified(t, c, db, pageInput(id, bs, nil)).PageID
	}
	if _, err := c.EnsurePage(context.Background(), l.NotebookPageID, notion.ReportTitle); err != nil {
		t.Fatal(err)
	}
	secs, err := c.SectionDatabases(context.Background(), l.NotebookPageID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Section": db, "Group / Inner": l.SectionDatabaseIDs["s2"]}
	if len(secs) != len(want) {
		t.Fatalf("sections %+v, want %v", secs, want)
	}
	for _, s := range secs {
		if want[s.Name] != s.DatabaseID {
			t.Errorf("section %q = %s, want %s", s.Name, s.DatabaseID, want[s.Name])
		}
	}

	// A person edits page b; page c loses its list (by the integration,
	// as a bug would); page d is edited and then its row is updated by
	// the integration, which does not hide the person's edit.
	first := func(page string) string {
		ws := e.srv.Export()
		for _, row := range rowsOf(t, ws, db, page) {
			return row.Blocks[0].ID
		}
		t.Fatalf("no row %s", page)
		return ""
	}
	if err := e.srv.PersonEditText(first("b"), "Notes, rewritten by hand"); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.PersonEditText(first("d"), "Also edited"); err != nil {
		t.Fatal(err)
	}
	ws := e.srv.Export()
	list := rowsOf(t, ws, db, "c")[0].Blocks[1].ID
	del, _ := http.NewRequest(http.MethodDelete, e.baseURL()+"/v1/blocks/"+list, nil)
	del.Header.Set("Authorization", "Bearer "+e.token)
	del.Header.Set("Notion-Version", "2022-06-28")
	if resp, err := e.transport().RoundTrip(del); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("deleting a block: %v %v", resp, err)
	}
	if err := c.MarkLinksRewritten(context.Background(), notion.Row{PageID: ids["d"]}, nil); err != nil {
		t.Fatal(err)
	}

	got := map[string]readback.Verdict{}
	reads := 0
	err = c.Rows(context.Background(), db, notion.RowFilter{Done: true}, func(r notion.Row) error {
		chk, err := c.RecheckRow(context.Background(), r)
		got[r.OneNotePageID], reads = chk.Verdict, reads+chk.Reads
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, state := range map[string]readback.State{"a": readback.Verified, "b": readback.Edited, "c": readback.Differs, "d": readback.Edited} {
		if got[id].State != state {
			t.Errorf("page %s: %+v, want %s", id, got[id], state)
		}
	}
	if s := got["c"].Summary; s != "6 words, 19 characters and 3 bulleted list item blocks missing" {
		t.Errorf("page c: %q", s)
	}
	if reads == 0 {
		t.Error("the recheck counted no reads")
	}
	// A row with nothing recorded is not checked and costs nothing.
	chk, err := c.RecheckRow(context.Background(), notion.Row{PageID: ids["a"]})
	if err != nil || chk.Verdict.State != readback.Unverified || chk.Reads != 0 {
		t.Errorf("row without a record: %+v, %v", chk, err)
	}
}

// TestUnverifiedPageIsCheckedWhenFoundUnchanged: a page written without
// verification (or whose read-back failed after the write) records what
// was written; the next verified write of the unchanged page checks it
// against that record, once, without writing it again.
func TestUnverifiedPageIsCheckedWhenFoundUnchanged(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	bs := []blocks.Block{{Type: blocks.Paragraph, RichText: rt("Packing list")}, nestedList(2, 2, blocks.BulletedListItem, "hat")}
	for _, id := range []string{"quiet", "touched"} {
		if _, err := c.WritePage(context.Background(), db, pageInput(id, bs, nil)); err != nil {
			t.Fatal(err)
		}
	}
	ws := e.srv.Export()
	for _, id := range []string{"quiet", "touched"} {
		row := rowsOf(t, ws, db, id)[0]
		if prop(row, notion.PropVerification) != "" || prop(row, notion.PropWritten) == "" {
			t.Fatalf("%s written without verification: verdict %q, record %q", id, prop(row, notion.PropVerification), prop(row, notion.PropWritten))
		}
	}
	if err := e.srv.PersonEditText(rowsOf(t, ws, db, "touched")[0].Blocks[0].ID, "Packing list, by hand"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]readback.State{"quiet": readback.Verified, "touched": readback.Edited} {
		out := writeVerified(t, c, db, pageInput(id, bs, nil))
		if !out.Unchanged || out.Rewritten || out.Verdict.State != want || out.Reads == 0 || out.BlocksWritten != 0 {
			t.Errorf("%s: %+v, want unchanged, %s, some reads, nothing written", id, out, want)
		}
		if got := prop(rowsOf(t, e.srv.Export(), db, id)[0], notion.PropVerification); got != string(want) {
			t.Errorf("%s: row verdict %q, want %s", id, got, want)
		}
		again := writeVerified(t, c, db, pageInput(id, bs, nil))
		if !again.Unchanged || again.Reads != 0 {
			t.Errorf("%s checked twice: %+v", id, again)
		}
	}
}
