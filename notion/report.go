package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/report"
)

// ReportTitle is the title of a notebook's migration report page, a child
// of the notebook page.
const ReportTitle = "Migration report"

// summaryIcon marks the callout on the notebook page that says what the
// page holds: a later run finds it by its icon and updates it.
const summaryIcon = "📒"

// ReportSection is a section database a report is read from.
type ReportSection struct {
	// Name is shown beside each page ("Notebook / Group / Section").
	Name       string
	DatabaseID string
}

// CollectReport reads the loss records of the done rows of the sections'
// databases (PropLossRecord, written with each page) into the notebook's
// report: every page, every entry.
func (c *Client) CollectReport(ctx context.Context, notebook, notebookPageID string, sections []ReportSection) (report.Report, error) {
	rep := report.Report{Notebook: notebook, NotebookPageID: notebookPageID}
	for _, s := range sections {
		var pages []report.Page
		err := c.Rows(ctx, s.DatabaseID, RowFilter{Done: true}, func(r Row) error {
			es, err := report.Decode(r.LossRecord)
			if err != nil {
				// A person edited the record: say so rather than stop.
				es = []report.Entry{{Kind: "loss-record", Severity: report.Approximated, Count: 1,
					What: "the row's " + quoteName(PropLossRecord) + " could not be read; its losses are not listed"}}
			}
			pages = append(pages, report.Page{Title: r.Title, Section: s.Name, Order: r.Order,
				OneNotePageID: r.OneNotePageID, NotionPageID: r.PageID, Entries: es, Verification: r.Verification})
			return nil
		})
		if err != nil {
			return report.Report{}, fmt.Errorf("notion: reading the losses of section %q: %w", s.Name, err)
		}
		rep.Add(report.Section{Name: s.Name, DatabaseID: s.DatabaseID}, pages)
	}
	return rep, nil
}

// WriteReport writes rep as the ReportTitle page under the notebook page
// (found by title, its content replaced: running it again updates the
// page) and the callout on the notebook page that says what it holds. It
// sets rep.ReportPageID.
func (c *Client) WriteReport(ctx context.Context, rep *report.Report) error {
	id, err := c.EnsurePage(ctx, rep.NotebookPageID, ReportTitle)
	if err != nil {
		return err
	}
	rep.ReportPageID = id
	bs, _ := fitText(reportBlocks(*rep))
	now, err := c.readTree(ctx, id)
	if err != nil {
		return err
	}
	// The sync runs' entries (AppendSyncReport) stay, after the report.
	bs = append(bs, syncEntries(now)...)
	if sameContent(now, bs) {
		// Nothing changed since the last run: write nothing.
		return c.writeNotebookSummary(ctx, *rep)
	}
	if err := c.clearChildren(ctx, id); err != nil {
		return err
	}
	batches, err := splitBatches(bs, c.limits)
	if err != nil {
		return err
	}
	w := &pageWriter{c: c, media: newMedia(c, nil), counts: map[string]int{}}
	if err := w.appendBatches(ctx, id, batches); err != nil {
		return fmt.Errorf("notion: writing the migration report: %w", err)
	}
	return c.writeNotebookSummary(ctx, *rep)
}

// reportIntro is the report page's first sentence: the pages, what was
// lost and on how many pages, and what was kept in another form on how
// many pages. A page with both counts among the pages with losses, so the
// approximated pages are "other" pages only when some page lost something.
func reportIntro(rep report.Report) string {
	pagesLost, pagesApprox := 0, 0
	for _, s := range rep.Sections {
		pagesLost += s.PagesWithLosses
		pagesApprox += s.PagesApproximated
	}
	intro := fmt.Sprintf("%d %s migrated from OneNote.", rep.Pages, report.Plural(rep.Pages, "page", "pages"))
	if rep.Lost == 0 {
		intro += " Nothing was lost."
	} else {
		intro += fmt.Sprintf(" %d %s lost, on %d %s (each has a callout at its top).",
			rep.Lost, report.Plural(rep.Lost, "item", "items"), pagesLost, report.Plural(pagesLost, "page", "pages"))
	}
	if rep.Approximated > 0 {
		other := ""
		if pagesLost > 0 {
			other = "other "
		}
		intro += fmt.Sprintf(" %d %s kept in another form, on %d %s%s.",
			rep.Approximated, report.Plural(rep.Approximated, "item", "items"), pagesApprox, other, report.Plural(pagesApprox, "page", "pages"))
	}
	if rep.Skipped > 0 {
		intro += fmt.Sprintf(" %d %s left out by the migration's options (skipImages, skipAttachments, skipInk).",
			rep.Skipped, report.Plural(rep.Skipped, "item was", "items were"))
	}
	return intro
}

// reportBlocks is the report page's content: the totals, then every lost
// entry by kind, each linked to its page, then the approximations by
// kind, each kind in a toggle.
func reportBlocks(rep report.Report) []blocks.Block {
	out := []blocks.Block{paragraph(text(reportIntro(rep))), paragraph(text(verificationLine(rep.Verification)))}
	out = append(out, heading(blocks.Heading2, "Lost"))
	if rep.Lost == 0 {
		out = append(out, paragraph(text("Nothing was lost.")))
	}
	for _, k := range rep.Kinds {
		items := entryItems(rep, k)
		if k.Severity == report.Lost {
			out = append(out, heading(blocks.Heading3, k.String()))
			out = append(out, items...)
		}
	}
	out = append(out, heading(blocks.Heading2, "Approximated"))
	if rep.Approximated == 0 {
		out = append(out, paragraph(text("Nothing was approximated.")))
	}
	for _, k := range rep.Kinds {
		if k.Severity == report.Approximated {
			out = append(out, blocks.Block{Type: blocks.Toggle, RichText: text(k.String()), Children: entryItems(rep, k)})
		}
	}
	if rep.Skipped > 0 {
		out = append(out, heading(blocks.Heading2, "Skipped by option"))
		for _, k := range rep.Kinds {
			if k.Severity == report.Skipped {
				out = append(out, blocks.Block{Type: blocks.Toggle, RichText: text(k.String()), Children: entryItems(rep, k)})
			}
		}
	}
	return out
}

// entryItems lists the entries of kind k, a bullet each, with a mention
// of its page.
func entryItems(rep report.Report, k report.KindCount) []blocks.Block {
	var out []blocks.Block
	for _, p := range rep.LossPages {
		for _, e := range p.Entries {
			if e.Kind != k.Kind || e.Severity != k.Severity {
				continue
			}
			line := " (" + p.Section + "): " + e.What
			if e.Where != "" {
				line += ", " + e.Where
			}
			if e.Count > 1 {
				line += fmt.Sprintf(" (×%d)", e.Count)
			}
			rt := append([]blocks.RichText{{Text: p.Title, Mention: p.NotionPageID}}, text(line)...)
			out = append(out, blocks.Block{Type: blocks.BulletedListItem, RichText: rt})
		}
	}
	return out
}

func paragraph(rt []blocks.RichText) blocks.Block {
	return blocks.Block{Type: blocks.Paragraph, RichText: rt}
}

func heading(t blocks.Type, s string) blocks.Block { return blocks.Block{Type: t, RichText: text(s)} }

// notebookSummary is the text of the notebook page's callout: its
// sections with their page counts, and a mention of the report.
func notebookSummary(rep report.Report) []blocks.RichText {
	var secs []string
	for _, s := range rep.Sections {
		secs = append(secs, fmt.Sprintf("%s (%d %s)", s.Name, s.Pages, report.Plural(s.Pages, "page", "pages")))
	}
	lead := fmt.Sprintf("Migrated from OneNote: %d %s, %d %s: %s. Each section is a database; sort it by %s to read its pages in OneNote's order. What could not be carried over (%d lost, %d approximated) is in ",
		len(rep.Sections), report.Plural(len(rep.Sections), "section", "sections"), rep.Pages, report.Plural(rep.Pages, "page", "pages"),
		strings.Join(secs, ", "), quoteName(PropOrder), rep.Lost, rep.Approximated)
	rt := text(lead)
	rt = append(rt, blocks.RichText{Text: ReportTitle, Mention: rep.ReportPageID}, blocks.RichText{Text: "."})
	return rt
}

// writeNotebookSummary updates the notebook page's summary callout, or
// appends one.
func (c *Client) writeNotebookSummary(ctx context.Context, rep report.Report) error {
	raws, err := c.listChildrenRaw(ctx, rep.NotebookPageID)
	if err != nil {
		return err
	}
	want := blocks.Block{Type: blocks.Callout, Icon: summaryIcon, RichText: notebookSummary(rep)}
	fitted, _ := fitText([]blocks.Block{want})
	want = fitted[0]
	live := 0
	for _, raw := range raws {
		var b blocks.Block
		var state childBlock
		if json.Unmarshal(raw, &b) != nil || json.Unmarshal(raw, &state) != nil || state.Archived || state.InTrash {
			continue
		}
		live++
		if b.Type == blocks.Callout && b.Icon == summaryIcon {
			if sameContent([]blocks.Block{b}, []blocks.Block{want}) {
				return nil
			}
			want.ID = b.ID
			return c.updateBlockText(ctx, want, func(now blocks.Block) bool { return sameText(now, want) })
		}
	}
	w := &pageWriter{c: c, media: newMedia(c, nil), counts: map[string]int{rep.NotebookPageID: live}}
	batches, err := splitBatches([]blocks.Block{want}, c.limits)
	if err != nil {
		return err
	}
	return w.appendBatches(ctx, rep.NotebookPageID, batches)
}

// readTree reads the live blocks under id, children included.
func (c *Client) readTree(ctx context.Context, id string) ([]blocks.Block, error) {
	raws, err := c.listChildrenRaw(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []blocks.Block
	for _, raw := range raws {
		var b blocks.Block
		var state childBlock
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("notion: decoding children of %s: %w", id, err)
		}
		if json.Unmarshal(raw, &state) != nil || state.Archived || state.InTrash {
			continue
		}
		if state.HasChildren {
			if b.Children, err = c.readTree(ctx, state.ID); err != nil {
				return nil, err
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// sameContent reports whether two block trees read the same: types,
// text and the pages mentioned (a mention's text is the page's title,
// which Notion fills in).
func sameContent(a, b []blocks.Block) bool {
	return slices.EqualFunc(a, b, func(x, y blocks.Block) bool {
		return x.Type == y.Type && sameRuns(x.RichText, y.RichText) && sameContent(x.Children, y.Children)
	})
}

func sameRuns(a, b []blocks.RichText) bool {
	key := func(rt []blocks.RichText) string {
		var s strings.Builder
		for _, r := range rt {
			if r.Mention != "" {
				s.WriteString("\x00@" + strings.ReplaceAll(r.Mention, "-", "") + "\x00")
				continue
			}
			s.WriteString(r.Text)
		}
		return s.String()
	}
	return key(a) == key(b)
}
