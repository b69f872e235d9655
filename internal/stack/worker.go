package stack

import (
	"context"
	"fmt"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// TaskQueue is the task queue the stack's workers poll unless told
// otherwise (the worker's default).
const TaskQueue = "notebridge"

// WorkerFlags are the worker's command line (./worker, or the bench's
// worker): the one place that spells its flags for a harness.
type WorkerFlags struct {
	TemporalAddress string
	// TaskQueue is TaskQueue if empty.
	TaskQueue  string
	App        string
	StagingDir string
	GraphURL   string
	NotionURL  string
	Limits     string
	// NotionRate is Notion's requests per second; NotionPacing "" (the
	// worker's default, shared) or "process".
	NotionRate   float64
	NotionPacing string
	// LogLevel is "" for the worker's default.
	LogLevel string
	// Tokens are the token store's flags (Accounts.WorkerArgs), or the
	// operator's own; Extra more flags (-tenant, -baseline).
	Tokens, Extra []string
}

// Args returns the flags.
func (f WorkerFlags) Args() []string {
	q := f.TaskQueue
	if q == "" {
		q = TaskQueue
	}
	args := []string{"-temporal-address", f.TemporalAddress, "-namespace", "default", "-task-queue", q,
		"-app-id", f.App, "-staging-dir", f.StagingDir, "-graph-url", f.GraphURL, "-notion-url", f.NotionURL,
		"-limits", f.Limits, "-notion-rate", strconv.FormatFloat(f.NotionRate, 'g', -1, 64)}
	if f.NotionPacing != "" {
		args = append(args, "-notion-pacing", f.NotionPacing)
	}
	if f.LogLevel != "" {
		args = append(args, "-log-level", f.LogLevel)
	}
	args = append(args, f.Tokens...)
	return append(args, f.Extra...)
}

// Limits is the Graph limits profile at a time scale: onenote-x<scale>,
// or onenote at 1.
func Limits(scale float64) string {
	if scale == 1 {
		return "onenote"
	}
	return "onenote-x" + strconv.FormatFloat(scale, 'g', -1, 64)
}

// AwaitPollers waits until a worker polls both workflow and activity
// tasks of queue, so no run's clock starts while it is still starting.
// alive, if set, reports a worker that gave up (its error ends the wait).
func AwaitPollers(ctx context.Context, c client.Client, queue string, timeout time.Duration, alive func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		if alive != nil {
			if err := alive(); err != nil {
				return err
			}
		}
		ready := true
		for _, typ := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
			resp, err := c.DescribeTaskQueue(ctx, queue, typ)
			if err != nil || len(resp.GetPollers()) == 0 {
				ready = false
			}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no worker polled %s within %v", queue, timeout)
		}
		if err := Sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}
