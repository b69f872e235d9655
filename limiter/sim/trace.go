package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// limits is the limiter's effective limits of the app's and user's
// windows (app first), and their breakers, when the run is traced.
func (r *run) limits(lim *limiter.Limiter, user string) []string {
	if r.cfg.Trace == nil {
		return nil
	}
	st := lim.State(r.now)
	out := []string{effective(st.App)}
	for _, u := range st.Users {
		if u.User == user {
			out = append(out, effective(u.ScopeUsage))
		}
	}
	return out
}

// effective is one scope's window counts and effective limits, and its
// breaker state.
func effective(s limiter.ScopeUsage) string {
	var b strings.Builder
	for i, w := range s.Windows {
		if i > 0 {
			b.WriteByte('/')
		}
		fmt.Fprintf(&b, "%d:%d", w.Used, w.Effective)
		if w.Reserve > 0 {
			fmt.Fprintf(&b, "-%d", w.Reserve)
		}
	}
	fmt.Fprintf(&b, " c%d %s", s.EffectiveConcurrency, s.Breaker.State)
	return b.String()
}

// traceRelease tells the trace of a throttle, or of a release that
// changed the limiter's effective limits, with upstream's true counts
// and limits of the user's and the app's windows.
func (r *run) traceRelease(lim *limiter.Limiter, user string, resp Response, before []string) {
	if r.cfg.Trace == nil {
		return
	}
	after := r.limits(lim, user)
	if resp.Status != 429 && slices.Equal(before, after) {
		return
	}
	what := "ok"
	if resp.Status != 200 {
		what = fmt.Sprintf("%d/%s", resp.Status, resp.Code)
	}
	if resp.Scope != limiter.ScopeUnknown {
		what += " " + resp.Scope.String()
	}
	if resp.ThrottlePercent > 0 {
		what += fmt.Sprintf(" %.0f%%", 100*resp.ThrottlePercent)
	}
	r.cfg.Trace("%s %s %s: true app %s user %s; limiter app %s -> %s; user %s -> %s",
		fmtSince(r.since()), user, what, trueCounts(r.up.app, r.now), trueCounts(r.up.user(user), r.now),
		before[0], after[0], at(before, 1), at(after, 1))
}

// traceStall tells the trace of a stall over two cooldowns.
func (r *run) traceStall(q *userQueue, stall time.Duration) {
	if r.cfg.Trace == nil || stall <= 2*r.cfg.Spec.Tuning.Cooldown.D() {
		return
	}
	r.cfg.Trace("%s %s stalled %s from %s", fmtSince(r.since()), q.id, stall.Round(time.Millisecond), fmtSince(q.idleFrom.Sub(Epoch)))
}

// trueCounts is a scope's counts over its true limits at upstream.
func trueCounts(s *scopeLimits, now time.Time) string {
	var b strings.Builder
	for i, w := range s.windows {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d/%d", w.count(now), w.limit)
	}
	return b.String()
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "-"
}

func fmtSince(d time.Duration) string { return d.Round(time.Millisecond).String() }
