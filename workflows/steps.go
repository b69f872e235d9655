package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter/entity"
)

// stepStallAfter is how long a step of the notebook's own (reading the
// tree, creating the Notion containers, rewriting links, writing the
// report) may show no change before progress names it as stalled: twice
// the heartbeat timeout, so a lost worker is noticed, and its activity
// started again on another worker, within it.
const stepStallAfter = 2 * heartbeatTimeout

// stepWatch is when the notebook's phase last changed.
type stepWatch struct {
	phase string
	since time.Time
}

// watchSteps notes when the phase changes, for stepStall. It only
// awaits (no timer, no command), so histories replay unchanged.
func (nb *notebook) watchSteps(ctx workflow.Context) {
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			nb.step = stepWatch{phase: nb.phase, since: workflow.Now(ctx)}
			seen := nb.phase
			if err := workflow.Await(ctx, func() bool { return nb.phase != seen }); err != nil {
				return
			}
		}
	})
}

// stepStall names a step of the notebook's own that has not moved for
// stepStallAfter, and what to look at ("", "" while none has).
func (nb *notebook) stepStall() (stall, next string) {
	switch nb.phase {
	case "", PhaseWaiting, "migrating", "done", "failed", "stopped":
		return "", ""
	}
	if nb.step.phase != nb.phase || nb.step.since.IsZero() {
		return "", ""
	}
	idle := nb.now.Sub(nb.step.since)
	if idle <= stepStallAfter {
		return "", ""
	}
	id := NotebookWorkflowID(nb.in.User, nb.idOr())
	stall = fmt.Sprintf("stalled: the step %q has not moved for %s: its worker may be lost (noticed within %s, then the "+
		"step runs again on another worker), no worker may poll the task queue, or it waits for Graph permits or a slow Notion",
		nb.phase, idle.Round(time.Second), heartbeatTimeout)
	next = "see the step's activity (attempt, last heartbeat, last failure): " +
		command("temporal", "workflow", "describe", "--workflow-id", id) + "; the workers polling: " +
		command("temporal", "task-queue", "describe", "--task-queue", nb.taskQueue) + "; the Graph limiter: " +
		command("temporal", "workflow", "query", "--workflow-id", nb.dep.limiterOf(nb.in.User), "--name", entity.QueryState)
	return stall, next
}
