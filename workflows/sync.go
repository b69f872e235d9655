package workflows

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/syncplan"
)

// What a sync run does with a page deleted in OneNote.
const (
	// DeletesKeep leaves its row in Notion (the default); it is reported.
	DeletesKeep = "keep"
	// DeletesArchive moves its row to Notion's trash; it is reported.
	DeletesArchive = "archive"
)

// SyncOptions make a migration a sync run: the notebook is already in
// Notion, and the run brings Notion in step with OneNote (see package
// syncplan for how changes are told).
type SyncOptions struct {
	// Deletes is DeletesKeep ("" too) or DeletesArchive.
	Deletes string `json:"deletes,omitempty"`
}

// validate checks the options and fills the default.
func (o *SyncOptions) validate() error {
	switch o.Deletes {
	case "":
		o.Deletes = DeletesKeep
	case DeletesKeep, DeletesArchive:
	default:
		return invalid("sync.deletes", "%q is neither %q nor %q", o.Deletes, DeletesKeep, DeletesArchive)
	}
	return nil
}

// maxSyncNamed is how many changes a sync report names (the counts stay
// exact).
const maxSyncNamed = 50

// SyncReport is what a sync run found and did.
type SyncReport struct {
	Deletes string `json:"deletes"`
	syncplan.Counts
	// Listed counts the pages listed, ListCalls the Graph requests that
	// listed them (the notebook tree's come on top), and ContentChecks
	// the contents fetched only to compare hashes.
	Listed        int `json:"listed"`
	ListCalls     int `json:"listCalls"`
	ContentChecks int `json:"contentChecks"`
	// Changes names the first maxSyncNamed changes, one line each.
	Changes []string `json:"changes,omitempty"`
	// Failed names the row changes Notion refused.
	Failed []string `json:"failed,omitempty"`
	// Notes name what the run kept as it is, and why (a database not
	// where OneNote places it, databases left without their view).
	Notes []string `json:"notes,omitempty"`
	// ReportError says why the entry on the report page was not written.
	ReportError string `json:"reportError,omitempty"`
	// UnchangedBySection splits Unchanged by section: a section's result
	// counts these as its unchanged pages, so the result, progress and
	// starter status give the report's number.
	UnchangedBySection map[string]int `json:"unchangedBySection,omitempty"`
	// Structure is the last pass over every row's parent, order and
	// title (see reconcileStructure).
	Structure activities.ReconcileStructureResult `json:"structure,omitzero"`
}

// changedRows reports whether the run wrote, renamed, moved or archived
// a row (a recorded wobble changes nothing the loss report shows).
func (r SyncReport) changedRows() bool {
	return r.Added+r.Updated+r.Renamed+r.Moved+r.Archived+r.restructured() > 0
}

// news reports whether the run has anything to tell on the report page:
// a row changed, a deletion not reported before, or a failure.
func (r SyncReport) news() bool {
	return r.changedRows() || r.KeptDeleted > r.KeptBefore || len(r.Failed) > 0
}

// restructured counts the rows the structure pass changed.
func (r SyncReport) restructured() int {
	s := r.Structure
	return s.Parents + s.Orders + s.Titles + s.Moved
}

// Summary is the report in one line.
func (r SyncReport) Summary() string {
	deleted := fmt.Sprintf("%d deleted in OneNote and kept (%d reported before)", r.KeptDeleted, r.KeptBefore)
	if r.Deletes == DeletesArchive {
		deleted = fmt.Sprintf("%d archived", r.Archived)
	}
	return fmt.Sprintf("sync: %d added, %d updated, %d renamed, %d moved, %s, %d timestamp wobbles agreed, %d unchanged, "+
		"%d rows placed again (parent, order or title) "+
		"(%d pages listed in %d listing requests, %d content checks)",
		r.Added, r.Updated, r.Renamed, r.Moved, deleted, r.WobbleAgreed, r.Unchanged, r.restructured(),
		r.Listed, r.ListCalls, r.ContentChecks)
}

// sweep is a sync run's first step, once the tree is read and the
// containers exist: list every section's pages (one background-lane
// permit per 100 pages), classify them against what Notion holds, fetch
// only the content that decides a wobble or a move, make the row changes
// that need no content (renames, moves, wobbles, archives) and queue only
// the sections that have pages to write, each handed its listing so it
// does not list again.
func (nb *notebook) sweep(ctx workflow.Context, lim caller) error {
	rep := &SyncReport{Deletes: nb.in.Sync.Deletes, Notes: nb.elsewhere}
	nb.syncRep = rep
	// A sync run never waits for an operator: a section that fails is
	// reported, and the next run tries it again.
	nb.finish = true
	nb.listed = map[string][]activities.PageMeta{}
	nb.phase = "sync: listing pages"
	nb.details(ctx)
	in := activities.PlanSyncInput{}
	meta := map[string]activities.PageMeta{}
	for _, s := range nb.sections {
		if s.Status == SectionFailed {
			continue // its database is gone (named by the layout)
		}
		pages, calls, err := nb.listAll(ctx, lim, s.SectionRef)
		rep.ListCalls += calls
		if err != nil {
			return err
		}
		nb.listed[s.ID] = pages
		rep.Listed += len(pages)
		for _, p := range pages {
			meta[p.ID] = p
		}
		in.Sections = append(in.Sections, activities.SyncSection{ID: s.ID, Path: s.Path, DatabaseID: nb.dbs[s.ID], Pages: pages})
	}
	for _, f := range nb.former {
		// A section the notebook no longer lists: its rows are read, so
		// a page that moved out of it keeps its row.
		in.Sections = append(in.Sections, activities.SyncSection{ID: f.ID, Path: "(former section)", DatabaseID: f.DatabaseID})
	}
	nb.phase = "sync: comparing with Notion"
	nb.details(ctx)
	var planned activities.PlanSyncResult
	actx := workflow.WithActivityOptions(ctx, notionReadOptions("Compare the listings with what Notion holds"))
	if err := workflow.ExecuteActivity(actx, activities.PlanSyncName, in).Get(ctx, &planned); err != nil {
		return nb.explain(err)
	}
	hashes := map[string]string{}
	for _, c := range planned.Plan.Checks {
		var r activities.ContentHashResult
		st, err := lim.Call(ctx, entity.Call{
			Ask:      entity.AskOptions{User: nb.in.User, Lane: limiter.Background},
			Activity: activities.ContentHashName,
			Args:     []any{activities.ContentHashInput{User: nb.in.User, PageID: c.PageID, Options: nb.in.ContentOptions}},
			Options:  graphOptions("Compare the content of " + clip(meta[c.PageID].Title)),
		}, &r)
		nb.own.took(st)
		rep.ContentChecks++
		if err != nil {
			if _, d := failure.Of(err); d == failure.Stop {
				return nb.explain(err)
			}
			// Undecided: Resolve writes it again (or takes it as new).
			workflow.GetLogger(ctx).Warn("Content not compared", "page", c.PageID, "error", err)
			continue
		}
		hashes[c.PageID] = r.SHA256
	}
	changes := syncplan.Sorted(syncplan.Resolve(planned.Plan, hashes))
	archive := rep.Deletes == DeletesArchive
	rep.Counts = syncplan.Count(changes, archive)
	rep.Unchanged += planned.Unchanged
	paths := map[string]string{}
	for _, s := range nb.sections {
		paths[s.ID] = s.Path
	}
	write := map[string]bool{}
	rep.UnchangedBySection = map[string]int{}
	for _, s := range nb.sections {
		if pages, ok := nb.listed[s.ID]; ok {
			rep.UnchangedBySection[s.ID] = len(pages)
		}
	}
	for _, c := range changes {
		if c.Kind != syncplan.Deleted && c.Kind != syncplan.Unchanged {
			rep.UnchangedBySection[c.Now.SectionID]--
		}
	}
	var actions []activities.SyncAction
	for _, c := range changes {
		if c.Kind == syncplan.Deleted && !archive && c.Was.Reported {
			continue // reported by an earlier run: counted only
		}
		if len(rep.Changes) < maxSyncNamed {
			rep.Changes = append(rep.Changes, changeLine(c, paths, archive))
		}
		switch c.Kind {
		case syncplan.New, syncplan.Edited:
			write[c.Now.SectionID] = true
		case syncplan.Renamed:
			act := activities.SyncAction{Kind: c.Kind, Row: c.Was.Row, Title: c.Now.Title, OldTitle: c.Was.Title}
			if !c.Now.LastModified.Truncate(time.Second).Equal(c.Was.LastModified.Truncate(time.Second)) {
				act.LastModified = meta[c.Now.PageID].LastModified
			}
			actions = append(actions, act)
		case syncplan.WobbleAgreed:
			actions = append(actions, activities.SyncAction{Kind: c.Kind, Row: c.Was.Row, LastModified: meta[c.Now.PageID].LastModified})
		case syncplan.Moved:
			m := meta[c.Now.PageID]
			act := activities.SyncAction{Kind: c.Kind, Row: c.Was.Row, OneNotePageID: c.Now.PageID,
				SectionPath: paths[c.Now.SectionID], LinkID: m.LinkID, Link: m.WebURL, Order: m.Order + 1}
			if db := nb.dbs[c.Now.SectionID]; db != nb.dbs[c.Was.SectionID] {
				act.MoveTo = db
			}
			if c.Retitled {
				act.Title, act.OldTitle = c.Now.Title, c.Was.Title
			}
			actions = append(actions, act)
			if c.Rewrite {
				write[c.Now.SectionID] = true
			}
		case syncplan.Deleted:
			actions = append(actions, activities.SyncAction{Kind: c.Kind, Row: c.Was.Row, Archive: archive, MarkKept: !archive})
		}
	}
	if len(actions) > 0 {
		nb.phase = fmt.Sprintf("sync: %d row changes in Notion", len(actions))
		nb.details(ctx)
		var applied activities.ApplySyncResult
		actx := workflow.WithActivityOptions(ctx, notionReportOptions(fmt.Sprintf("Rename, move and archive %d rows", len(actions))))
		if err := workflow.ExecuteActivity(actx, activities.ApplySyncName, activities.ApplySyncInput{Actions: actions}).Get(ctx, &applied); err != nil {
			return nb.explain(err)
		}
		rep.Failed = applied.Failed
	}
	for i, s := range nb.sections {
		if s.Status == SectionFailed {
			continue
		}
		if write[s.ID] {
			nb.queue = append(nb.queue, i)
			continue
		}
		n := len(nb.listed[s.ID])
		s.Status = SectionDone
		s.setResult(&SectionResult{SectionID: s.ID, Pages: n, Done: n, Skipped: rep.UnchangedBySection[s.ID]})
	}
	return nil
}

// reconcileStructure is a sync run's last row pass, once the sections
// have written: every listed page's row gets OneNote's database, Parent
// item, Order and Name (activities.ReconcileStructure), so structure
// follows OneNote for pages that were not written too. A run that
// continued as new no longer holds the listings, and leaves it to the
// next run.
func (nb *notebook) reconcileStructure(ctx workflow.Context) error {
	if nb.listed == nil {
		return nil
	}
	nb.phase = "sync: checking parents and order"
	nb.details(ctx)
	res, err := nb.structurePass(ctx, false, "Set every row's parent, order and title to OneNote's")
	if err != nil {
		return err
	}
	r := nb.syncRep
	r.Structure = res
	r.Failed = append(r.Failed, res.Failed...)
	for _, d := range res.Duplicates {
		r.Failed = append(r.Failed, "duplicate: "+d)
	}
	return nil
}

// listAll lists a section's pages, a batch of up to 100 per permit, and
// returns them with the number of listing requests. A batch Graph sends
// again (it ignored $skip) starts the listing over by @odata.nextLink.
func (nb *notebook) listAll(ctx workflow.Context, lim caller, ref SectionRef) ([]activities.PageMeta, int, error) {
	cur := onenote.PageCursor{SectionID: ref.ID}
	var pages []activities.PageMeta
	seen := map[string]bool{}
	calls := 0
	for {
		var r activities.ListPagesResult
		st, err := lim.Call(ctx, entity.Call{
			Ask:      entity.AskOptions{User: nb.in.User, Lane: limiter.Background},
			Activity: activities.ListPagesName,
			Args:     []any{activities.ListPagesInput{User: nb.in.User, Cursor: cur}},
			Options:  graphOptions(fmt.Sprintf("Sync: list pages of %s from %d", clip(ref.Name), len(pages))),
		}, &r)
		nb.own.took(st)
		if err != nil {
			return nil, calls, fmt.Errorf("listing the pages of section %q: %w", ref.Path, nb.explain(err))
		}
		calls++
		if r.Repeated && !cur.UseNextLink {
			cur, pages, seen = onenote.PageCursor{SectionID: ref.ID, UseNextLink: true}, nil, map[string]bool{}
			continue
		}
		for _, p := range r.Pages {
			if !seen[p.ID] {
				seen[p.ID] = true
				pages = append(pages, p)
			}
		}
		if r.Done {
			slices.SortStableFunc(pages, func(a, b activities.PageMeta) int { return a.Order - b.Order })
			return pages, calls, nil
		}
		cur = r.Next
	}
}

// changeLine names one change for the report.
func changeLine(c syncplan.Change, paths map[string]string, archive bool) string {
	switch c.Kind {
	case syncplan.New:
		return fmt.Sprintf("added: %q (%s)", c.Now.Title, paths[c.Now.SectionID])
	case syncplan.Edited:
		return fmt.Sprintf("updated: %q (%s)", c.Now.Title, paths[c.Now.SectionID])
	case syncplan.Renamed:
		return fmt.Sprintf("renamed: %q → %q (%s)", c.Was.Title, c.Now.Title, paths[c.Now.SectionID])
	case syncplan.WobbleAgreed:
		return fmt.Sprintf("timestamp moved with no change: %q (%s), recorded", c.Now.Title, paths[c.Now.SectionID])
	case syncplan.Moved:
		line := fmt.Sprintf("moved: %q from %s to %s (by %s)", c.Now.Title, paths[c.Was.SectionID], paths[c.Now.SectionID], c.By)
		if c.Rewrite {
			line += ", and updated"
		}
		return line
	case syncplan.Deleted:
		if archive {
			return fmt.Sprintf("archived: %q (%s), deleted in OneNote", c.Was.Title, paths[c.Was.SectionID])
		}
		return fmt.Sprintf("deleted in OneNote, kept in Notion: %q (%s)", c.Was.Title, paths[c.Was.SectionID])
	}
	return string(c.Kind) + ": " + c.Now.Title
}

// appendSyncReport appends the run's entry to the notebook's report page.
func (nb *notebook) appendSyncReport(ctx workflow.Context, rep *NotebookReport) {
	sr := nb.syncRep
	if sr == nil || nb.page == "" || !sr.news() {
		// A run that changed nothing adds nothing to the page.
		return
	}
	info := workflow.GetInfo(ctx)
	headline := fmt.Sprintf("Sync run %s (%s): %s", info.WorkflowStartTime.UTC().Format("2006-01-02 15:04:05 UTC"),
		info.WorkflowExecution.ID, strings.TrimPrefix(sr.Summary(), "sync: "))
	actx := workflow.WithActivityOptions(ctx, notionReportOptions("Append the sync report to the migration report"))
	var id string
	err := workflow.ExecuteActivity(actx, activities.AppendSyncReportName, activities.AppendSyncReportInput{
		NotebookPageID: nb.page, Key: info.WorkflowExecution.ID, Headline: headline, Lines: slices.Concat(sr.Changes, sr.Failed, sr.Notes),
		Counts: notion.SyncCounts{Runs: 1, Added: sr.Added, Updated: sr.Updated, Renamed: sr.Renamed, Moved: sr.Moved,
			Deleted: sr.Archived + sr.KeptDeleted - sr.KeptBefore, Placed: sr.restructured()}}).Get(ctx, &id)
	if err != nil {
		workflow.GetLogger(ctx).Warn("Sync report not appended", "error", err)
		sr.ReportError = errorText(err)
		return
	}
	if rep.ReportPageID == "" {
		rep.ReportPageID = id
	}
}

// SyncWorkflowID is the ID of a notebook's sync schedule, and the prefix
// of its runs' workflow IDs (the schedule adds the run's time).
func SyncWorkflowID(user, notebookID string) string {
	return "sync/" + user + "/" + notebookID
}
