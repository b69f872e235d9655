package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/workflows"
)

const syncDescription = `Keeps Notion in step with OneNote after a migration: a Temporal Schedule per notebook
starts the MigrateNotebook workflow with its sync option every --every. Each run lists every
section (one background-lane request per 100 pages), compares with what Notion holds, and
writes only what changed: edited and new pages are written, renamed ones get their new title,
moved ones keep their Notion page and move to their new section's database, a one-second
timestamp wobble costs one content fetch and is recorded. A page deleted in OneNote is archived
in Notion with --deletes archive and kept with --deletes keep (the default); either way the run
reports it. An unchanged notebook costs only the listing requests.

The schedule is sync/<user>/<notebookID>; its runs are sync/<user>/<notebookID>-<time>, and a
run never overlaps the one before (overlap policy skip). Each run's report is its workflow
result ("starter status -w <run ID>") and is appended to the notebook's "Migration report"
page in Notion.`

// newSyncCmd is "starter sync" and its subcommands.
func newSyncCmd(c *cli, name, summary string) *cobra.Command {
	help := func() {
		fmt.Fprintf(c.stdout, "Usage: starter sync <create|pause|resume|delete|list> [flags]\n\n%s\n\n"+
			"Subcommands:\n  create   create a notebook's sync schedule\n  pause    pause it\n  resume   resume it\n"+
			"  delete   delete it (Notion keeps what it holds)\n  list     list the sync schedules\n"+
			"Run \"starter sync <subcommand> --help\" for its flags and the temporal CLI command it stands for.\n", syncDescription)
	}
	root := &cobra.Command{Use: name, Short: summary, Long: syncDescription,
		RunE: func(*cobra.Command, []string) error { help(); return nil }}
	root.SetHelpFunc(func(*cobra.Command, []string) { help() })
	for _, sub := range []*cobra.Command{newSyncCreateCmd(c), newSyncStateCmd(c, "pause"), newSyncStateCmd(c, "resume"),
		newSyncStateCmd(c, "delete"), newSyncListCmd(c)} {
		// newCommand names a command by its whole line ("sync create");
		// cobra takes the first word of Use as its name.
		sub.Use = sub.Use[len("sync "):]
		root.AddCommand(sub)
	}
	return root
}

// syncInput is what a sync schedule starts its runs with.
func syncInput(in workflows.MigrateInput, deletes string) workflows.MigrateInput {
	in.Sync = &workflows.SyncOptions{Deletes: deletes}
	return in
}

func newSyncCreateCmd(c *cli) *cobra.Command {
	var in workflows.MigrateInput
	var every time.Duration
	var deletes string
	var paused, dryRun bool
	var tf *temporalFlags
	cmd := c.newCommand("sync create", "--user U --notebook N --notion-parent P --every D [flags]",
		"create a notebook's sync schedule", syncDescription, func() string {
			id := workflows.SyncWorkflowID(orText(in.User, "<user>"), "<notebookID>")
			ex := syncInput(in, deletes)
			ex.User, ex.Notebook, ex.NotionParent = orText(in.User, "<user>"), "<notebookID>", orText(in.NotionParent, "<Notion page ID>")
			return fmt.Sprintf("temporal schedule create %s --schedule-id %s --interval %s --overlap-policy Skip "+
				"--task-queue %s --type %s --workflow-id %s --input %s",
				tf.cliFlags(), shellQuote(id), every, shellQuote(tf.taskQueue), workflows.MigrateNotebookName, shellQuote(id), shellQuote(jsonText(ex)))
		}, func(ctx context.Context, _ *cobra.Command) error {
			if dryRun {
				return c.syncCreateDryRun(tf, in, every, deletes, paused)
			}
			return c.syncCreate(ctx, tf, in, every, deletes, paused)
		})
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, true)
	fs.StringVar(&in.User, "user", "", "whose notebook: the token store's user ID")
	fs.StringVar(&in.Notebook, "notebook", "", "the notebook's ID or display name (migrated already)")
	fs.StringVar(&in.NotionParent, "notion-parent", "", "the Notion page the notebook was migrated under")
	fs.StringArrayVar(&in.Include, "include", nil, "sync only this `section`; repeat for more")
	fs.StringArrayVar(&in.Exclude, "exclude", nil, "leave this `section` out; repeat for more")
	fs.StringVar(&in.Limits, "limits", "", "Graph limits profile; default: the worker's")
	fs.DurationVar(&every, "every", time.Hour, "how often a sync runs")
	fs.StringVar(&deletes, "deletes", workflows.DeletesKeep, "pages deleted in OneNote: keep (report them) or archive (move their rows to Notion's trash)")
	fs.BoolVar(&paused, "paused", false, "create the schedule paused")
	fs.Var(pageFlag{&in.AdoptNotebookPage}, "adopt-notebook-page", adoptFlagUsage)
	fs.BoolVar(&dryRun, "dry-run", false, "check the flags and show the schedule and the input its runs get; create nothing and contact nothing")
	contentFlags(fs, &in.ContentOptions)
	return cmd
}

// syncDryRunJSON is what sync create --dry-run --json prints.
type syncDryRunJSON struct {
	Type         string                 `json:"type"` // "sync-dry-run"
	ScheduleID   string                 `json:"scheduleId"`
	EverySeconds float64                `json:"everySeconds"`
	Paused       bool                   `json:"paused"`
	Input        workflows.MigrateInput `json:"input"`
}

// syncCreateDryRun checks what sync create would start and shows it: the
// schedule and its runs' input (the notebook as given: a name is looked
// up when the schedule is created). It contacts nothing.
func (c *cli) syncCreateDryRun(tf *temporalFlags, in workflows.MigrateInput, every time.Duration, deletes string, paused bool) error {
	if every < time.Second {
		return usagef("--every must be at least 1s")
	}
	in = syncInput(in, deletes)
	if err := validate(&in); err != nil {
		return err
	}
	id := workflows.SyncWorkflowID(in.User, in.Notebook)
	if c.json {
		return c.printJSON(syncDryRunJSON{Type: "sync-dry-run", ScheduleID: id, EverySeconds: every.Seconds(), Paused: paused, Input: in})
	}
	state := ""
	if paused {
		state = ", paused"
	}
	fmt.Fprintf(c.stdout, "Dry run, nothing created: schedule %s would sync notebook %q of %s every %s (deletes: %s)%s.\n",
		id, in.Notebook, in.User, every, in.Sync.Deletes, state)
	if in.AdoptNotebookPage != "" {
		fmt.Fprintf(c.stdout, "Its first run takes over Notion page %s (adoptNotebookPage), a file import's notebook page under %s, "+
			"if it finds no notebook page of its own there; a page that is no import of this notebook stops the run before it writes.\n",
			in.AdoptNotebookPage, in.NotionParent)
	}
	fmt.Fprintf(c.stdout, "Each run's input: %s\n", jsonText(in))
	return nil
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// syncCreatedJSON is what sync create --json prints.
type syncCreatedJSON struct {
	Type         string  `json:"type"` // "sync-created"
	ScheduleID   string  `json:"scheduleId"`
	EverySeconds float64 `json:"everySeconds"`
	Deletes      string  `json:"deletes"`
	Paused       bool    `json:"paused"`
}

func (c *cli) syncCreate(ctx context.Context, tf *temporalFlags, in workflows.MigrateInput, every time.Duration, deletes string, paused bool) error {
	if every < time.Second {
		return usagef("--every must be at least 1s")
	}
	in = syncInput(in, deletes)
	if err := validate(&in); err != nil {
		return err
	}
	tc, nb, err := c.prepare(ctx, tf, &in)
	if err != nil {
		return err
	}
	defer tc.Close()
	id := workflows.SyncWorkflowID(in.User, nb.ID)
	_, err = tc.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:   id,
		Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}},
		Action: &client.ScheduleWorkflowAction{ID: id, Workflow: workflows.MigrateNotebookName, Args: []any{in},
			TaskQueue:     tf.taskQueue,
			StaticSummary: fmt.Sprintf(syncSummaryPrefix+"%q of %s", nb.Name, in.User),
			TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrUser.ValueSet(in.User),
				workflows.AttrNotebook.ValueSet(nb.ID))},
		// A run that outlasts the interval is not doubled: the next one
		// is skipped.
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		Paused:  paused,
		Note:    fmt.Sprintf("created by starter sync create (deletes: %s)", in.Sync.Deletes),
	})
	var exists *serviceerror.AlreadyExists
	if errors.As(err, &exists) || errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("notebook %q of %s already has a sync schedule (%s): delete it first (\"starter sync delete --user %s --notebook %s\")",
			nb.Name, in.User, id, shellQuote(in.User), shellQuote(nb.ID))
	}
	if err != nil {
		return fmt.Errorf("create schedule %s: %w", id, err)
	}
	if c.json {
		return c.printJSON(syncCreatedJSON{Type: "sync-created", ScheduleID: id, EverySeconds: every.Seconds(), Deletes: in.Sync.Deletes, Paused: paused})
	}
	state := "runs"
	if paused {
		state = "is paused; it runs"
	}
	fmt.Fprintf(c.stdout, "Created schedule %s: notebook %q of %s %s every %s (deletes: %s).\n"+
		"See it with: temporal schedule describe %s --schedule-id %s\n",
		id, nb.Name, in.User, state, every, in.Sync.Deletes, tf.cliFlags(), shellQuote(id))
	return nil
}

// newSyncStateCmd is sync pause, resume or delete.
func newSyncStateCmd(c *cli, verb string) *cobra.Command {
	var user, notebook, id string
	var tf *temporalFlags
	summaries := map[string]string{"pause": "pause a notebook's sync schedule", "resume": "resume a paused sync schedule",
		"delete": "delete a notebook's sync schedule (Notion keeps what it holds)"}
	cliVerb := map[string]string{"pause": "toggle --pause", "resume": "toggle --unpause", "delete": "delete"}[verb]
	cmd := c.newCommand("sync "+verb, "--user U --notebook N (its name or ID; or --schedule-id S)", summaries[verb], summaries[verb]+".", func() string {
		return fmt.Sprintf("temporal schedule %s %s --schedule-id %s", cliVerb, tf.cliFlags(),
			shellQuote(orText(id, workflows.SyncWorkflowID(orText(user, "<user>"), orText(notebook, "<notebookID>")))))
	}, func(ctx context.Context, _ *cobra.Command) error {
		if id == "" && (user == "" || notebook == "") {
			return usagef("name the schedule: --user and --notebook (its name or ID), or --schedule-id")
		}
		tc, err := tf.dial(ctx)
		if err != nil {
			return err
		}
		defer tc.Close()
		if id == "" {
			if id, err = findSyncSchedule(ctx, tc, user, notebook); err != nil {
				return err
			}
		}
		h := tc.ScheduleClient().GetHandle(ctx, id)
		note := "starter sync " + verb
		switch verb {
		case "pause":
			err = h.Pause(ctx, client.SchedulePauseOptions{Note: note})
		case "resume":
			err = h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: note})
		default:
			err = h.Delete(ctx)
		}
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return fmt.Errorf("no sync schedule %s (\"starter sync list\" lists them)", id)
		}
		if err != nil {
			return fmt.Errorf("%s schedule %s: %w", verb, id, err)
		}
		if c.json {
			return c.printJSON(map[string]string{"type": "sync-" + verb, "scheduleId": id})
		}
		fmt.Fprintf(c.stdout, "Schedule %s: %s.\n", id, map[string]string{"pause": "paused", "resume": "resumed", "delete": "deleted"}[verb])
		return nil
	})
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, false)
	fs.StringVar(&user, "user", "", "whose notebook")
	fs.StringVar(&notebook, "notebook", "", "the notebook's display name or ID")
	fs.StringVar(&id, "schedule-id", "", "the schedule's ID (sync/<user>/<notebookID>)")
	return cmd
}

// syncSummaryPrefix starts a sync schedule's action summary, which names
// the notebook: Sync notebook "<name>" of <user>.
const syncSummaryPrefix = "Sync notebook "

// scheduleNotebook reads the notebook's name from a schedule's action
// summary ("" if it has none).
func scheduleNotebook(d *client.ScheduleDescription) string {
	a, ok := d.Schedule.Action.(*client.ScheduleWorkflowAction)
	if !ok || !strings.HasPrefix(a.StaticSummary, syncSummaryPrefix) {
		return ""
	}
	rest := strings.TrimPrefix(a.StaticSummary, syncSummaryPrefix)
	if q, err := strconv.QuotedPrefix(rest); err == nil {
		if name, err := strconv.Unquote(q); err == nil {
			return name
		}
	}
	return ""
}

// findSyncSchedule finds the sync schedule of user's notebook, named by
// its ID or its display name (as the schedule's summary gives it).
func findSyncSchedule(ctx context.Context, tc client.Client, user, notebook string) (string, error) {
	id := workflows.SyncWorkflowID(user, notebook)
	if _, err := tc.ScheduleClient().GetHandle(ctx, id).Describe(ctx); err == nil {
		return id, nil
	}
	it, err := tc.ScheduleClient().List(ctx, client.ScheduleListOptions{PageSize: 100})
	if err != nil {
		return "", fmt.Errorf("list schedules: %w", err)
	}
	prefix := workflows.SyncWorkflowID(user, "")
	var exact, folded, names []string
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return "", fmt.Errorf("list schedules: %w", err)
		}
		if !strings.HasPrefix(e.ID, prefix) {
			continue
		}
		d, err := tc.ScheduleClient().GetHandle(ctx, e.ID).Describe(ctx)
		if err != nil {
			return "", fmt.Errorf("describe schedule %s: %w", e.ID, err)
		}
		name := scheduleNotebook(d)
		names = append(names, fmt.Sprintf("%q (%s)", name, strings.TrimPrefix(e.ID, prefix)))
		switch {
		case name == notebook:
			exact = append(exact, e.ID)
		case strings.EqualFold(name, notebook):
			folded = append(folded, e.ID)
		}
	}
	for _, found := range [][]string{exact, folded} {
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		default:
			return "", fmt.Errorf("%d sync schedules of %s name notebook %q (%s): name one with --schedule-id",
				len(found), user, notebook, strings.Join(found, ", "))
		}
	}
	have := "none"
	if len(names) > 0 {
		have = strings.Join(names, ", ")
	}
	return "", fmt.Errorf("no sync schedule of %s for notebook %q; %s has: %s (\"starter sync list --user %s\" lists them)",
		user, notebook, user, have, shellQuote(user))
}

// syncScheduleJSON is one schedule in sync list --json.
type syncScheduleJSON struct {
	ScheduleID string    `json:"scheduleId"`
	Notebook   string    `json:"notebook,omitempty"`
	Paused     bool      `json:"paused"`
	Note       string    `json:"note,omitempty"`
	NextRuns   []string  `json:"nextRuns,omitempty"`
	LastRuns   []string  `json:"lastRuns,omitempty"`
	Created    time.Time `json:"created,omitzero"`
}

func newSyncListCmd(c *cli) *cobra.Command {
	var tf *temporalFlags
	var user string
	cmd := c.newCommand("sync list", "[--user U] [flags]", "list the sync schedules", "Lists the notebooks' sync schedules (IDs sync/...), one user's with --user.", func() string {
		return "temporal schedule list " + tf.cliFlags()
	}, func(ctx context.Context, _ *cobra.Command) error {
		prefix := "sync/"
		if user != "" {
			prefix = workflows.SyncWorkflowID(user, "")
		}
		tc, err := tf.dial(ctx)
		if err != nil {
			return err
		}
		defer tc.Close()
		it, err := tc.ScheduleClient().List(ctx, client.ScheduleListOptions{PageSize: 100})
		if err != nil {
			return fmt.Errorf("list schedules: %w", err)
		}
		var out []syncScheduleJSON
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return fmt.Errorf("list schedules: %w", err)
			}
			if !strings.HasPrefix(e.ID, prefix) {
				continue
			}
			// The listing comes from visibility, which lags a pause by
			// a moment; the schedule's own description does not.
			d, err := tc.ScheduleClient().GetHandle(ctx, e.ID).Describe(ctx)
			if err != nil {
				return fmt.Errorf("describe schedule %s: %w", e.ID, err)
			}
			s := syncScheduleJSON{ScheduleID: e.ID, Notebook: scheduleNotebook(d), Paused: d.Schedule.State.Paused,
				Note: d.Schedule.State.Note, Created: d.Info.CreatedAt}
			for _, t := range d.Info.NextActionTimes {
				s.NextRuns = append(s.NextRuns, t.UTC().Format(time.RFC3339))
			}
			for _, a := range d.Info.RecentActions {
				s.LastRuns = append(s.LastRuns, a.ActualTime.UTC().Format(time.RFC3339))
			}
			out = append(out, s)
		}
		if c.json {
			return c.printJSON(out)
		}
		if len(out) == 0 {
			fmt.Fprintln(c.stdout, "No sync schedules.")
			return nil
		}
		tw := tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SCHEDULE\tNOTEBOOK\tSTATE\tNEXT RUN\tRECENT RUNS")
		for _, s := range out {
			state, next := "active", ""
			if s.Paused {
				state = "paused"
			}
			if len(s.NextRuns) > 0 && !s.Paused {
				next = s.NextRuns[0]
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", s.ScheduleID, s.Notebook, state, next, len(s.LastRuns))
		}
		return tw.Flush()
	})
	tf = c.temporalFlags(cmd.Flags(), false)
	cmd.Flags().StringVar(&user, "user", "", "only this user's schedules")
	return cmd
}
