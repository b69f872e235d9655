package limiter

import (
	"encoding/json"
	"fmt"
	"time"
)

// MarshalJSON writes the whole state of l: spec, logs, queues, leases,
// breakers, adaptive limits, retry budget and dedupe memory. A Limiter
// read back with UnmarshalJSON makes the same decisions as l.
func (l *Limiter) MarshalJSON() ([]byte, error) {
	return json.Marshal(&l.st)
}

// UnmarshalJSON replaces l with the state MarshalJSON wrote.
func (l *Limiter) UnmarshalJSON(b []byte) error {
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("limiter: decode state: %w", err)
	}
	st.Spec.Tuning = st.Spec.Tuning.withDefaults()
	if err := st.Spec.Validate(); err != nil {
		return fmt.Errorf("limiter: decode state: %w", err)
	}
	nu, na := len(st.Spec.User.Windows), len(st.Spec.App.Windows)
	if err := fixScope(&st.App, na); err != nil {
		return fmt.Errorf("limiter: decode state: app: %w", err)
	}
	for _, u := range st.Users {
		if err := fixScope(&u.Scope, nu); err != nil {
			return fmt.Errorf("limiter: decode state: user %s: %w", u.ID, err)
		}
	}
	if len(st.UserProof) != nu {
		st.UserProof = nil
	}
	if r := st.UserLowering; r != nil && (len(r.From) != nu || len(r.App) != na) {
		st.UserLowering = nil
	}
	*l = Limiter{st: st}
	l.index()
	l.st.App.Log.advance(l.appPers, l.st.Now)
	for _, u := range l.st.Users {
		u.Scope.Log.advance(l.userPers, l.st.Now)
	}
	return nil
}

func fixScope(s *scopeState, n int) error {
	if len(s.Limits) != n {
		return fmt.Errorf("%d adaptive limits for %d windows", len(s.Limits), n)
	}
	s.Log.reset(n)
	s.FG.reset(n)
	return nil
}

// SetSpec replaces the spec at now. The sliding logs are kept, so units
// already spent still count against the new limits. Adaptive limits are
// kept for windows whose length did not change and reset otherwise.
// Queued requests that no longer fit any limit stay queued; Cancel them
// if needed.
func (l *Limiter) SetSpec(spec Spec, now time.Time) error {
	spec.Tuning = spec.Tuning.withDefaults()
	if err := spec.Validate(); err != nil {
		return err
	}
	n := l.clock(now)
	old := l.st.Spec
	l.st.Spec = spec.clone()
	l.userPers = pers(spec.User.Windows)
	l.appPers = pers(spec.App.Windows)
	l.retain()
	l.st.UserProof = nil // the user windows may have changed
	l.st.UserLowering = nil
	respec(&l.st.App, old.App.Windows, spec.App.Windows, l.appPers, n)
	for _, u := range l.st.Users {
		respec(&u.Scope, old.User.Windows, spec.User.Windows, l.userPers, n)
	}
	l.orderRebuild(n)
	l.holdRebuild(n)
	return nil
}

func respec(s *scopeState, old, now []Window, p []int64, t int64) {
	limits := make([]adapted, len(now))
	for i, w := range now {
		for j, o := range old {
			if o.Per == w.Per && j < len(s.Limits) {
				limits[i] = s.Limits[j]
			}
		}
	}
	s.Limits = limits
	s.Log.reset(len(now))
	s.Log.advance(p, t)
	s.FG.reset(len(now))
	s.FG.advance(p, t)
	s.fgMemo = demandMemo{} // it was per old window
}
