package activities

import (
	"context"
	"errors"
	"fmt"

	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/syncplan"
)

// ReconcileStructureName is the sync run's last row pass.
const ReconcileStructureName = "ReconcileStructure"

// ReconcileStructureInput is every section's listing (in OneNote's order)
// with its database, and the databases of former sections.
type ReconcileStructureInput struct {
	Sections []SyncSection `json:"sections"`
	// MovesOnly places only the rows found in another database than
	// their page's section's (a migration re-run, before its sections
	// write): they are moved there, so WritePage, which looks only in
	// its section's database, finds them instead of making a second
	// row. A row already in its section's database is left to WritePage,
	// and a file import's row (keyed by the page's link GUID) keeps its
	// key, so WritePage takes it over as it does in place (replaced or
	// rekeyed, never resumed).
	MovesOnly bool `json:"movesOnly,omitempty"`
}

// ReconcileStructureResult counts what the pass found and set.
type ReconcileStructureResult struct {
	// Checked counts the listed pages whose row was found.
	Checked int `json:"checked"`
	// Parents, Orders and Titles count the rows whose Parent item, Order
	// or Name were set to OneNote's; Moved those moved to their section's
	// database.
	Parents int `json:"parents,omitempty"`
	Orders  int `json:"orders,omitempty"`
	Titles  int `json:"titles,omitempty"`
	Moved   int `json:"moved,omitempty"`
	// Duplicates names the pages held by more than one live row (there
	// should be none; nothing is deleted, a person decides).
	Duplicates []string `json:"duplicates,omitempty"`
	// Failed names the rows Notion refused to change, with why.
	Failed []string `json:"failed,omitempty"`
}

// Add counts a later pass o into r: its counts are added, its failures
// appended, and its duplicates replace r's (it saw the rows later).
func (r *ReconcileStructureResult) Add(o ReconcileStructureResult) {
	r.Checked = max(r.Checked, o.Checked)
	r.Parents += o.Parents
	r.Orders += o.Orders
	r.Titles += o.Titles
	r.Moved += o.Moved
	r.Duplicates = o.Duplicates
	r.Failed = append(r.Failed, o.Failed...)
}

// placedRow is a row and the database it is in.
type placedRow struct {
	notion.Row
	db string
}

// ReconcileStructure brings every row's place in step with OneNote: its
// database, Parent item (the nearest earlier page of a lower level in the
// section), Order and Name, for every listed page, not only the ones a
// run wrote. So a subpage whose parent moved away, was deleted or came
// back follows what OneNote shows now. Rows are found by OneNote page ID,
// then by page GUID, then by link GUID (in any case: OneNote writes it in
// upper case, a file import keys rows by it in lower case), across every
// database given: the one lookup of a page's row across a notebook, for
// a sync's last pass and a migration re-run's first (MovesOnly). Each
// change is safe to repeat.
func (a *Activities) ReconcileStructure(ctx context.Context, in ReconcileStructureInput) (ReconcileStructureResult, error) {
	if a.cfg.Notion == nil {
		return ReconcileStructureResult{}, errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	var out ReconcileStructureResult
	byID, byGUID, byLink := map[string][]*placedRow{}, map[string][]*placedRow{}, map[string][]*placedRow{}
	for _, s := range in.Sections {
		if s.DatabaseID == "" {
			continue
		}
		err := a.cfg.Notion.Rows(ctx, s.DatabaseID, notion.RowFilter{}, func(r notion.Row) error {
			if r.OneNotePageID == "" {
				return nil // a row a person added
			}
			pr := &placedRow{Row: r, db: s.DatabaseID}
			byID[r.OneNotePageID] = append(byID[r.OneNotePageID], pr)
			byGUID[syncplan.PageGUID(r.OneNotePageID)] = append(byGUID[syncplan.PageGUID(r.OneNotePageID)], pr)
			if k := syncplan.LinkKey(r.LinkID); k != "" {
				byLink[k] = append(byLink[k], pr)
			}
			return nil
		})
		if err != nil {
			return out, notionError(err)
		}
	}
	for guid, rs := range byGUID {
		if len(rs) > 1 {
			out.Duplicates = append(out.Duplicates, fmt.Sprintf("%q is held by %d live rows (page %s)", rs[0].Title, len(rs), guid))
		}
	}
	find := func(p PageMeta) *placedRow {
		if rs := byID[p.ID]; len(rs) > 0 {
			return rs[0]
		}
		if rs := byGUID[syncplan.PageGUID(p.ID)]; len(rs) > 0 {
			return rs[0]
		}
		if rs := byLink[syncplan.LinkKey(p.LinkID)]; p.LinkID != "" && len(rs) > 0 {
			return rs[0]
		}
		return nil
	}
	for _, s := range in.Sections {
		type open struct {
			level int
			row   string
		}
		var stack []open
		for i, p := range s.Pages {
			r := find(p)
			for len(stack) > 0 && stack[len(stack)-1].level >= p.Level {
				stack = stack[:len(stack)-1]
			}
			if r == nil {
				// Not written (it failed, or is new and its section
				// failed): its subpages wait under no row of it.
				stack = append(stack, open{level: p.Level})
				continue
			}
			out.Checked++
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1].row
			}
			stack = append(stack, open{level: p.Level, row: r.PageID})
			if in.MovesOnly && r.db == s.DatabaseID {
				continue // WritePage finds it where it is
			}
			if err := a.place(ctx, r, s, p, i+1, parent, in.MovesOnly, &out); err != nil {
				if errors.Is(err, notion.ErrValidation) || errors.Is(err, notion.ErrNotFound) {
					out.Failed = append(out.Failed, fmt.Sprintf("row %s (%q): %v", r.PageID, p.Title, err))
					continue
				}
				return out, notionError(err)
			}
		}
	}
	return out, nil
}

// place sets what differs of row r's place: its database, Parent item,
// Order and Name. A moved row takes the page's ID, section path and links;
// under keepImported, a file import's row keeps its key (see
// ReconcileStructureInput.MovesOnly).
func (a *Activities) place(ctx context.Context, r *placedRow, s SyncSection, p PageMeta, order int, parent string, keepImported bool, out *ReconcileStructureResult) error {
	c := a.cfg.Notion
	var u notion.RowUpdate
	imported := p.LinkID != "" && r.OneNotePageID != p.ID && syncplan.LinkKey(r.OneNotePageID) == syncplan.LinkKey(p.LinkID)
	if r.db != s.DatabaseID {
		if err := c.MoveRow(ctx, r.PageID, s.DatabaseID); err != nil {
			return err
		}
		out.Moved++
		r.db, r.ParentRow = s.DatabaseID, ""
		u.SectionPath, u.LinkID, u.Link = s.Path, p.LinkID, p.WebURL
	}
	if r.OneNotePageID != p.ID && !(keepImported && imported) {
		u.OneNotePageID = p.ID
	}
	if !notion.SameID(r.ParentRow, parent) {
		u.SetParent, u.Parent = true, parent
		out.Parents++
	}
	if r.Order != order {
		u.Order = order
		out.Orders++
	}
	if p.Title != "" && r.Title != p.Title {
		u.Title = p.Title
		out.Titles++
	}
	if u == (notion.RowUpdate{}) {
		return nil
	}
	return c.UpdateRow(ctx, r.PageID, u)
}
