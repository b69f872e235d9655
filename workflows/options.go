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
//
// The rule for a lost worker (TestLostWorkerRule walks every set): an
// activity whose worker dies is noticed within lostWorkerNotice, by its
// start-to-close timeout when that is short, else by a heartbeat timeout
// (the activities heartbeat on a ticker while they wait, see
// activities.Config.HeartbeatEvery). And the migration survives
// lostWorkers losses in a row: an activity on a worker session is run
// again on a new session by its page or pass (maxPageRuns), any other by
// its own retry policy (or, for Graph, a new permit of entity.Call).

// lostWorkerNotice is the longest a lost worker may hold an activity
// before Temporal notices and schedules it elsewhere.
const lostWorkerNotice = time.Minute

// heartbeatTimeout is the heartbeat timeout of every long activity: six
// heartbeats (activities.Config.HeartbeatEvery, 5 s) may go missing
// before the worker is taken as lost.
const heartbeatTimeout = 30 * time.Second

// lostWorkers is how many workers lost in a row the retry budget of an
// activity outside a session survives.
const lostWorkers = 3

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
// the baselines, which hold no permit, keep them. It heartbeats, so a
// worker lost mid-download is noticed before the lease ends.
func graphResourcesOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute, HeartbeatTimeout: heartbeatTimeout, Summary: summary}
}

// notionAttempts is the Temporal attempts of every Notion activity. The
// Notion client already sends each request up to
// notion.DefaultRetryPolicy().MaxAttempts times, waiting out Retry-After
// and backing off on 5xx, so the activity's own retry is only for what
// the client cannot see: the worker restarting under it, a missed
// heartbeat, or a Notion outage longer than the client's patience (one
// more round of the client's retries).
const notionAttempts = 2

// notionAloneAttempts is the Temporal attempts of a Notion activity
// outside a worker session (the layout, the rows queries, the report):
// nothing runs it again but its retry policy, so besides the one round
// of the client's retries above it survives lostWorkers lost workers.
const notionAloneAttempts = notionAttempts + lostWorkers

// notionRetry is the retry policy of the Notion activities: attempts,
// none for an error the taxonomy does not retry (failure.NotRetried: a
// validation error, the staged content gone, which runs the page again on
// a new session instead).
func notionRetry(attempts int32) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute, MaximumAttempts: attempts,
		NonRetryableErrorTypes: failure.NotRetried()}
}

// The bounds on the total sends of one upstream request, over every
// layer that retries it. They multiply, so each layer is kept as low as
// its reason allows; TestSendBounds computes them from the constants and
// fails if a layer is raised past them.
//
// A Notion request (a page's blocks, a link rewrite, the layout) is sent
// at most notion.DefaultRetryPolicy().MaxAttempts (8) times by the client
// x notionAttempts (2) activity attempts x maxPageRuns (8) runs of the
// page (or link pass) on a new worker session = 128 times. A run lost
// with its worker may have sent its requests already: the run after it
// sends them again, which the write's idempotency makes harmless (the row
// is found by its OneNote page ID and a half-written one completed, so the
// page lands once), and this bound counts every run. (The layout, the rows
// query and the report are not run again by the workflow:
// notionAloneAttempts x 8 = 40.)
//
// A Graph request is sent once per permit: at most the permits of one
// entity.Call (20, each after the limiter let it go, a throttle waiting in
// the breaker) x maxPageRuns (8) runs of the page = 160 times; a group of
// resources at most maxResourceAttempts (20) x maxPageRuns (8) = 160.
//
// An operator's retry-section runs a section again on top of these: each
// one is a person's decision.
const (
	notionSendBound = 128
	graphSendBound  = 160
)

// notionWriteOptions are for writing one page to Notion on its session:
// many paced requests (blocks in chunks, file uploads), so a long timeout
// with a heartbeat to notice a dead worker early; retried (notionRetry)
// because the write is idempotent, and run again on a new session when
// its worker is lost.
func notionWriteOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 15 * time.Minute, HeartbeatTimeout: heartbeatTimeout,
		RetryPolicy: notionRetry(notionAttempts), Summary: summary}
}

// notionReadOptions are for reading a section database's rows: paged
// queries paced with every other Notion call; reading twice is harmless.
// Outside a session, so its retries are what survive a lost worker.
func notionReadOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute, HeartbeatTimeout: heartbeatTimeout,
		RetryPolicy: notionRetry(notionAloneAttempts), Summary: summary}
}

// notionLayoutOptions are for creating (or finding) the notebook's pages
// and section databases in Notion: a few dozen paced requests, found
// again rather than created twice on a retry. Outside a session, so its
// retries are what survive a lost worker.
func notionLayoutOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, HeartbeatTimeout: heartbeatTimeout,
		RetryPolicy: notionRetry(notionAloneAttempts), Summary: summary}
}

// notionLinkOptions are for the link pass's activities on its session
// (staging the link targets, rewriting a chunk of pages): many paced
// requests each, so a long timeout with a heartbeat; rewriting a link
// twice writes the same, and the pass runs again on a new session when
// its worker is lost.
func notionLinkOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Minute, HeartbeatTimeout: heartbeatTimeout,
		RetryPolicy: notionRetry(notionAttempts), Summary: summary}
}

// notionReportOptions are for the migration report (reading every row,
// rewriting the report page) and a sync run's row passes (ApplySync,
// ReconcileStructure, its entry on the report page): as long as the link
// pass's, but outside a session, so its retries are what survive a lost
// worker; each writes the same when run twice.
func notionReportOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Minute, HeartbeatTimeout: heartbeatTimeout,
		RetryPolicy: notionRetry(notionAloneAttempts), Summary: summary}
}

// housekeepingOptions are for local chores on the worker (cleaning a
// staging directory): quick, a few retries, and a failure is only logged
// (the worker's sweep clears what is left, activities.SweepStaging).
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
