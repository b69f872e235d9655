package entity

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// SendGrantsActivity is the registered name of Activities.SendGrants, the
// local activity a limiter sends one decision pass's answers with.
const SendGrantsActivity = "SendLimiterGrants"

// sendGrantsParallel bounds the signals SendGrants has in flight at once.
const sendGrantsParallel = 8

// sendGrantsTimeout bounds SendGrants: the workflow task waits for it.
const sendGrantsTimeout = 5 * time.Second

// Addressed is one requester's answer of a decision pass.
type Addressed struct {
	To  Address      `json:"to"`
	Msg GrantMessage `json:"msg"`
}

// SendResult says which answers SendGrants did not deliver, by their
// index in its input.
type SendResult struct {
	// Gone are the answers whose requester has finished (or never
	// existed): their grants are released.
	Gone []int `json:"gone,omitempty"`
	// Unsent are the answers it could not deliver for another reason (no
	// client, a timeout, the server busy): the workflow sends them itself.
	Unsent []int `json:"unsent,omitempty"`
}

// SendGrants signals each requester its answer through the client, for a
// limiter's decision pass. Run as a local activity, a pass costs the
// limiter one marker event, where a SignalExternalWorkflow per requester
// costs two events and the workflow task its result wakes. It never
// fails: what it could not deliver is in the result.
func (a *Activities) SendGrants(ctx context.Context, msgs []Addressed) (SendResult, error) {
	var res SendResult
	if a == nil || a.Client == nil {
		for i := range msgs {
			res.Unsent = append(res.Unsent, i)
		}
		return res, nil
	}
	outcome := make([]error, len(msgs))
	sem := make(chan struct{}, sendGrantsParallel)
	var wg sync.WaitGroup
	for i, m := range msgs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			outcome[i] = a.Client.SignalWorkflow(ctx, m.To.WorkflowID, m.To.RunID, SignalGrant, m.Msg)
		}()
	}
	wg.Wait()
	for i, err := range outcome {
		var nf *serviceerror.NotFound
		switch {
		case err == nil:
		case errors.As(err, &nf):
			res.Gone = append(res.Gone, i)
		default:
			res.Unsent = append(res.Unsent, i)
			activity.GetLogger(ctx).Warn("Grant signal failed; the limiter sends it itself", "requester", msgs[i].To.WorkflowID, "error", err)
		}
	}
	return res, nil
}

// send delivers a decision pass's answers: all of them with one local
// activity (SendGrants), then, from the workflow, those it could not
// deliver (signalOne). The grants of a requester that is gone are released
// on the next pass through drain. While the run winds down to continue as
// new, every answer is signalled from the workflow.
func (e *entity) send(ctx workflow.Context, out *outbox) {
	if len(out.keys) == 0 {
		return
	}
	if e.closing {
		// The task that continues as new is refused when a signal comes
		// meanwhile, and runs again from the history before it: answers
		// a local activity had sent would have reached the requesters
		// (who then release grants this run never recorded), where
		// signals are sent only with the task's completion.
		for _, to := range out.keys {
			e.signalOne(ctx, Addressed{To: to, Msg: *out.at(to)})
		}
		return
	}
	msgs := make([]Addressed, 0, len(out.keys))
	for _, to := range out.keys {
		msgs = append(msgs, Addressed{To: to, Msg: *out.at(to)})
	}
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: sendGrantsTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary:             fmt.Sprintf("Send %d requesters their grants", len(msgs)),
	})
	e.sends++
	f := workflow.ExecuteLocalActivity(lctx, SendGrantsActivity, msgs)
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer func() { e.sends-- }()
		var res SendResult
		if err := f.Get(ctx, &res); err != nil {
			// Not run (not registered on this worker) or timed out:
			// signal every requester from the workflow. A requester
			// that got it twice keeps the grant it holds.
			workflow.GetLogger(ctx).Warn("Sending grants by local activity failed; signalling each requester", "error", err)
			res = SendResult{}
			for i := range msgs {
				res.Unsent = append(res.Unsent, i)
			}
		}
		for _, i := range res.Gone {
			if len(msgs[i].Msg.Grants) > 0 {
				e.failed.Send(ctx, GrantMessage{Grants: msgs[i].Msg.Grants})
			}
		}
		for _, i := range res.Unsent {
			if i >= 0 && i < len(msgs) {
				e.signalOne(ctx, msgs[i])
			}
		}
	})
}

// signalOne signals one requester its answer from the workflow. A
// requester that cannot be reached (it finished or was terminated) gets
// its grants released on the next pass through drain.
func (e *entity) signalOne(ctx workflow.Context, m Addressed) {
	e.sends++
	f := workflow.SignalExternalWorkflow(ctx, m.To.WorkflowID, m.To.RunID, SignalGrant, m.Msg)
	workflow.Go(ctx, func(ctx workflow.Context) {
		err := f.Get(ctx, nil)
		e.sends--
		if err != nil && len(m.Msg.Grants) > 0 {
			e.failed.Send(ctx, GrantMessage{Grants: m.Msg.Grants})
		}
	})
}
