package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/onenote"
)

// The file source (MigrateInput.File): the notebook is read from
// OneNote's own files on the workers instead of through Graph. Three steps
// differ, and only these: the tree, a section's listing and a page's
// content come from the file source's activities. None sends a Graph
// request or takes a limiter permit; Notion's pace is unchanged. Every
// other step (the Notion containers, the rows, the converter, the writer,
// the loss report, the link pass) is the Graph path's.

// fileOptions are for the file source's activities: reading the worker's
// disk, and extracting a package the first time a worker opens it (a
// large notebook takes a while). A reader error is typed and not retried.
func fileOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}, Summary: summary}
}

// readFileTree reads the tree of the notebook in the input's file; the
// input's notebook, when given, names it.
func (nb *notebook) readFileTree(ctx workflow.Context) (*activities.NotebookTree, error) {
	actx := workflow.WithActivityOptions(ctx, fileOptions("Read the notebook's tree from "+clip(nb.in.File)))
	var tree activities.NotebookTree
	if err := workflow.ExecuteActivity(actx, activities.ReadFileTreeName,
		activities.ReadFileTreeInput{File: nb.in.File}).Get(ctx, &tree); err != nil {
		msg := err.Error()
		if app := failure.Find(err, failure.FileUnreadable); app != nil {
			msg = app.Message()
		}
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("the notebook file cannot be read: %s", msg), failure.Config, err)
	}
	if nb.in.Notebook != "" {
		tree.Name = nb.in.Notebook
	}
	return &tree, nil
}

// fileBatch is how many pages of a file's section are listed at once: as
// a Graph listing batch, so a section's carried state stays as small.
const fileBatch = 100

// listFile reads the next batch of the section's listing from the file
// (no permit) and asks Notion which of its pages it holds unchanged.
func (s *section) listFile(ctx workflow.Context) error {
	actx := workflow.WithActivityOptions(ctx, fileOptions(fmt.Sprintf("List pages of %s from the file from %d", clip(s.in.Section.Name), s.st.Taken)))
	var r activities.ListFilePagesResult
	err := workflow.ExecuteActivity(actx, activities.ListFilePagesName,
		activities.ListFilePagesInput{File: s.in.File, SectionID: s.in.Section.ID, Skip: s.st.Taken, Top: fileBatch}).Get(ctx, &r)
	if err != nil {
		if failure.Find(err, failure.FileProtected) != nil {
			return temporal.NewNonRetryableApplicationError(fmt.Sprintf(
				"section %q skipped: it is password-protected in the file, which the reader cannot decrypt; "+
					"remove its password in OneNote, export the notebook again to the same path, then retry the section "+
					"(starter retry --section %q, or the update %s)", s.in.Section.Path, s.in.Section.ID, UpdateRetrySection),
				failure.SectionProtected, err)
		}
		return fmt.Errorf("listing the pages of section %q from the file: %w", s.in.Section.Path, err)
	}
	s.st.ListCalls++
	s.st.Taken += len(r.Pages)
	s.st.Tally.Pages += len(r.Pages)
	s.st.Cursor, s.st.ListDone = onenote.PageCursor{SectionID: s.in.Section.ID}, r.Done
	s.st.Batch, s.st.Existing = r.Pages, nil
	return s.findExisting(ctx, r.Pages)
}

// listFileAll reads a section's whole listing from the file, fileBatch
// pages at a time (a migration re-run's search for moved pages, see
// findMoved).
func (nb *notebook) listFileAll(ctx workflow.Context, ref SectionRef) ([]activities.PageMeta, error) {
	var pages []activities.PageMeta
	for {
		actx := workflow.WithActivityOptions(ctx, fileOptions(fmt.Sprintf("List pages of %s from the file from %d", clip(ref.Name), len(pages))))
		var r activities.ListFilePagesResult
		if err := workflow.ExecuteActivity(actx, activities.ListFilePagesName,
			activities.ListFilePagesInput{File: nb.in.File, SectionID: ref.ID, Skip: len(pages), Top: fileBatch}).Get(ctx, &r); err != nil {
			return nil, fmt.Errorf("listing the pages of section %q from the file: %w", ref.Path, err)
		}
		pages = append(pages, r.Pages...)
		if r.Done || len(r.Pages) == 0 {
			return pages, nil
		}
	}
}

// fetchFile stages page p from the file on the session's worker: its HTML,
// ink and binaries at once (no permit: nothing goes to Graph). It returns
// the binaries that cannot be migrated, for the write.
func (s *section) fetchFile(sctx workflow.Context, key activities.StageKey, p activities.PageMeta, title string) ([]activities.LostResource, error) {
	actx := workflow.WithActivityOptions(sctx, fileOptions("Read from the file: "+clip(title)))
	var meta activities.FileContentMeta
	err := workflow.ExecuteActivity(actx, activities.FetchFileContentName, activities.FetchFileContentInput{
		File: s.in.File, SectionID: s.in.Section.ID, PageID: p.ID, Key: key, Options: s.in.Content,
	}).Get(sctx, &meta)
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	s.staged[p.ID] = true
	s.st.Fetched++
	return meta.Lost, nil
}
