package activities

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/notebridge/notebridge/notion"
)

// SignalUpstreamFailing is the signal a Notion activity sends the
// workflow that runs it while the Notion client retries a failing
// request, so the workflow's health names an outage within seconds
// instead of once the client gives up (minutes later). Its argument is an
// UpstreamFailure. The workflow marks the failure past once a Notion
// activity succeeds.
const SignalUpstreamFailing = "upstream-failing"

// signalEvery is how often, at most, the activities of one workflow run
// signal it the same failure again: the first one names the outage, the
// rest would only grow its history.
const signalEvery = 30 * time.Second

// maxFailureText bounds the message of an UpstreamFailure.
const maxFailureText = 300

// UpstreamFailure is a failed attempt of an upstream request that is
// being retried: the service ("Notion"), its answer and when. It is the
// argument of SignalUpstreamFailing and the heartbeat details of a Notion
// activity while it retries (temporal workflow describe shows them on
// the pending activity).
type UpstreamFailure struct {
	Service string `json:"service"`
	// Status is the HTTP status (0: no answer) and Code Notion's error
	// code ("service_unavailable").
	Status  int    `json:"status,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	// Activity is the activity that saw it, Attempt the client's attempt
	// of the request (from 1).
	Activity string    `json:"activity"`
	Attempt  int       `json:"attempt"`
	At       time.Time `json:"at"`
}

// Signaler sends a signal to a workflow; client.Client is one.
type Signaler interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg interface{}) error
}

// signalGate remembers, per workflow run, the failure last signalled and
// when, so that the activities of one run signal it at most once per
// signalEvery for the same answer.
type signalGate struct {
	mu   sync.Mutex
	last map[string]gateEntry
}

type gateEntry struct {
	key string
	at  time.Time
}

// allow reports whether run should be signalled failure key at now, and
// remembers it if so.
func (g *signalGate) allow(run, key string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.last == nil {
		g.last = map[string]gateEntry{}
	}
	for r, e := range g.last {
		if now.Sub(e.at) >= signalEvery {
			delete(g.last, r)
		}
	}
	if e, ok := g.last[run]; ok && e.key == key {
		return false
	}
	g.last[run] = gateEntry{key: key, at: now}
	return true
}

// notionWatch is what a Notion activity knows of its failing requests.
type notionWatch struct {
	mu   sync.Mutex
	last *UpstreamFailure
}

// failure is the last failed attempt seen, or nil.
func (w *notionWatch) failure() *UpstreamFailure {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		return nil
	}
	c := *w.last
	return &c
}

// watchNotion returns a context whose Notion requests report each failed
// attempt the client retries: kept for the heartbeat details, and
// signalled to the activity's workflow (Config.Signals, through the gate).
// Outside an activity it returns ctx as it is.
func (a *Activities) watchNotion(ctx context.Context) (context.Context, *notionWatch) {
	w := &notionWatch{}
	if !activity.IsActivity(ctx) {
		return ctx, w
	}
	info := activity.GetInfo(ctx)
	return notion.WithRetryObserver(ctx, func(r notion.Retry) {
		f := UpstreamFailure{Service: "Notion", Status: r.Status, Code: r.Code, Activity: info.ActivityType.Name,
			Attempt: r.Attempt, At: r.At.UTC()}
		if r.Err != nil {
			f.Message = clipRunes(r.Err.Error(), maxFailureText)
		}
		w.mu.Lock()
		w.last = &f
		w.mu.Unlock()
		if a.cfg.Signals == nil {
			return
		}
		run := info.WorkflowExecution
		if !a.gate.allow(run.RunID, fmt.Sprintf("%d/%s", f.Status, f.Code), time.Now()) {
			return
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		// The run that scheduled the activity; one gone has nobody to tell.
		if err := a.cfg.Signals.SignalWorkflow(sctx, run.ID, run.RunID, SignalUpstreamFailing, f); err != nil {
			activity.GetLogger(ctx).Warn("Upstream failure not signalled to the workflow", "error", err)
		}
	}), w
}

// clipRunes cuts s to n runes, an ellipsis marking the cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
