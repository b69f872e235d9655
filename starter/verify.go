package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/workflows"
)

const verifyDescription = `Checks a migrated notebook again, at any time after its migration or sync: every migrated page
is read back from Notion and compared with what its row records was written (blocks by type,
words, characters, images, ink images, files, equations, tables, links). A page a person edited
in Notion since is reported as edited, not as differing. It runs the VerifyNotebook workflow and
waits for it; it changes nothing in Notion. The notebook is the migration's (-w, or --user and
--notebook: its result names the notebook page and section databases), or --notebook-page, the
notebook's Notion page, for any notebook Note Bridge wrote. It exits 1 when a page differs.`

// verifyWorkflowID is the workflow ID of a notebook's check: one at a
// time per notebook page.
func verifyWorkflowID(notebookPageID string) string { return "verify/" + notebookPageID }

func newVerifyCmd(c *cli, name, summary string) *cobra.Command {
	var tf *temporalFlags
	var target *targetFlags
	var page string
	cmd := c.newCommand(name, "(-w ID | --user U [--notebook N] | --notebook-page P)", summary, verifyDescription, func() string {
		p := page
		if p == "" {
			p = "<notebook page id>"
		}
		return fmt.Sprintf("temporal workflow execute %s --task-queue %s --type %s --workflow-id %s --input %s",
			tf.cliFlags(), shellQuote(tf.taskQueue), workflows.VerifyNotebookName, shellQuote(verifyWorkflowID(p)),
			shellQuote(jsonText(workflows.VerifyInput{NotebookPageID: p})))
	}, func(ctx context.Context, _ *cobra.Command) error { return c.verify(ctx, tf, target, page) })
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, true)
	target = c.targetFlags(fs)
	fs.StringVar(&page, "notebook-page", "", "the notebook's Notion page ID (instead of naming its migration)")
	return cmd
}

// verify runs VerifyNotebook for the target notebook and prints what it
// found.
func (c *cli) verify(ctx context.Context, tf *temporalFlags, target *targetFlags, page string) error {
	in := workflows.VerifyInput{NotebookPageID: page}
	var tc client.Client
	var err error
	name := page
	if page == "" {
		var ref runRef
		if tc, ref, err = target.dial(ctx, tf); err != nil {
			return err
		}
		defer tc.Close()
		nb, err := endedReport(ctx, tc, tf, ref)
		if err != nil {
			return err
		}
		in.NotebookPageID, name = nb.NotebookPageID, fmt.Sprintf("%q", nb.NotebookName)
		for _, s := range nb.Sections {
			if s.DatabaseID != "" {
				in.Sections = append(in.Sections, activities.ReportSection{Path: s.Path, DatabaseID: s.DatabaseID})
			}
		}
	} else {
		if tc, err = tf.dial(ctx); err != nil {
			return err
		}
		defer tc.Close()
	}
	c.warnNoWorker(ctx, tc, tf)
	wid := verifyWorkflowID(in.NotebookPageID)
	if !c.json {
		fmt.Fprintf(c.stderr, "Checking notebook %s in Notion (workflow %s)...\n", name, wid)
	}
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: wid, TaskQueue: tf.taskQueue, StaticSummary: "Check the migrated pages of notebook " + name,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.VerifyNotebookName, in)
	if err != nil {
		return fmt.Errorf("start %s: %w", workflows.VerifyNotebookName, err)
	}
	var rep workflows.VerifyReport
	if err := run.Get(ctx, &rep); err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return fmt.Errorf("check of notebook %s: %w", name, err)
	}
	if c.json {
		if err := c.printJSON(rep); err != nil {
			return err
		}
	} else {
		printVerify(c, rep)
	}
	if rep.Differs > 0 {
		return fmt.Errorf("%d pages differ from what was written", rep.Differs)
	}
	return nil
}

func printVerify(c *cli, rep workflows.VerifyReport) {
	fmt.Fprintf(c.stdout, "%s, in %d sections.\n", rep.Message, rep.Sections)
	for _, p := range rep.NotVerified {
		var what string
		switch p.Verdict {
		case "edited":
			what = "edited in Notion since it was written"
		case "differs":
			what = "differs: " + p.Summary
		default:
			what = "not checked: " + p.Summary
		}
		fmt.Fprintf(c.stdout, "  %s / %s (%s): %s\n", p.Section, p.Title, p.NotionPageID, what)
	}
	if n := rep.Differs + rep.Edited + rep.Unverified; n > len(rep.NotVerified) {
		fmt.Fprintf(c.stdout, "  and %d more\n", n-len(rep.NotVerified))
	}
}
