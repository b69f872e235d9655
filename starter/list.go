package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

const listDescription = `Lists migrations (MigrateNotebook workflows), newest first, from the search attributes the
workflows keep: NoteBridgeUser, NoteBridgeNotebook and NoteBridgeStatus (--status takes one of
its values: reading, migrating, waiting, linking, done, done-with-failures, failed, stopped).`

// listFilter selects migrations.
type listFilter struct {
	user, status string
	open         bool
	// workflowID selects the runs of one migration.
	workflowID string
}

// query is the visibility query of the filter.
func (f listFilter) query() string {
	q := []string{fmt.Sprintf("WorkflowType = %s", quoteQuery(workflows.MigrateNotebookName))}
	if f.user != "" {
		q = append(q, fmt.Sprintf("%s = %s", workflows.AttrUser.GetName(), quoteQuery(f.user)))
	}
	if f.workflowID != "" {
		q = append(q, "WorkflowId = "+quoteQuery(f.workflowID))
	}
	if f.status != "" {
		q = append(q, fmt.Sprintf("%s = %s", workflows.AttrStatus.GetName(), quoteQuery(f.status)))
	}
	if f.open {
		q = append(q, `ExecutionStatus = "Running"`)
	}
	return strings.Join(q, " AND ")
}

// quoteQuery quotes a value for a visibility query.
func quoteQuery(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// migrationRow is one migration run in a list.
type migrationRow struct {
	id, runID, notebook, status string
	state                       enumspb.WorkflowExecutionStatus
	started, closed             time.Time
}

func (r migrationRow) running() bool { return r.state == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING }

// listMigrations returns up to limit migrations, newest first.
func listMigrations(ctx context.Context, tc client.Client, f listFilter, limit int) ([]migrationRow, error) {
	var rows []migrationRow
	var token []byte
	for len(rows) < limit {
		resp, err := tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			PageSize: int32(min(limit, 100)), NextPageToken: token, Query: f.query()})
		if err != nil {
			return nil, fmt.Errorf("list migrations (%s): %w", f.query(), err)
		}
		for _, ex := range resp.GetExecutions() {
			r := migrationRow{id: ex.GetExecution().GetWorkflowId(), runID: ex.GetExecution().GetRunId(), state: ex.GetStatus(), started: ex.GetStartTime().AsTime(),
				notebook: progress.Keyword(ex.GetSearchAttributes(), workflows.AttrNotebook.GetName()),
				status:   progress.Keyword(ex.GetSearchAttributes(), workflows.AttrStatus.GetName())}
			if ex.GetCloseTime() != nil {
				r.closed = ex.GetCloseTime().AsTime()
			}
			rows = append(rows, r)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].started.After(rows[j].started) })
	if len(rows) > limit {
		rows = rows[:limit]
	}
	return rows, nil
}

// migrationJSON is one migration as list --json prints it.
type migrationJSON struct {
	WorkflowID string    `json:"workflowId"`
	NotebookID string    `json:"notebookId"`
	State      string    `json:"state"`
	Status     string    `json:"status"`
	StartTime  time.Time `json:"startTime"`
	CloseTime  time.Time `json:"closeTime,omitzero"`
}

func newListCmd(c *cli, name, summary string) *cobra.Command {
	var f listFilter
	var limit int
	var tf *temporalFlags
	cmd := c.newCommand(name, "[--user U] [--status S] [--open]", summary, listDescription, func() string {
		return fmt.Sprintf("temporal workflow list %s --query %s", tf.cliFlags(), shellQuote(f.query()))
	}, func(ctx context.Context, _ *cobra.Command) error { return c.list(ctx, tf, f, limit) })
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, false)
	fs.StringVar(&f.user, "user", "", "only this user's migrations (NoteBridgeUser)")
	fs.StringVar(&f.status, "status", "", "only migrations in this state (NoteBridgeStatus): "+strings.Join(workflows.NotebookStatuses, ", "))
	fs.BoolVar(&f.open, "open", false, "only running migrations")
	fs.IntVar(&limit, "limit", 50, "at most this many")
	return cmd
}

// list prints the migrations f selects, at most limit.
func (c *cli) list(ctx context.Context, tf *temporalFlags, f listFilter, limit int) error {
	if limit <= 0 {
		return usagef("--limit must be positive")
	}
	if f.status != "" && !slices.Contains(workflows.NotebookStatuses, f.status) {
		return usagef("--status %q: use one of %s", f.status, strings.Join(workflows.NotebookStatuses, ", "))
	}
	tc, err := tf.dial(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	rows, err := listMigrations(ctx, tc, f, limit)
	if err != nil {
		return err
	}
	if c.json {
		out := make([]migrationJSON, len(rows))
		for i, r := range rows {
			out[i] = migrationJSON{WorkflowID: r.id, NotebookID: r.notebook, State: progress.StatusName(r.state), Status: r.status,
				StartTime: r.started, CloseTime: r.closed}
		}
		return c.printJSON(out)
	}
	if len(rows) == 0 {
		fmt.Fprintf(c.stdout, "No migrations match %s. Start one with \"starter migrate\".\n", f.query())
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKFLOW ID\tSTATE\tSTATUS\tSTARTED\tCLOSED")
	for _, r := range rows {
		closed := "-"
		if !r.closed.IsZero() {
			closed = r.closed.Local().Format(time.DateTime)
		}
		status := r.status
		if status == "" {
			status = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.id, progress.StatusName(r.state), status, r.started.Local().Format(time.DateTime), closed)
	}
	return tw.Flush()
}
