package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/failure"
)

// sessions keeps one Temporal session (one worker) for a section's page
// steps, and opens a new one when the worker it ran on is gone.
//
// A session context can only block the goroutine that created it, so one
// keeper goroutine (newSessions) owns the sessions: it creates them when a
// caller asks and completes them at the end, and callers run their steps
// in goroutines started from the session context.
type sessions struct {
	ctx workflow.Context
	// want asks the keeper for a new session; gen counts the keeper's
	// attempts and err is the last one's error.
	want            bool
	gen             int
	err             error
	closing, closed bool
}

// maxSessionAttempts bounds the tries to create one session; a worker killed just after it took the creation task fails it,
// and so does a deploy that leaves no worker for a while.
const maxSessionAttempts = 10

// newSessions starts a keeper goroutine from ctx. A failed session
// creation is tried again (backing off from 1 s to 1 min) before its
// error reaches the callers waiting for it.
func newSessions(ctx workflow.Context) *sessions {
	s := &sessions{}
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			if err := workflow.Await(ctx, func() bool { return s.want || s.closing }); err != nil {
				return
			}
			if s.closing {
				if s.ctx != nil {
					workflow.CompleteSession(s.ctx)
					s.ctx = nil
				}
				s.closed = true
				return
			}
			if s.ctx != nil {
				workflow.CompleteSession(s.ctx) // failed: releases it at once
				s.ctx = nil
			}
			sctx, err := workflow.CreateSession(ctx, &sessionOptions)
			for attempt, backoff := 1, time.Second; err != nil && attempt < maxSessionAttempts && ctx.Err() == nil; attempt++ {
				workflow.GetLogger(ctx).Warn("Session not created; trying again", "attempt", attempt, "error", err)
				t := workflow.NewTimerWithOptions(ctx, backoff, workflow.TimerOptions{
					Summary: fmt.Sprintf("Back off %s before creating a worker session again", backoff)})
				if t.Get(ctx, nil) != nil {
					break
				}
				backoff = min(2*backoff, time.Minute)
				sctx, err = workflow.CreateSession(ctx, &sessionOptions)
			}
			s.ctx, s.err, s.want = sctx, err, false
			s.gen++
		}
	})
	return s
}

// alive reports whether the current session can run activities.
func (s *sessions) alive() bool {
	return s.ctx != nil && workflow.GetSessionInfo(s.ctx).SessionState != workflow.SessionStateFailed
}

// get returns a context whose activities run on the session's worker,
// opening a session when there is none or the current one failed (its
// worker died or stopped answering). Block on it only by starting
// goroutines from it (workflow.Go).
func (s *sessions) get(ctx workflow.Context) (workflow.Context, error) {
	if s.alive() {
		return s.ctx, nil
	}
	gen := s.gen
	s.want = true
	if err := workflow.Await(ctx, func() bool { return s.gen != gen }); err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	return s.ctx, nil
}

// complete releases the session. ctx is the caller's context.
func (s *sessions) complete(ctx workflow.Context) {
	s.closing = true
	_ = workflow.Await(ctx, func() bool { return s.closed })
}

// workerLost reports whether a page step failed because the worker that
// held the page's staged data is gone (its session failed), or the data
// is not on the worker any more: running the page again on a (new)
// session is the remedy, not marking it failed.
func workerLost(sctx workflow.Context, err error) bool {
	if err == nil {
		return false
	}
	if info := workflow.GetSessionInfo(sctx); (info != nil && info.SessionState == workflow.SessionStateFailed) ||
		errors.Is(err, workflow.ErrSessionFailed) {
		return true
	}
	_, decision := failure.Of(err)
	return decision == failure.RunAgain
}
