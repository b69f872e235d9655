package activities

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/notebridge/notebridge/notion"
)

// ExistingRowsInput asks which listed pages are already migrated.
type ExistingRowsInput struct {
	DatabaseID string `json:"databaseID"`
	// Pages maps OneNote page IDs to their lastModified (timeFormat):
	// one listing batch, so the input stays small whatever the section's
	// size.
	Pages map[string]string `json:"pages"`
}

// ExistingRowsResult maps the pages whose row is done and unchanged since
// (same lastModified, to the second) to their Notion page IDs.
type ExistingRowsResult struct {
	Done map[string]string `json:"done"`
	// LinksPending counts the done rows whose internal links are still
	// to be rewritten (an earlier link pass did not finish).
	LinksPending int `json:"linksPending,omitempty"`
}

// ExistingRows reads the finished rows of the given pages from a section
// database (one query per notion.MaxRowIDs pages), so a re-run skips
// unchanged pages before spending any Graph request on them. The queries
// go through the Notion client, so they share the token's pacing with
// every write and honour Retry-After.
func (a *Activities) ExistingRows(ctx context.Context, in ExistingRowsInput) (ExistingRowsResult, error) {
	out := ExistingRowsResult{Done: map[string]string{}}
	if len(in.Pages) == 0 {
		return out, nil
	}
	if a.cfg.Notion == nil {
		return out, errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	ids := slices.Sorted(maps.Keys(in.Pages))
	for chunk := range slices.Chunk(ids, notion.MaxRowIDs) {
		err := a.cfg.Notion.Rows(ctx, in.DatabaseID, notion.RowFilter{Done: true, OneNoteIDs: chunk}, func(r notion.Row) error {
			if want, ok := in.Pages[r.OneNotePageID]; ok && sameSecond(r.LastModified, want) {
				if _, seen := out.Done[r.OneNotePageID]; !seen && r.LinksPending {
					out.LinksPending++
				}
				out.Done[r.OneNotePageID] = r.PageID
			}
			return nil
		})
		if err != nil {
			return ExistingRowsResult{}, notionError(err)
		}
	}
	return out, nil
}

func sameSecond(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && ta.Truncate(time.Second).Equal(tb.Truncate(time.Second))
}
