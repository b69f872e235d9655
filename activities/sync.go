package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/syncplan"
)

// The sync run's activities.
const (
	PlanSyncName         = "PlanSync"
	ContentHashName      = "ContentHash"
	ApplySyncName        = "ApplySync"
	AppendSyncReportName = "AppendSyncReport"
)

// SyncSection is one section of a sync run: its Notion database and its
// pages as listed now.
type SyncSection struct {
	ID         string     `json:"id"`
	Path       string     `json:"path"`
	DatabaseID string     `json:"databaseID"`
	Pages      []PageMeta `json:"pages"`
}

// PlanSyncInput asks what changed since the last run.
type PlanSyncInput struct {
	Sections []SyncSection `json:"sections"`
}

// PlanSyncResult is the plan without its unchanged pages (counted).
type PlanSyncResult struct {
	Plan      syncplan.Plan `json:"plan"`
	Unchanged int           `json:"unchanged"`
	// Recorded counts the live rows read (the record).
	Recorded int `json:"recorded"`
}

// PlanSync reads what the section databases hold (the record: every live
// row's OneNote page ID, link ID, title, timestamp, content hash and
// status) and classifies the listed pages against it (syncplan.Classify).
// It costs Notion queries, one per 100 rows, and no Graph request.
func (a *Activities) PlanSync(ctx context.Context, in PlanSyncInput) (PlanSyncResult, error) {
	if a.cfg.Notion == nil {
		return PlanSyncResult{}, errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	var record []syncplan.Recorded
	var listed []syncplan.Listed
	for _, s := range in.Sections {
		for _, p := range s.Pages {
			lm, _ := time.Parse(timeFormat, p.LastModified)
			listed = append(listed, syncplan.Listed{PageID: p.ID, LinkID: p.LinkID, Title: p.Title, LastModified: lm, SectionID: s.ID})
		}
		if s.DatabaseID == "" {
			continue
		}
		err := a.cfg.Notion.Rows(ctx, s.DatabaseID, notion.RowFilter{}, func(r notion.Row) error {
			if r.OneNotePageID == "" {
				// A row a person added in Notion: not ours to sync.
				return nil
			}
			lm, _ := time.Parse(time.RFC3339Nano, r.LastModified)
			record = append(record, syncplan.Recorded{PageID: r.OneNotePageID, LinkID: r.LinkID, Title: r.Title,
				LastModified: lm, ContentHash: r.ContentHash, SectionID: s.ID, Row: r.PageID, Done: r.Status == notion.StatusDone,
				Reported: r.Status == notion.StatusDeletedKept})
			return nil
		})
		if err != nil {
			return PlanSyncResult{}, notionError(err)
		}
	}
	plan := syncplan.Classify(record, listed)
	out := PlanSyncResult{Recorded: len(record)}
	for _, c := range plan.Changes {
		if c.Kind == syncplan.Unchanged {
			out.Unchanged++
			continue
		}
		out.Plan.Changes = append(out.Plan.Changes, c)
	}
	out.Plan.Checks, out.Plan.Undecided = plan.Checks, plan.Undecided
	return out, nil
}

// ContentHashInput asks for the hash of one page's content.
type ContentHashInput struct {
	User   string `json:"user"`
	PageID string `json:"pageID"`
	// Options are the migration's content options: the page is fetched
	// as FetchContent fetched it (without ink under SkipInk), so the hash
	// is comparable with the one WritePage stored.
	Options ContentOptions `json:"options,omitzero"`
}

// ContentHashResult is the hash of a page's content now (see
// contentHash), the same one WritePage stores on the row.
type ContentHashResult struct {
	SHA256  string          `json:"sha256"`
	Outcome limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed.
func (r ContentHashResult) LimiterOutcome() limiter.Outcome { return r.Outcome }

// ContentHash fetches a page's content (one Graph request, with its ink
// unless Options.SkipInk, as FetchContent) and returns only its hash.
func (a *Activities) ContentHash(ctx context.Context, in ContentHashInput) (ContentHashResult, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return ContentHashResult{}, err
	}
	pc, obs, err := c.GetPageContent(ctx, in.PageID, onenote.ContentOptions{IncludeInkML: !in.Options.SkipInk})
	if err != nil {
		return ContentHashResult{}, graphError(err, obs)
	}
	return ContentHashResult{SHA256: contentHash(pc), Outcome: outcome(obs)}, nil
}

// SyncAction is one change a sync run makes to a row without writing its
// content: a rename, a move, a recorded wobble or an archive.
type SyncAction struct {
	Kind syncplan.Kind `json:"kind"`
	Row  string        `json:"row"`
	// MoveTo is the database the row moves to ("" if it stays).
	MoveTo string `json:"moveTo,omitempty"`
	// Archive trashes the row (Kind deleted, deletes: archive);
	// MarkKept marks it reported (Kind deleted, deletes: keep).
	Archive  bool `json:"archive,omitempty"`
	MarkKept bool `json:"markKept,omitempty"`
	// OldTitle, with Title, is the title the row had: a body heading
	// that reads it is retitled too.
	OldTitle string `json:"oldTitle,omitempty"`
	// Set are the properties to set.
	Title         string `json:"title,omitempty"`
	OneNotePageID string `json:"oneNotePageID,omitempty"`
	SectionPath   string `json:"sectionPath,omitempty"`
	LinkID        string `json:"linkID,omitempty"`
	Link          string `json:"link,omitempty"`
	LastModified  string `json:"lastModified,omitempty"`
	Order         int    `json:"order,omitempty"`
}

// ApplySyncInput lists the row changes of a sync run.
type ApplySyncInput struct {
	Actions []SyncAction `json:"actions"`
}

// ApplySyncResult counts what was done.
type ApplySyncResult struct {
	Applied int `json:"applied"`
	// Failed names the rows Notion refused to change, with why.
	Failed []string `json:"failed,omitempty"`
}

// ApplySync makes the row changes: each is safe to repeat (a moved row is
// looked up before it moves, properties are set to values, an archive of
// an archived row changes nothing), so a retried activity ends the same.
// A change Notion refuses for good is reported and the others go on.
func (a *Activities) ApplySync(ctx context.Context, in ApplySyncInput) (ApplySyncResult, error) {
	if a.cfg.Notion == nil {
		return ApplySyncResult{}, errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	var out ApplySyncResult
	for _, act := range in.Actions {
		err := a.apply(ctx, act)
		switch {
		case err == nil:
			out.Applied++
		case errors.Is(err, notion.ErrValidation) || errors.Is(err, notion.ErrNotFound):
			out.Failed = append(out.Failed, fmt.Sprintf("%s row %s: %v", act.Kind, act.Row, err))
		default:
			return out, notionError(err)
		}
	}
	return out, nil
}

func (a *Activities) apply(ctx context.Context, act SyncAction) error {
	if act.Archive {
		return a.cfg.Notion.ArchiveRow(ctx, act.Row)
	}
	if act.MoveTo != "" {
		if err := a.cfg.Notion.MoveRow(ctx, act.Row, act.MoveTo); err != nil {
			return err
		}
	}
	if act.MarkKept {
		return a.cfg.Notion.UpdateRow(ctx, act.Row, notion.RowUpdate{Status: notion.StatusDeletedKept})
	}
	u := notion.RowUpdate{Title: act.Title, OneNotePageID: act.OneNotePageID, SectionPath: act.SectionPath,
		LinkID: act.LinkID, Link: act.Link, Order: act.Order, ClearParent: act.MoveTo != ""}
	u.LastModified, _ = time.Parse(timeFormat, act.LastModified)
	if err := a.cfg.Notion.UpdateRow(ctx, act.Row, u); err != nil {
		return err
	}
	if act.Title != "" && act.OldTitle != "" && act.Title != act.OldTitle {
		_, err := a.cfg.Notion.RetitleBody(ctx, act.Row, act.OldTitle, act.Title)
		return err
	}
	return nil
}

// AppendSyncReportInput is a sync run's entry for the report page.
type AppendSyncReportInput struct {
	NotebookPageID string   `json:"notebookPageID"`
	Headline       string   `json:"headline"`
	Lines          []string `json:"lines,omitempty"`
	// Counts are added to the page's totals; Key names the run.
	Counts notion.SyncCounts `json:"counts,omitzero"`
	Key    string            `json:"key,omitempty"`
}

// AppendSyncReport appends a sync run's entry to the notebook's
// "Migration report" page and returns the page's ID.
func (a *Activities) AppendSyncReport(ctx context.Context, in AppendSyncReportInput) (string, error) {
	if a.cfg.Notion == nil {
		return "", errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	id, err := a.cfg.Notion.AppendSyncReport(ctx, in.NotebookPageID, notion.SyncEntry{Key: in.Key, Headline: in.Headline, Lines: in.Lines, Counts: in.Counts})
	if err != nil {
		return "", notionError(err)
	}
	return id, nil
}
