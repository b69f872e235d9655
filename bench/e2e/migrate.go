package e2e

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/workflows"
)

// Migration is one MigrateNotebook the bench started.
type Migration struct {
	ID, User string
	// Started is when the bench asked Temporal to start it; Ended when it
	// closed (from Temporal's close time), or when the bench stopped it
	// at its horizon.
	Started, Ended time.Time
	// Completed is set when it closed on its own; Report is its result.
	Completed bool
	Report    workflows.NotebookReport
	// Requeues counts the retry-failed signals the bench sent, and Failed
	// the pages that failed, summed over those rounds (with a baseline,
	// a page fails when its Graph call is abandoned).
	Requeues, Failed int
	NotebookID       string
}

// MigrateOptions are the MigrateInput options a scenario sets.
type MigrateOptions struct {
	SectionParallelism, PageParallelism, PagesPerRun int
}

// StartMigration starts MigrateNotebook for user's first notebook, under
// the Notion root page.
func (s *Stack) StartMigration(ctx context.Context, user string, o MigrateOptions) (*Migration, error) {
	nbs := s.Notebooks[user]
	if len(nbs) == 0 {
		return nil, fmt.Errorf("e2e: user %q has no notebook", user)
	}
	in := workflows.MigrateInput{User: user, Notebook: nbs[0].ID, NotionParent: s.Root, Limits: s.cfg.Profile,
		SectionParallelism: o.SectionParallelism, PageParallelism: o.PageParallelism, PagesPerRun: o.PagesPerRun}
	m := &Migration{ID: workflows.NotebookWorkflowID(user, nbs[0].ID), User: user, NotebookID: nbs[0].ID, Started: time.Now()}
	_, err := s.C.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: m.ID, TaskQueue: TaskQueue},
		workflows.MigrateNotebookName, in)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", m.ID, err)
	}
	return m, nil
}

// AwaitOptions say how long to wait for migrations and what to do with a
// notebook that waits with failed sections.
type AwaitOptions struct {
	// Horizon stops (terminates) migrations still running this long after
	// they started; 0 means no horizon.
	Horizon time.Duration
	// Requeue answers a notebook waiting with failed sections with
	// retry-failed (the baselines' abandoned pages go back to the queue,
	// as in the simulator); otherwise with finish.
	Requeue bool
	// Poll is the polling interval; 0 means 500 ms.
	Poll time.Duration
	// Progress, if set, is called after every poll.
	Progress func()
}

// Await waits until every migration has closed or reached the horizon.
func (s *Stack) Await(ctx context.Context, ms []*Migration, o AwaitOptions) error {
	poll := o.Poll
	if poll <= 0 {
		poll = 500 * time.Millisecond
	}
	// The progress query costs a workflow task on the worker: ask it at
	// most every 2 s per migration.
	lastQuery := map[string]time.Time{}
	for {
		open := 0
		for _, m := range ms {
			if !m.Ended.IsZero() {
				continue
			}
			d, err := s.C.DescribeWorkflow(ctx, m.ID, "")
			if err != nil {
				return fmt.Errorf("describe %s: %w", m.ID, err)
			}
			info := d.RawResponse.GetWorkflowExecutionInfo()
			if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				m.Ended = info.GetCloseTime().AsTime()
				m.Completed = info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
				if m.Completed {
					if err := s.C.GetWorkflow(ctx, m.ID, "").Get(ctx, &m.Report); err != nil {
						return fmt.Errorf("result of %s: %w", m.ID, err)
					}
				}
				continue
			}
			if o.Horizon > 0 && time.Since(m.Started) >= o.Horizon {
				m.Ended = time.Now()
				var p workflows.NotebookProgress
				if v, err := s.C.QueryWorkflow(ctx, m.ID, "", workflows.QueryProgress); err == nil && v.Get(&p) == nil {
					s.countFailed(ctx, m, p)
				}
				if err := s.C.TerminateWorkflow(ctx, m.ID, "", "bench horizon reached"); err != nil {
					return fmt.Errorf("terminate %s: %w", m.ID, err)
				}
				continue
			}
			open++
			if time.Since(lastQuery[m.ID]) < 2*time.Second {
				continue
			}
			lastQuery[m.ID] = time.Now()
			var p workflows.NotebookProgress
			v, err := s.C.QueryWorkflow(ctx, m.ID, "", workflows.QueryProgress)
			if err != nil || v.Get(&p) != nil || p.Running > 0 || p.Pending > 0 || p.Failed == 0 {
				continue
			}
			// Every section settled and some failed: the notebook waits.
			send := workflows.Finish
			if o.Requeue {
				send = workflows.RetryFailed
				m.Requeues++
				s.countFailed(ctx, m, p)
			}
			if _, err := send(ctx, s.C, m.ID); err != nil {
				return err
			}
		}
		if o.Progress != nil {
			o.Progress()
		}
		if open == 0 {
			return nil
		}
		if err := stack.Sleep(ctx, poll); err != nil {
			return err
		}
	}
}

// Scan runs ScanNotebooks for user and returns how long the person
// waited: from asking Temporal to start it to having the result.
func (s *Stack) Scan(ctx context.Context, user, id string) (time.Duration, workflows.ScanResult, error) {
	var res workflows.ScanResult
	start := time.Now()
	run, err := s.C.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue},
		workflows.ScanNotebooksName, workflows.ScanInput{User: user, Limits: s.cfg.Profile})
	if err != nil {
		return 0, res, fmt.Errorf("start %s: %w", id, err)
	}
	if err := run.Get(ctx, &res); err != nil {
		return 0, res, fmt.Errorf("%s: %w", id, err)
	}
	return time.Since(start), res, nil
}

// countFailed adds the pages the notebook's sections report failed, in
// finished sections (from the notebook) and running ones (asked one by
// one), to m.Failed: called before a requeue and at the horizon, so every
// round is counted once.
func (s *Stack) countFailed(ctx context.Context, m *Migration, p workflows.NotebookProgress) {
	m.Failed += p.PagesFailed
	for _, sec := range p.Sections {
		if sec.Status != workflows.SectionRunning {
			continue
		}
		v, err := s.C.QueryWorkflow(ctx, workflows.SectionWorkflowID(m.User, m.NotebookID, sec.ID), "", workflows.QueryProgress)
		if err != nil {
			continue
		}
		var sp workflows.SectionProgress
		if v.Get(&sp) == nil {
			m.Failed += sp.Failed
		}
	}
}
