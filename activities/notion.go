package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/report"
)

// Registered names of the Notion activities.
const (
	EnsureLayoutName = "EnsureLayout"
	WritePageName    = "WritePage"
	RewriteLinksName = "RewriteLinks"
	ExistingRowsName = "ExistingRows"
	// StageLinkTargetsName stages a notebook's link targets on a worker.
	StageLinkTargetsName = "StageLinkTargets"
)

// EnsureLayoutInput asks for a notebook's Notion containers.
type EnsureLayoutInput struct {
	ParentPageID string       `json:"parentPageID"`
	Notebook     NotebookTree `json:"notebook"`
	// AdoptNotebookPage, when set, is the notebook page of a file import
	// of this notebook, to be taken over (notion.NotebookSpec.AdoptPage).
	AdoptNotebookPage string `json:"adoptNotebookPage,omitempty"`
}

// EnsureLayout finds or creates the notebook's page, its section groups'
// pages and its sections' databases under the parent page.
func (a *Activities) EnsureLayout(ctx context.Context, in EnsureLayoutInput) (notion.Layout, error) {
	if a.cfg.Notion == nil {
		return notion.Layout{}, errors.New("activities: no Notion client configured")
	}
	spec := notion.NotebookSpec{ID: in.Notebook.ID, Name: in.Notebook.Name, AdoptPage: in.AdoptNotebookPage,
		Sections: sectionSpecs(in.Notebook.Sections), SectionGroups: groupSpecs(in.Notebook.SectionGroups)}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	l, err := a.cfg.Notion.EnsureLayout(ctx, in.ParentPageID, spec)
	if err != nil {
		return notion.Layout{}, notionError(err)
	}
	return l, nil
}

func sectionSpecs(ns []TreeNode) []notion.SectionSpec {
	out := make([]notion.SectionSpec, 0, len(ns))
	for _, n := range ns {
		out = append(out, notion.SectionSpec{ID: n.ID, Name: n.Name, GUID: n.GUID})
	}
	return out
}

func groupSpecs(gs []GroupNode) []notion.SectionGroupSpec {
	out := make([]notion.SectionGroupSpec, 0, len(gs))
	for _, g := range gs {
		out = append(out, notion.SectionGroupSpec{ID: g.ID, Name: g.Name,
			Sections: sectionSpecs(g.Sections), SectionGroups: groupSpecs(g.SectionGroups)})
	}
	return out
}

// WritePageInput asks to convert a staged page and write it to Notion.
type WritePageInput struct {
	Key        StageKey `json:"key"`
	DatabaseID string   `json:"databaseID"`
	Page       PageMeta `json:"page"`
	// SectionPath is shown on the row ("Notebook / Group / Section").
	SectionPath string `json:"sectionPath"`
	// ParentNotionID is the Notion page of the page's parent page, for a
	// subpage.
	ParentNotionID string `json:"parentNotionID,omitempty"`
	// Lost are the page's resources that cannot be migrated (see
	// FetchResourcesResult.Lost): the page is written without them, each
	// replaced by a note, and the losses reported.
	Lost []LostResource `json:"lost,omitempty"`
	// Options are the migration's content options, the same the content
	// was fetched with.
	Options ContentOptions `json:"options,omitzero"`
}

// WritePageResult is what the write did.
type WritePageResult struct {
	NotionPageID  string `json:"notionPageID"`
	Unchanged     bool   `json:"unchanged,omitempty"`
	BlocksWritten int    `json:"blocksWritten"`
	Requests      int    `json:"requests"`
	// Links counts the page's internal links, written as text and
	// recorded on its row for the link pass.
	Links int `json:"links,omitempty"`
	// Losses counts what the page lost (content missing from Notion),
	// Approximations what it holds in another form; LossSamples names a
	// few entries, lost first (up to maxLossSamples). Every entry is on
	// the page's row (notion.PropLossRecord).
	Losses         int      `json:"losses,omitempty"`
	Approximations int      `json:"approximations,omitempty"`
	LossSamples    []string `json:"lossSamples,omitempty"`
	// Verification is the page's read-back verdict (readback.State: ""
	// when unchanged or not verified) and VerifyNote what differs;
	// VerifyReads counts the Notion reads it cost (included in
	// Requests), and Rewritten says the page was written a second time
	// because the first read back differently.
	Verification string `json:"verification,omitempty"`
	VerifyNote   string `json:"verifyNote,omitempty"`
	VerifyReads  int    `json:"verifyReads,omitempty"`
	Rewritten    bool   `json:"rewritten,omitempty"`
}

// maxLossSamples is how many losses a page's result names.
const maxLossSamples = 5

// WritePage converts the staged page HTML and writes the page, exactly
// once, into its section's database (see notion.Client.WritePage).
func (a *Activities) WritePage(ctx context.Context, in WritePageInput) (WritePageResult, error) {
	if a.cfg.Notion == nil {
		return WritePageResult{}, errors.New("activities: no Notion client configured")
	}
	html, inkML, err := a.stagedContent(in.Key)
	if err != nil {
		return WritePageResult{}, stagingMissing("page content", err)
	}
	conv, err := convert.Page(html, in.Options.Convert(inkML))
	if err != nil {
		// Conversion is a pure function: trying again cannot help.
		return WritePageResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("convert page %s: %v", in.Page.ID, err), failure.Convert, err)
	}
	// A file source stages what its reader could not decode (none for a
	// Graph page): the same report, one set of kinds.
	sourceLosses, err := a.stagedSourceLosses(in.Key)
	if err != nil {
		return WritePageResult{}, stagingMissing("page losses", err)
	}
	// The HTML's title, else the listing's; an untitled page (Graph lists
	// "title": "", graph-reality.md fact 36) is named as OneNote shows it.
	title := conv.Title
	if strings.TrimSpace(title) == "" {
		title = in.Page.Title
	}
	if strings.TrimSpace(title) == "" {
		title = onenote.UntitledPage
	}
	pin := notion.PageInput{OneNotePageID: in.Page.ID, Title: title, SectionPath: in.SectionPath,
		Link: in.Page.WebURL, ParentPageID: in.ParentNotionID, Blocks: conv.Blocks, Resources: a.opener(in.Key, in.Lost, conv.Ink),
		LinkID: in.Page.LinkID, Order: in.Page.Order + 1, Losses: append(contentEntries(conv.Losses), sourceLosses...),
		ContentHash: contentHash(onenote.PageContent{HTML: html, InkML: inkML})}
	pin.Created, _ = time.Parse(timeFormat, in.Page.Created)
	pin.LastModified, _ = time.Parse(timeFormat, in.Page.LastModified)

	ctx, watch := a.watchNotion(ctx)
	stop := a.heartbeat(ctx, watch)
	var res notion.VerifiedResult
	if in.Options.SkipVerify {
		res.Result, err = a.cfg.Notion.WritePage(ctx, in.DatabaseID, pin)
	} else {
		res, err = a.cfg.Notion.WriteVerifiedPage(ctx, in.DatabaseID, pin)
	}
	stop()
	if err != nil {
		return WritePageResult{}, notionError(err)
	}
	out := WritePageResult{NotionPageID: res.PageID, Unchanged: res.Unchanged, BlocksWritten: res.BlocksWritten,
		Requests: res.Requests + res.Reads, Links: res.InternalLinks, Verification: string(res.Verdict.State),
		VerifyNote: res.Verdict.Summary, VerifyReads: res.Reads, Rewritten: res.Rewritten}
	if res.Unchanged {
		out.Links = len(conv.Links)
	}
	if res.Unchanged {
		return out, nil
	}
	out.Losses, out.Approximations, out.LossSamples = lossSummary(res.Entries)
	return out, nil
}

// heartbeat records a heartbeat every Config.HeartbeatEvery until stop is
// called, whatever the activity is waiting on (a paced request, a long
// download), so a lost worker is noticed at the option set's heartbeat
// timeout rather than its start-to-close one. While the Notion client
// retries a failing request, the details are the last failure (watch,
// nil for none), so `temporal workflow describe` names it on the pending
// activity.
func (a *Activities) heartbeat(ctx context.Context, watch *notionWatch) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	d := a.cfg.HeartbeatEvery
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if f := watch.failure(); f != nil {
					a.record(ctx, *f)
				} else {
					a.record(ctx)
				}
			}
		}
	}()
	return func() { close(done) }
}

// RewriteLinksInput asks to rewrite the internal links of migrated pages:
// the pages of DatabaseID whose links are still to rewrite, up to
// MaxPages, with the link targets staged by StageLinkTargets under
// TargetsKey (on this worker).
type RewriteLinksInput struct {
	DatabaseID string   `json:"databaseID"`
	TargetsKey StageKey `json:"targetsKey"`
	// MaxPages bounds the pages of one call (defaultRewritePages if 0).
	MaxPages int `json:"maxPages,omitempty"`
}

// defaultRewritePages is how many pages one RewriteLinks call rewrites.
const defaultRewritePages = 50

// RewriteLinksResult counts what the pass did.
type RewriteLinksResult struct {
	Pages         int `json:"pages"`
	BlocksWritten int `json:"blocksWritten"`
	Losses        int `json:"losses"`
	// Failed counts pages whose links could not be rewritten (Notion
	// refused the change); FailedSamples names a few.
	Failed        int      `json:"failed,omitempty"`
	FailedSamples []string `json:"failedSamples,omitempty"`
	// More is set when pages with links to rewrite are left in the
	// database: call again.
	More bool `json:"more,omitempty"`
	// LossPages names up to maxLossPages pages whose links could not all
	// stay links (their target was not migrated), with a few of their
	// losses each; LossPageCount counts them all.
	LossPages     []LinkLossPage `json:"lossPages,omitempty"`
	LossPageCount int            `json:"lossPageCount,omitempty"`
}

// LinkLossPage is a page of the link pass's losses.
type LinkLossPage struct {
	// OneNotePageID and Title name the page.
	OneNotePageID string   `json:"oneNotePageID,omitempty"`
	NotionPageID  string   `json:"notionPageID"`
	Title         string   `json:"title,omitempty"`
	Losses        int      `json:"losses"`
	Samples       []string `json:"samples,omitempty"`
}

// maxLossPages is how many pages a link pass result names.
const maxLossPages = 20

// RewriteLinks turns the internal links of migrated pages (written as
// text, where their rows record) into mentions of the migrated pages
// (the second pass); links to pages not migrated stay text and are
// reported in LossPages. Each page rewritten
// is marked so (PropLinksPending cleared), so calling it again goes on
// where it stopped. A page Notion refuses to change is counted as failed
// and marked too, so it is not tried forever.
func (a *Activities) RewriteLinks(ctx context.Context, in RewriteLinksInput) (RewriteLinksResult, error) {
	if a.cfg.Notion == nil {
		return RewriteLinksResult{}, errors.New("activities: no Notion client configured")
	}
	var out RewriteLinksResult
	var targets map[string]string
	b, err := os.ReadFile(a.linksPath(in.TargetsKey))
	if err != nil {
		return out, stagingMissing("link targets", err)
	}
	if err := json.Unmarshal(b, &targets); err != nil {
		return out, stagingMissing("link targets", err)
	}
	limit := in.MaxPages
	if limit <= 0 {
		limit = defaultRewritePages
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	var rows []notion.Row
	errFull := errors.New("full")
	err = a.cfg.Notion.Rows(ctx, in.DatabaseID, notion.RowFilter{Done: true, LinksPending: true}, func(r notion.Row) error {
		if len(rows) == limit {
			out.More = true
			return errFull
		}
		rows = append(rows, r)
		return nil
	})
	if err != nil && !errors.Is(err, errFull) {
		return out, notionError(err)
	}
	for _, r := range rows {
		p := r.PageID
		res, err := a.cfg.Notion.RewriteRowLinks(ctx, r, targets)
		var losses []report.Entry
		switch {
		case err == nil:
			out.Pages++
			out.BlocksWritten += res.BlocksWritten
			out.addLosses(r, res.Losses)
			for _, l := range res.Losses {
				losses = append(losses, l.Entry())
			}
		case errors.Is(err, notion.ErrValidation) || errors.Is(err, notion.ErrInconsistent):
			out.Failed++
			if len(out.FailedSamples) < maxLossSamples {
				out.FailedSamples = append(out.FailedSamples, fmt.Sprintf("page %s: %v", p, err))
			}
			losses = append(losses, report.Entry{Kind: string(notion.LossLink), Severity: report.Approximated, Count: 1,
				What: "the page's internal links stay text pointing at OneNote: Notion refused to change them (" +
					clipRunes(err.Error(), maxFailureText) + ")"})
		default:
			return out, notionError(err)
		}
		// The row's loss record takes the pass's losses: the report page
		// and the JSON report are built from the records.
		if err := a.cfg.Notion.MarkLinksRewritten(ctx, r, losses); err != nil {
			return out, notionError(err)
		}
		activity.RecordHeartbeat(ctx, out.Pages)
	}
	return out, nil
}

// addLosses counts the link pass's losses on row r's page.
func (out *RewriteLinksResult) addLosses(r notion.Row, losses []notion.Loss) {
	if len(losses) == 0 {
		return
	}
	out.Losses += len(losses)
	out.LossPageCount++
	if len(out.LossPages) == maxLossPages {
		return
	}
	lp := LinkLossPage{OneNotePageID: r.OneNotePageID, NotionPageID: r.PageID, Title: r.Title, Losses: len(losses)}
	for _, l := range losses[:min(len(losses), maxLossSamples)] {
		lp.Samples = append(lp.Samples, fmt.Sprintf("%s: %s (%s)", l.Kind, l.Detail, l.Location))
	}
	out.LossPages = append(out.LossPages, lp)
}

// StageLinkTargetsInput asks for the link targets of a notebook's
// sections, staged on this worker under Key.
type StageLinkTargetsInput struct {
	Key         StageKey `json:"key"`
	DatabaseIDs []string `json:"databaseIDs"`
}

// StageLinkTargetsResult counts the targets staged.
type StageLinkTargetsResult struct {
	Targets int `json:"targets"`
	// Unnamed counts migrated pages whose row holds no link ID (written
	// by an older version): links to them stay text until they are
	// written again.
	Unnamed int `json:"unnamed,omitempty"`
}

// StageLinkTargets reads every migrated row of the given section
// databases (100 per request, paced) and stages the map from OneNote
// page-id GUIDs to Notion pages on this worker, for RewriteLinks. The map
// never travels through workflow history.
func (a *Activities) StageLinkTargets(ctx context.Context, in StageLinkTargetsInput) (StageLinkTargetsResult, error) {
	if a.cfg.Notion == nil {
		return StageLinkTargetsResult{}, errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	targets := map[string]string{}
	var out StageLinkTargetsResult
	for _, db := range in.DatabaseIDs {
		err := a.cfg.Notion.Rows(ctx, db, notion.RowFilter{Done: true}, func(r notion.Row) error {
			if r.LinkID == "" {
				out.Unnamed++
			} else {
				targets[r.LinkID] = r.PageID
			}
			return nil
		})
		if err != nil {
			return out, notionError(err)
		}
		activity.RecordHeartbeat(ctx, len(targets))
	}
	b, err := json.Marshal(targets)
	if err != nil {
		return out, err
	}
	if err := writeFile(a.linksPath(in.Key), b); err != nil {
		return out, temporal.NewNonRetryableApplicationError("staging link targets: "+err.Error(), failure.Staging, err)
	}
	out.Targets = len(targets)
	return out, nil
}
