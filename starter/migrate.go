package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

const migrateDescription = `Starts the MigrateNotebook workflow for one notebook and follows it with the status display
until it ends (--detach returns at once; Ctrl-C stops following, never the migration).

The input has the fields of the workflow's JSON input, as flags or as --input JSON (flags win):
user, notebook (ID or name), notionParent (a Notion page shared with the integration), include
and exclude (sections by ID, name or "Group/Section"), dryRun, limits, sectionParallelism,
pageParallelism, pagesPerRun, and the content options skipImages, skipAttachments, skipInk
(leave every image, attachment or drawing out, reported as skipped by option; a skipped image
or attachment saves its Graph request: "starter scan" shows how much) and imageAlt (drop, the
default, or caption: alt text becomes the image's caption; OneNote puts OCR text there too).
It is validated before anything starts. The workflow ID is
migrate/<user>/<notebookID>: a name is looked up in the user's last scan (a new scan runs when
the name is not in it). Running it again for a finished notebook skips the pages already in
Notion and rewrites those changed in OneNote since.`

// flagOfField names the flag of each input field, for errors.
var flagOfField = map[string]string{
	"user": "--user", "notebook": "--notebook", "notionParent": "--notion-parent", "include": "--include",
	"exclude": "--exclude", "limits": "--limits", "sectionParallelism": "--section-parallelism",
	"pageParallelism": "--page-parallelism", "pagesPerRun": "--pages-per-run", "input": "--input",
	"imageAlt": "--image-alt", "adoptNotebookPage": "--adopt-notebook-page",
}

// migrateOptions are migrate's flags but for the input's fields.
type migrateOptions struct {
	inputJSON, inputFile string
	detach               bool
	interval             time.Duration
}

func newMigrateCmd(c *cli, name, summary string) *cobra.Command {
	var in workflows.MigrateInput
	var o migrateOptions
	var tf *temporalFlags
	cmd := c.newCommand(name, "--user U --notebook N --notion-parent P [flags]", summary, migrateDescription, func() string {
		ex := in
		if ex.User == "" {
			ex.User = "<user>"
		}
		if ex.Notebook == "" {
			ex.Notebook = "<notebook ID or name>"
		}
		if ex.NotionParent == "" {
			ex.NotionParent = "<Notion page ID>"
		}
		id := workflows.NotebookWorkflowID(ex.User, "<notebookID>")
		return fmt.Sprintf("%s\n"+
			"temporal workflow query %s --workflow-id %s --name %s\n"+
			"temporal workflow result %s --workflow-id %s",
			startCommandText(tf, ex),
			tf.cliFlags(), shellQuote(id), workflows.QueryProgress, tf.cliFlags(), shellQuote(id))
	}, func(ctx context.Context, cmd *cobra.Command) error {
		return c.migrate(ctx, tf, in, given(cmd.Flags()), o)
	})
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, true)
	fs.StringVar(&in.User, "user", "", "whose notebook: the token store's user ID (\"user\")")
	fs.StringVar(&in.Notebook, "notebook", "", "the notebook's ID or display name (\"notebook\")")
	fs.StringVar(&in.NotionParent, "notion-parent", "", "ID of the Notion page, shared with the integration, the notebook goes under (\"notionParent\")")
	fs.StringArrayVar(&in.Include, "include", nil, "migrate only this `section` (ID, name or Group/Section); repeat for more (\"include\")")
	fs.StringArrayVar(&in.Exclude, "exclude", nil, "skip this `section`; repeat for more (\"exclude\")")
	fs.BoolVar(&in.DryRun, "dry-run", false, "read the notebook and list its pages, write nothing (\"dryRun\")")
	fs.StringVar(&in.Limits, "limits", "", "Graph limits profile: onenote or onenote-x<factor>; default: the worker's (\"limits\")")
	fs.IntVar(&in.SectionParallelism, "section-parallelism", 0, "sections migrated at once (default 3) (\"sectionParallelism\")")
	fs.IntVar(&in.PageParallelism, "page-parallelism", 0, "pages of a section in the pipeline at once (default 3) (\"pageParallelism\")")
	fs.IntVar(&in.PagesPerRun, "pages-per-run", 0, "pages a section handles before it continues as new (default 200) (\"pagesPerRun\")")
	fs.Var(pageFlag{&in.AdoptNotebookPage}, "adopt-notebook-page", adoptFlagUsage)
	contentFlags(fs, &in.ContentOptions)
	fs.StringVar(&o.inputJSON, "input", "", "the whole input as JSON, as temporal workflow start --input takes it")
	fs.StringVar(&o.inputFile, "input-file", "", "a file holding the input JSON")
	fs.BoolVar(&o.detach, "detach", false, "start it and return, without following")
	fs.DurationVar(&o.interval, "interval", time.Second, "how often the status display refreshes")
	return cmd
}

// startedJSON is what migrate --json prints once the migration started.
type startedJSON struct {
	Type       string `json:"type"` // "started"
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
	User       string `json:"user"`
	NotebookID string `json:"notebookId"`
	Notebook   string `json:"notebook"`
	Sections   int    `json:"sections"`
	Pages      int    `json:"pages"`
	// AdoptNotebookPage is the file import's notebook page the run takes
	// over if it finds none of its own.
	AdoptNotebookPage string `json:"adoptNotebookPage,omitempty"`
}

// migrate starts the migration of in (the flags the command line set in
// flagsGiven win over the JSON input) and follows it unless detached.
func (c *cli) migrate(ctx context.Context, tf *temporalFlags, in workflows.MigrateInput, flagsGiven map[string]bool, o migrateOptions) error {
	in, err := mergeInput(in, flagsGiven, o.inputJSON, o.inputFile)
	if err != nil {
		return err
	}
	if in.AdoptNotebookPage != "" {
		// --input may give the page's link: it is sent as its ID.
		id, err := notionPageID(in.AdoptNotebookPage)
		if err != nil {
			return usagef("adoptNotebookPage: %v (flag --adopt-notebook-page)", err)
		}
		in.AdoptNotebookPage = id
	}
	if err := validate(&in); err != nil {
		return err
	}
	if o.interval <= 0 {
		return usagef("--interval must be positive")
	}

	tc, nb, err := c.prepare(ctx, tf, &in)
	if err != nil {
		return err
	}
	defer tc.Close()
	id := workflows.NotebookWorkflowID(in.User, nb.ID)
	opts := workflows.StartOptions(tf.taskQueue, nb.ID, nb.Name, in)
	// Without it the SDK hands back the running migration as if it had
	// started it, and the input given here is silently dropped.
	opts.WorkflowExecutionErrorWhenAlreadyStarted = true
	run, err := tc.ExecuteWorkflow(ctx, opts, workflows.MigrateNotebookName, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return fmt.Errorf("a migration of notebook %q for %s is already running (%s), so nothing was started and none of "+
			"these settings were applied: follow it with \"%s\", or end it (\"%s\") and migrate again",
			nb.Name, in.User, id, tf.starter("status", "-w", id, "--follow"), tf.starter("finish", "-w", id))
	}
	if err != nil {
		return fmt.Errorf("start %s: %w", workflows.MigrateNotebookName, err)
	}
	if c.json {
		if err := c.printJSON(startedJSON{Type: "started", WorkflowID: id, RunID: run.GetRunID(), User: in.User,
			NotebookID: nb.ID, Notebook: nb.Name, Sections: len(nb.Sections), Pages: nb.Pages, AdoptNotebookPage: in.AdoptNotebookPage}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.stdout, "Started %s (run %s): notebook %q of %s, %d sections, %d pages.\n",
			id, run.GetRunID(), nb.Name, in.User, len(nb.Sections), nb.Pages)
		if in.AdoptNotebookPage != "" {
			fmt.Fprintf(c.stdout, "It takes over Notion page %s (adoptNotebookPage) if it finds no notebook page of its own under %s.\n",
				in.AdoptNotebookPage, in.NotionParent)
		}
	}
	if o.detach && c.json {
		return nil
	}
	if o.detach {
		fmt.Fprintf(c.stdout, "Follow it with:\n  %s\n  temporal workflow query %s --workflow-id %s --name %s\n",
			tf.starter("status", "-w", id, "--follow"), tf.cliFlags(), shellQuote(id), workflows.QueryProgress)
		return nil
	}
	st := &statusCmd{cli: c, tc: tc, tf: tf, id: id, scan: progress.ScanPages(nb), interval: o.interval}
	return st.follow(ctx)
}

// mergeInput lays the flags the command line set over the JSON input.
func mergeInput(flags workflows.MigrateInput, given map[string]bool, inputJSON, inputFile string) (workflows.MigrateInput, error) {
	if inputJSON != "" && inputFile != "" {
		return flags, usagef("--input and --input-file: use one")
	}
	raw := []byte(inputJSON)
	if inputFile != "" {
		b, err := os.ReadFile(inputFile)
		if err != nil {
			return flags, usagef("--input-file: %v", err)
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return flags, nil
	}
	var in workflows.MigrateInput
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return flags, usagef("--input is not a MigrateNotebook input: %v", err)
	}
	for name, apply := range map[string]func(){
		"user": func() { in.User = flags.User }, "notebook": func() { in.Notebook = flags.Notebook },
		"notion-parent": func() { in.NotionParent = flags.NotionParent }, "include": func() { in.Include = flags.Include },
		"exclude": func() { in.Exclude = flags.Exclude }, "dry-run": func() { in.DryRun = flags.DryRun },
		"limits": func() { in.Limits = flags.Limits }, "section-parallelism": func() { in.SectionParallelism = flags.SectionParallelism },
		"page-parallelism": func() { in.PageParallelism = flags.PageParallelism }, "pages-per-run": func() { in.PagesPerRun = flags.PagesPerRun },
		"skip-images": func() { in.SkipImages = flags.SkipImages }, "skip-attachments": func() { in.SkipAttachments = flags.SkipAttachments },
		"skip-ink": func() { in.SkipInk = flags.SkipInk }, "image-alt": func() { in.ImageAlt = flags.ImageAlt },
		"skip-verify": func() { in.SkipVerify = flags.SkipVerify }, "adopt-notebook-page": func() { in.AdoptNotebookPage = flags.AdoptNotebookPage },
	} {
		if given[name] {
			apply()
		}
	}
	return in, nil
}

// validate checks the input as the workflow will, and names the flag of
// a bad field.
func validate(in *workflows.MigrateInput) error { return validateWith(in, flagOfField) }

// validateWith is validate with flags naming each field's flag.
func validateWith(in *workflows.MigrateInput, flags map[string]string) error {
	err := in.Validate()
	if err == nil {
		return nil
	}
	var app *temporal.ApplicationError
	var field string
	if errors.As(err, &app) && app.Details(&field) == nil && flags[field] != "" {
		return usagef("%s (flag %s)", app.Message(), flags[field])
	}
	if app != nil {
		return usagef("%s", app.Message())
	}
	return usagef("%v", err)
}

// prepare dials Temporal and resolves in's notebook, setting in.Notebook
// to its ID, then warns when no worker polls the task queue: what migrate
// and sync create do, once the input is valid, before they start anything.
// The caller closes the client; on an error there is none to close.
func (c *cli) prepare(ctx context.Context, tf *temporalFlags, in *workflows.MigrateInput) (client.Client, *workflows.NotebookScan, error) {
	tc, err := tf.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	nb, err := c.resolveNotebook(ctx, tc, tf, *in)
	if err != nil {
		tc.Close()
		return nil, nil, err
	}
	in.Notebook = nb.ID
	c.warnNoWorker(ctx, tc, tf)
	return tc, nb, nil
}

// resolveNotebook finds the notebook in the user's last scan, scanning
// again when it is not there, so the workflow ID holds its ID.
func (c *cli) resolveNotebook(ctx context.Context, tc client.Client, tf *temporalFlags, in workflows.MigrateInput) (*workflows.NotebookScan, error) {
	res, err := lastScan(ctx, tc, in.User)
	if err != nil {
		return nil, err
	}
	if res != nil {
		if nb := findNotebook(res, in.Notebook); nb != nil {
			return nb, nil
		}
	}
	if res, err = c.scan(ctx, tc, tf, workflows.ScanInput{User: in.User, Limits: in.Limits}); err != nil {
		return nil, err
	}
	if nb := findNotebook(res, in.Notebook); nb != nil {
		return nb, nil
	}
	names := make([]string, len(res.Notebooks))
	for i, nb := range res.Notebooks {
		names[i] = fmt.Sprintf("%q (ID %s)", nb.Name, nb.ID)
	}
	avail := "none"
	if len(names) > 0 {
		avail = strings.Join(names, ", ")
	}
	return nil, fmt.Errorf("user %q has no notebook %q; the notebooks are: %s. Use one of these names or IDs in --notebook",
		in.User, in.Notebook, avail)
}

// startCommandText is the temporal CLI command that starts a migration of
// input ex, its words quoted for a shell and tf's flags after the verb.
func startCommandText(tf *temporalFlags, ex workflows.MigrateInput) string {
	args, _ := workflows.StartCommand(tf.taskQueue, "<notebookID>", "<notebook name>", ex) // an input always marshals
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	return fmt.Sprintf("temporal %s %s %s", strings.Join(quoted[:2], " "), tf.cliFlags(), strings.Join(quoted[2:], " "))
}
