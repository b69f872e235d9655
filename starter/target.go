package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

// targetFlags name one migration: by workflow ID, or by user and notebook.
type targetFlags struct {
	workflowID, user, notebook, runID string
	// told is where the run picked is named, when it is not the one
	// Temporal would take (the latest), or when --user alone picked it.
	told io.Writer
}

func (c *cli) targetFlags(fs *pflag.FlagSet) *targetFlags {
	t := &targetFlags{told: c.stderr}
	fs.StringVarP(&t.workflowID, "workflow-id", "w", "", "the migration's workflow ID, migrate/<user>/<notebookID> (instead of --user and --notebook)")
	fs.StringVar(&t.user, "user", "", "the user whose migration it is; alone, it picks the user's running migration, else the latest completed one, else the latest")
	fs.StringVar(&t.notebook, "notebook", "", "with --user: the notebook's ID or name")
	fs.StringVar(&t.runID, "run-id", "", "one run of the migration; default: its running run, else its latest completed one "+
		"(never a failed start when a completed run exists), else its latest")
	return t
}

// placeholder is the workflow ID to show in help texts.
func (t *targetFlags) placeholder() string {
	switch {
	case t.workflowID != "":
		return t.workflowID
	case t.user != "" && t.notebook != "":
		return workflows.NotebookWorkflowID(t.user, t.notebook)
	case t.user != "":
		return workflows.NotebookWorkflowID(t.user, "<notebookID>")
	}
	return workflows.NotebookWorkflowID("<user>", "<notebookID>")
}

// runRef is the migration run a command acts on: its workflow ID, and its
// run ID when that run is not the workflow's latest. An empty runID
// follows the latest run, which is the one a migration that continues as
// new goes on in.
type runRef struct{ id, runID string }

// dial connects to Temporal and finds the migration's run. The caller
// closes the client; on an error there is none to close.
func (t *targetFlags) dial(ctx context.Context, tf *temporalFlags) (client.Client, runRef, error) {
	tc, err := tf.dial(ctx)
	if err != nil {
		return nil, runRef{}, err
	}
	ref, err := t.resolve(ctx, temporalRuns{tc})
	if err != nil {
		if d := tf.down(ctx, tc, err); d != "" {
			err = fmt.Errorf("%w\n%s", err, d)
		}
		tc.Close()
		return nil, runRef{}, err
	}
	return tc, ref, nil
}

// runLister is what resolve asks Temporal: migration runs, newest first;
// the latest run of one workflow ID, or the run runID (a
// serviceerror.NotFound when there is none); and the ID of a notebook
// named in the user's last scan ("" when it names none).
type runLister interface {
	list(ctx context.Context, f listFilter, limit int) ([]migrationRow, error)
	latest(ctx context.Context, id, runID string) (migrationRow, error)
	notebookID(ctx context.Context, user, notebook string) string
}

// temporalRuns is the runLister of a Temporal client.
type temporalRuns struct{ tc client.Client }

func (r temporalRuns) list(ctx context.Context, f listFilter, limit int) ([]migrationRow, error) {
	return listMigrations(ctx, r.tc, f, limit)
}

func (r temporalRuns) notebookID(ctx context.Context, user, notebook string) string {
	if scan, _ := lastScan(ctx, r.tc, user); scan != nil {
		if nb := findNotebook(scan, notebook); nb != nil {
			return nb.ID
		}
	}
	return ""
}

func (r temporalRuns) latest(ctx context.Context, id, runID string) (migrationRow, error) {
	d, err := r.tc.DescribeWorkflow(ctx, id, runID)
	if err != nil {
		return migrationRow{}, err
	}
	info := d.RawResponse.GetWorkflowExecutionInfo()
	row := migrationRow{id: id, runID: info.GetExecution().GetRunId(), state: info.GetStatus(), started: info.GetStartTime().AsTime()}
	if info.GetCloseTime() != nil {
		row.closed = info.GetCloseTime().AsTime()
	}
	return row, nil
}

// runsListed is how many runs of one migration, or of one user's
// migrations, resolve reads: the newest ones.
const runsListed = 50

// resolve finds the migration's run: the workflow ID that -w, --notebook
// (an ID or a name the last scan knows) or --user alone names, and its
// run by pickRun, unless --run-id names one.
func (t *targetFlags) resolve(ctx context.Context, runs runLister) (runRef, error) {
	if t.workflowID == "" && t.user == "" {
		return runRef{}, usagef("name the migration with -w <workflow ID>, or --user (and --notebook); \"starter list\" lists them")
	}
	if t.workflowID == "" && t.notebook == "" {
		if t.runID != "" {
			return runRef{}, usagef("--run-id needs the migration's workflow ID: -w, or --user and --notebook")
		}
		rows, err := runs.list(ctx, listFilter{user: t.user}, runsListed)
		if err != nil {
			return runRef{}, err
		}
		r, why, err := pickRun(rows)
		if err != nil {
			return runRef{}, whoseErr(err, t.user)
		}
		ref := refOf(r, rows)
		t.tell("Migration %s%s: the user's %s. Name another with -w or --notebook.\n", r.id, ref.runText(), why)
		return ref, nil
	}
	id, latest, err := t.workflow(ctx, runs)
	if err != nil {
		return runRef{}, err
	}
	if t.runID != "" {
		if _, err := runs.latest(ctx, id, t.runID); err != nil {
			var nf *serviceerror.NotFound
			if errors.As(err, &nf) {
				return runRef{}, fmt.Errorf("no run %s of migration %s: leave --run-id out to take its running run, else its latest completed one", t.runID, id)
			}
			return runRef{}, err
		}
		return runRef{id: id, runID: t.runID}, nil
	}
	rows, err := runs.list(ctx, listFilter{workflowID: id}, runsListed)
	if err != nil {
		return runRef{}, err
	}
	rows = withLatest(rows, latest)
	r, why, err := pickRun(rows)
	if err != nil {
		return runRef{}, err
	}
	ref := refOf(r, rows)
	if ref.runID != "" {
		t.tell("Migration %s run %s: its %s; the latest run, %s, %s. Name a run with --run-id.\n", id, ref.runID, why, latest.runID,
			progress.StatusName(latest.state))
	}
	return ref, nil
}

// workflow is the workflow ID -w or --user and --notebook name, with its
// latest run.
func (t *targetFlags) workflow(ctx context.Context, runs runLister) (string, migrationRow, error) {
	if t.workflowID != "" {
		latest, err := runs.latest(ctx, t.workflowID, "")
		if err != nil {
			return "", latest, notFound(err, t.workflowID, "")
		}
		return t.workflowID, latest, nil
	}
	id := workflows.NotebookWorkflowID(t.user, t.notebook)
	latest, err := runs.latest(ctx, id, "")
	if err == nil {
		return id, latest, nil
	}
	var nf *serviceerror.NotFound
	if !errors.As(err, &nf) {
		return "", latest, err
	}
	// A name: the last scan knows its ID.
	if nb := runs.notebookID(ctx, t.user, t.notebook); nb != "" {
		id = workflows.NotebookWorkflowID(t.user, nb)
		if latest, err := runs.latest(ctx, id, ""); err == nil {
			return id, latest, nil
		}
	}
	return "", latest, fmt.Errorf("no migration of notebook %q for user %q: list the user's migrations with \"starter list --user %s\"",
		t.notebook, t.user, t.user)
}

func (t *targetFlags) tell(format string, args ...any) {
	if t.told != nil {
		fmt.Fprintf(t.told, format, args...)
	}
}

// runText is " run <runID>" for a pinned run, else "".
func (r runRef) runText() string {
	if r.runID == "" {
		return ""
	}
	return " run " + r.runID
}

// withLatest puts the latest run, as described, in the listed runs of
// its workflow (newest first): visibility may not list a run just
// started yet, or list it with a state it has left.
func withLatest(rows []migrationRow, latest migrationRow) []migrationRow {
	out := []migrationRow{latest}
	for _, r := range rows {
		if r.runID != latest.runID {
			out = append(out, r)
		}
	}
	return out
}

// refOf is the run reference of r among rows (newest first): pinned to
// its run unless it is the latest run of its workflow.
func refOf(r migrationRow, rows []migrationRow) runRef {
	for _, o := range rows {
		if o.id == r.id {
			if o.runID == r.runID {
				return runRef{id: r.id}
			}
			break
		}
	}
	return runRef{id: r.id, runID: r.runID}
}

// errTwoRunning is pickRun's error for more than one running migration.
var errTwoRunning = errors.New("running migrations")

// pickRun is the one rule for which migration run a person means, from
// runs newest first, the runs of one workflow or the migrations of one
// user: the running one; else the latest that completed, never a failed,
// cancelled or terminated start when a completed one exists; else the
// latest. why says which it picked, in words ("running migration", "latest
// completed migration, ended ...").
func pickRun(rows []migrationRow) (_ migrationRow, why string, _ error) {
	var running []migrationRow
	for _, r := range rows {
		if r.running() {
			running = append(running, r)
		}
	}
	switch {
	case len(running) == 1:
		return running[0], "running migration", nil
	case len(running) > 1:
		ids := make([]string, len(running))
		for i, r := range running {
			ids[i] = r.id
		}
		return migrationRow{}, "", fmt.Errorf("%d %w (%s): pick one with -w or --notebook", len(running), errTwoRunning, strings.Join(ids, ", "))
	}
	for _, r := range rows {
		if r.state == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			why := "latest completed migration, ended " + closedAt(r.closed)
			if n := countBefore(rows, r); n > 0 {
				why += fmt.Sprintf(" (skipping %d later %s that did not complete)", n, plural(n, "run"))
			}
			return r, why, nil
		}
	}
	if len(rows) > 0 {
		r := rows[0]
		return r, fmt.Sprintf("latest migration (%s; none completed)", progress.StatusName(r.state)), nil
	}
	return migrationRow{}, "", errNoRuns
}

// errNoRuns is pickRun's error for no runs at all.
var errNoRuns = errors.New("no migrations")

// whoseErr says whose migrations pickRun found none or too many of.
func whoseErr(err error, user string) error {
	switch {
	case errors.Is(err, errNoRuns):
		return fmt.Errorf("user %q has no migrations: start one with \"starter migrate --user %s ...\" (\"starter list\" lists every migration)",
			user, user)
	case errors.Is(err, errTwoRunning):
		return fmt.Errorf("user %q has %w", user, err)
	}
	return err
}

// countBefore counts the runs listed before r (newer ones).
func countBefore(rows []migrationRow, r migrationRow) int {
	for i, o := range rows {
		if o.id == r.id && o.runID == r.runID {
			return i
		}
	}
	return 0
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// closedAt is how a person reads a run's close time.
func closedAt(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
