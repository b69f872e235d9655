package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/report"
)

// A page moved to another section between two migrations (or since the
// file export a Graph migration adopts) has its row in the database of
// the section it left, and Graph gives it a new ID. WritePage looks in its
// own section's database only, so a migration re-run finds such rows
// first, with the sync's lookup (activities.ReconcileStructure), and moves
// them where their page is now: never a second row.

// findMoved is a migration re-run's first step once the containers exist
// (the layout found the notebook page, so its databases may hold rows):
// it lists every section (one background-lane permit per 100 pages, or
// the file), moves each row found in another section's database, current
// or former, to its page's section (MovesOnly), and hands each section
// its listing, so nothing is listed twice. A brand-new notebook, or one
// with a single database, has nothing to move and costs nothing here.
func (nb *notebook) findMoved(ctx workflow.Context, lim caller) error {
	dbs := len(nb.former)
	for _, s := range nb.sections {
		if nb.dbs[s.ID] != "" && s.Status != SectionFailed {
			dbs++
		}
	}
	if dbs < 2 {
		return nil
	}
	nb.listed = map[string][]activities.PageMeta{}
	nb.phase = "looking for pages moved between sections"
	nb.details(ctx)
	for _, s := range nb.sections {
		if s.Status == SectionFailed {
			continue // its database is gone (named by the layout)
		}
		pages, err := nb.listSection(ctx, lim, s.SectionRef)
		if err != nil {
			if _, d := failure.Of(err); d == failure.Stop {
				return err
			}
			// The section lists itself and meets the error there
			// (a locked section is skipped by name); only its pages
			// are not looked for elsewhere.
			workflow.GetLogger(ctx).Warn("Section not listed before the sections run; its pages are looked for in its database only",
				"section", s.Path, "error", err)
			continue
		}
		nb.listed[s.ID] = pages
	}
	res, err := nb.structurePass(ctx, true, "Move the rows of pages moved to another section")
	if err != nil {
		return err
	}
	nb.structure = &res
	return nil
}

// listSection lists a section's whole listing from its source.
func (nb *notebook) listSection(ctx workflow.Context, lim caller, ref SectionRef) ([]activities.PageMeta, error) {
	if nb.in.File != "" {
		return nb.listFileAll(ctx, ref)
	}
	pages, _, err := nb.listAll(ctx, lim, ref)
	return pages, err
}

// structurePass runs activities.ReconcileStructure over the listed
// sections' databases and the former sections': the rows of a migration
// re-run's moved pages before the sections write (movesOnly), and every
// listed row's place after they did.
func (nb *notebook) structurePass(ctx workflow.Context, movesOnly bool, summary string) (activities.ReconcileStructureResult, error) {
	in := activities.ReconcileStructureInput{MovesOnly: movesOnly}
	for _, s := range nb.sections {
		if db := nb.dbs[s.ID]; db != "" && s.Status != SectionFailed {
			in.Sections = append(in.Sections, activities.SyncSection{ID: s.ID, Path: s.Path, DatabaseID: db, Pages: nb.listed[s.ID]})
		}
	}
	for _, f := range nb.former {
		// A section the notebook no longer lists: its rows are read, so
		// a page that moved out of it keeps its row.
		in.Sections = append(in.Sections, activities.SyncSection{ID: f.ID, DatabaseID: f.DatabaseID})
	}
	var res activities.ReconcileStructureResult
	actx := workflow.WithActivityOptions(ctx, notionReportOptions(summary))
	if err := workflow.ExecuteActivity(actx, activities.ReconcileStructureName, in).Get(ctx, &res); err != nil {
		return res, nb.explain(err)
	}
	return res, nil
}

// placeMoved is a migration re-run's last row pass when its first one
// moved rows: the sections those pages left and joined are numbered
// again, and a moved subpage whose parent was written only now gets it
// (as a sync's last pass does). A run that continued as new no longer
// holds the listings, and leaves it to the next run.
func (nb *notebook) placeMoved(ctx workflow.Context) error {
	if nb.structure == nil || nb.structure.Moved == 0 || nb.listed == nil {
		return nil
	}
	nb.phase = "checking parents and order of moved pages"
	nb.details(ctx)
	res, err := nb.structurePass(ctx, false, "Set every row's parent, order and title to OneNote's")
	if err != nil {
		return err
	}
	nb.structure.Add(res)
	return nil
}

// movedSummary names a migration re-run's moves in its summary.
func movedSummary(r *activities.ReconcileStructureResult) string {
	if r == nil || r.Moved+len(r.Failed)+len(r.Duplicates) == 0 {
		return ""
	}
	msg := fmt.Sprintf("; %d %s moved to another section in OneNote: %s", r.Moved,
		report.Plural(r.Moved, "page", "pages"), report.Plural(r.Moved, "its row moved with it", "their rows moved with them"))
	if n := len(r.Failed); n > 0 {
		msg += fmt.Sprintf(" (%d %s Notion refused to change: see structure.failed)", n, report.Plural(n, "row", "rows"))
	}
	if n := len(r.Duplicates); n > 0 {
		msg += fmt.Sprintf("; %d %s held by more than one row (see structure.duplicates)", n, report.Plural(n, "page", "pages"))
	}
	return msg
}
