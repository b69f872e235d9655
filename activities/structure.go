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
// then by page GUID, then by link GUID, across every database given. Each
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
			if r.LinkID != "" {
				byLink[r.LinkID] = append(byLink[r.LinkID], pr)
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
		if rs := byLink[p.LinkID]; p.LinkID != "" && len(rs) > 0 {
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
			if err := a.place(ctx, r, s, p, i+1, parent, &out); err != nil {
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
// Order and Name.
func (a *Activities) place(ctx context.Context, r *placedRow, s SyncSection, p PageMeta, order int, parent string, out *ReconcileStructureResult) error {
	c := a.cfg.Notion
	var u notion.RowUpdate
	if r.db != s.DatabaseID {
		if err := c.MoveRow(ctx, r.PageID, s.DatabaseID); err != nil {
			return err
		}
		out.Moved++
		r.db, r.ParentRow = s.DatabaseID, ""
		u.OneNotePageID, u.SectionPath, u.LinkID = p.ID, s.Path, p.LinkID
	}
	if r.OneNotePageID != p.ID {
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
