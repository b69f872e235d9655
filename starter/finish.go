package main

import (
	"context"
	"fmt"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

const finishDescription = `Ends a migration that waits with failed or skipped sections: sends the finish update and waits
for the report, which lists what failed. The migration answers at once; it refuses while sections
still run or wait to run (finish once they have ended). A migration that already ended just has its
report printed. Migrating the notebook again later retries what failed.`

func runFinish(ctx context.Context, c *cli, args []string) error {
	var tf *temporalFlags
	var target *targetFlags
	fs := c.newFlagSet("finish", "(-w ID | --user U [--notebook N])", finishDescription, func() string {
		id := shellQuote(target.placeholder())
		return fmt.Sprintf("temporal workflow update execute %[1]s --workflow-id %[2]s --name %[3]s\n"+
			"temporal workflow result %[1]s --workflow-id %[2]s", tf.cliFlags(), id, workflows.UpdateFinish)
	})
	tf = c.temporalFlags(fs, false)
	target = c.targetFlags(fs)
	if err := c.parse(fs, args); err != nil {
		return err
	}
	tc, err := tf.dial(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	id, err := target.resolve(ctx, tc)
	if err != nil {
		return err
	}
	g := &progress.Gatherer{Client: tc, ID: id}
	snap, err := gather(ctx, g)
	if err != nil {
		return err
	}
	st := &statusCmd{cli: c, tc: tc, id: id}
	if snap.Running() {
		answer, err := workflows.Finish(ctx, tc, id)
		if err != nil {
			return refusal(err)
		}
		fmt.Fprintf(c.stdout, "%s: %s; waiting for its report...\n", id, answer)
		var rep workflows.NotebookReport
		if err := tc.GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil && ctx.Err() != nil {
			return st.stopFollowing(false)
		}
		// The report, or how it failed, is read again below.
		if snap, err = gather(ctx, g); err != nil {
			return err
		}
	}
	if err := st.printOutcome(snap); err != nil && snap.Report == nil {
		return err
	}
	return nil
}
