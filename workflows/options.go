package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/failure"
)

// The activity option sets of the workflows, one per kind of work. Each
// takes the summary shown in the Temporal UI.
//
// The rule tying them to the limiter: a Graph activity runs under a permit
// whose lease (limiter Tuning.LeaseTTL, two minutes by default) frees its
// concurrency slot if nobody releases it, so a Graph activity must end
// before its lease does. entity.WithinLease, applied by the limiter
// client to every permit, enforces that in one place: a timeout longer
// than the lease less entity.LeaseMargin is cut to it. Notion and
// housekeeping activities hold no permit.

// graphOptions are for one Graph request under a permit (a listing, a
// page's content). No retry policy: entity.Call makes one Temporal attempt
// per permit and retries with a new permit, since every upstream attempt
// needs its own. A minute is many times a slow Graph answer.
func graphOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: time.Minute, Summary: summary}
}

// graphResourcesOptions are for downloading up to maxResourceCost
// resources under one permit: the downloads run one after another, so it
// gets longer than one request, and section.resources retries the missing
// ones under a new permit. Under the limiter the five minutes are cut to
// the lease less its margin (1m45s with the default two-minute lease);
// the baselines, which hold no permit, keep them.
func graphResourcesOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute, Summary: summary}
}

// notionWriteOptions are for writing one page to Notion: many paced
// requests (blocks in chunks, file uploads), so a long timeout with a
// heartbeat to notice a dead worker early; retried because the write is
// idempotent, but not when the staged content is gone (failure.Staging:
// the page must run again from Graph on a new session).
func notionWriteOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 15 * time.Minute, HeartbeatTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute, MaximumAttempts: 6,
			NonRetryableErrorTypes: []string{failure.Staging}},
		Summary: summary,
	}
}

// notionReadOptions are for reading a section database's rows: paged
// queries paced with every other Notion call, retried a few times since
// reading twice is harmless.
func notionReadOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 5}, Summary: summary}
}

// housekeepingOptions are for local chores on the worker (cleaning a
// staging directory): quick, a few retries, and a failure is only logged.
func housekeepingOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}, Summary: summary}
}

// sessionOptions are the worker sessions a section's pages run on (the
// staged content lives on the session's worker): creation waits out a
// deploy, a session lasts at most a day, and a worker that stops
// heartbeating for 30 seconds is taken as lost, so its pages run again.
var sessionOptions = workflow.SessionOptions{
	CreationTimeout:  10 * time.Minute,
	ExecutionTimeout: 24 * time.Hour,
	HeartbeatTimeout: 30 * time.Second,
}
