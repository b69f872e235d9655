package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

const finishDescription = `Ends a migration that waits with failed or skipped sections: sends the finish update and waits
for the report, which lists what failed. The migration answers at once; it refuses while sections
still run or wait to run (finish once they have ended). A migration that already ended just has its
report printed. Migrating the notebook again later retries what failed.`

func newFinishCmd(c *cli, name, summary string) *cobra.Command {
	var tf *temporalFlags
	var target *targetFlags
	cmd := c.newCommand(name, "(-w ID | --user U [--notebook N])", summary, finishDescription, func() string {
		id := shellQuote(target.placeholder())
		return fmt.Sprintf("temporal workflow update execute %[1]s --workflow-id %[2]s --name %[3]s\n"+
			"temporal workflow result %[1]s --workflow-id %[2]s", tf.cliFlags(), id, workflows.UpdateFinish)
	}, func(ctx context.Context, _ *cobra.Command) error { return c.finish(ctx, tf, target) })
	tf = c.temporalFlags(cmd.Flags(), false)
	target = c.targetFlags(cmd.Flags())
	return cmd
}

// finish ends the target migration if it waits, and prints its outcome.
func (c *cli) finish(ctx context.Context, tf *temporalFlags, target *targetFlags) error {
	tc, ref, err := target.dial(ctx, tf)
	if err != nil {
		return err
	}
	defer tc.Close()
	id := ref.id
	g := &progress.Gatherer{Client: tc, ID: id, RunID: ref.runID}
	snap, err := gather(ctx, g)
	if err != nil {
		return err
	}
	st := &statusCmd{cli: c, tc: tc, tf: tf, id: id, runID: ref.runID}
	var answer string
	if snap.Running() {
		if answer, err = workflows.Finish(ctx, tc, id); err != nil {
			return refusal(err)
		}
		if !c.json {
			fmt.Fprintf(c.stdout, "%s: %s; waiting for its report...\n", id, answer)
		}
		var rep workflows.NotebookReport
		if err := tc.GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil && ctx.Err() != nil {
			return st.stopFollowing(false)
		}
		// The report, or how it failed, is read again below.
		if snap, err = gather(ctx, g); err != nil {
			return err
		}
	}
	if c.json {
		j := st.statusJSON(snap)
		j.Answer = answer
		if err := c.printJSON(j); err != nil {
			return err
		}
	}
	if err := st.printOutcome(snap); err != nil && snap.Report == nil {
		return err
	}
	return nil
}
