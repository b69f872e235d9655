package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// sessions keeps one Temporal session (one worker) for a section's page
// steps, and opens a new one when the worker it ran on is gone. Only the
// section's main goroutine calls it; page goroutines are started from the
// session's context (workflow.Go), so they inherit the session and block
// on their own coroutine.
type sessions struct {
	ctx workflow.Context
}

var sessionOptions = workflow.SessionOptions{
	CreationTimeout:  10 * time.Minute,
	ExecutionTimeout: 24 * time.Hour,
	HeartbeatTimeout: 30 * time.Second,
}

// get returns a context whose activities run on the session's worker.
func (s *sessions) get(ctx workflow.Context) (workflow.Context, error) {
	if s.ctx != nil && workflow.GetSessionInfo(s.ctx).SessionState != workflow.SessionStateFailed {
		return s.ctx, nil
	}
	if s.ctx != nil {
		workflow.CompleteSession(s.ctx)
	}
	sctx, err := workflow.CreateSession(ctx, &sessionOptions)
	if err != nil {
		return nil, err
	}
	s.ctx = sctx
	return sctx, nil
}

// complete releases the session.
func (s *sessions) complete() {
	if s.ctx != nil {
		workflow.CompleteSession(s.ctx)
		s.ctx = nil
	}
}
