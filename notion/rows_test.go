package notion_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
)

// TestRowsFiltersAndLinkPassMarks writes pages with and without internal
// links and reads them back through Rows: link IDs are stored, the link
// pass finds the pending ones, and MarkLinksRewritten clears them.
func TestRowsFiltersAndLinkPassMarks(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	ctx := context.Background()
	for i, links := range []bool{true, false, true} {
		para := blocks.Block{Type: blocks.Paragraph, RichText: rt("x")}
		if links {
			para.RichText = append(para.RichText, blocks.RichText{Text: "other page", PageRef: fmt.Sprintf("guid-%d", i+1)})
		}
		in := pageInput(fmt.Sprint("p", i), []blocks.Block{para}, nil)
		in.LinkID = fmt.Sprintf("guid-%d", i)
		if _, err := c.WritePage(ctx, db, in); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(f notion.RowFilter) map[string]notion.Row {
		out := map[string]notion.Row{}
		if err := c.Rows(ctx, db, f, func(r notion.Row) error { out[r.OneNotePageID] = r; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := rows(notion.RowFilter{Done: true})
	if len(all) != 3 || all["p1"].LinkID != "guid-1" || all["p0"].Status != notion.StatusDone || all["p0"].LastModified == "" {
		t.Fatalf("done rows: %+v", all)
	}
	pending := rows(notion.RowFilter{Done: true, LinksPending: true})
	if len(pending) != 2 || !pending["p0"].LinksPending || !pending["p2"].LinksPending {
		t.Fatalf("rows with links pending: %+v", pending)
	}
	if err := c.MarkLinksRewritten(ctx, pending["p0"], nil); err != nil {
		t.Fatal(err)
	}
	if err := c.MarkLinksRewritten(ctx, pending["p0"], nil); err != nil {
		t.Fatalf("marking twice: %v", err)
	}
	if left := rows(notion.RowFilter{LinksPending: true}); len(left) != 1 || left["p2"].PageID == "" {
		t.Errorf("after marking p0: %+v", left)
	}
	stop := errors.New("stop")
	if err := c.Rows(ctx, db, notion.RowFilter{}, func(notion.Row) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Rows does not return fn's error: %v", err)
	}
}

// TestUnchangedRowGetsItsLinkID backfills the link ID of a row written
// before rows held one, without rewriting the page.
func TestUnchangedRowGetsItsLinkID(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	ctx := context.Background()
	in := pageInput("old", []blocks.Block{{Type: blocks.Paragraph, RichText: rt("x")}}, nil)
	if _, err := c.WritePage(ctx, db, in); err != nil {
		t.Fatal(err)
	}
	in.LinkID = "guid-old"
	r, err := c.WritePage(ctx, db, in)
	if err != nil || !r.Unchanged {
		t.Fatalf("second write: %+v %v", r, err)
	}
	var got notion.Row
	if err := c.Rows(ctx, db, notion.RowFilter{}, func(r notion.Row) error { got = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if got.LinkID != "guid-old" {
		t.Errorf("link ID %q after the unchanged write, want guid-old", got.LinkID)
	}
}

// TestUnavailableResourceIsALoss writes a page whose image cannot be had
// (the opener says ErrResourceUnavailable): the page is written with a
// paragraph in its place and the loss names it.
func TestUnavailableResourceIsALoss(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	res := resources{}
	bs := []blocks.Block{image(1, res), image(2, res), {Type: blocks.Paragraph, RichText: rt("after")}}
	in := pageInput("gone", bs, res)
	in.Resources = func(ctx context.Context, r blocks.Resource) (io.ReadCloser, int64, string, error) {
		if r.ID == "res-01" {
			return nil, 0, "", fmt.Errorf("resource %s: deleted in OneNote (404): %w", r.ID, notion.ErrResourceUnavailable)
		}
		return res.open(ctx, r)
	}
	w, err := c.WritePage(context.Background(), db, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Losses) != 1 || w.Losses[0].Kind != notion.LossAttachment || !strings.Contains(w.Losses[0].Detail, "404") ||
		w.Losses[0].Location != "block 1 (image)" {
		t.Fatalf("losses %+v", w.Losses)
	}
	ws := e.srv.Export()
	got := exportedBlocks(t, ws, rowsOf(t, ws, db, "gone")[0])
	types := []blocks.Type{}
	for _, b := range got {
		types = append(types, b.Type)
	}
	if !slices.Equal(types, []blocks.Type{blocks.Callout, blocks.Paragraph, blocks.Image, blocks.Paragraph}) ||
		!strings.Contains(blocks.PlainText(got[0].RichText), "image-01.png") ||
		!strings.Contains(blocks.PlainText(got[1].RichText), `Image "image-01.png" could not be carried over`) {
		t.Errorf("blocks %v: %q", types, blocks.PlainText(got[1].RichText))
	}
}

// TestUploadsThatExpireAgainAreRenewedAgain: every upload of a page
// expires before it is attached, twice in a row; the page is still
// written whole.
func TestUploadsThatExpireAgainAreRenewedAgain(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	res := resources{}
	bs := []blocks.Block{image(1, res), {Type: blocks.Paragraph, RichText: rt("between")}, image(2, res)}
	e.srv.InjectUploadExpiry(4)
	if _, err := c.WritePage(context.Background(), db, pageInput("twice", bs, res)); err != nil {
		t.Fatal(err)
	}
	checkOnePage(t, e, db, "twice", bs, res)
}
