package limiter

import (
	"github.com/notebridge/notebridge/internal/seconds"
	"slices"
	"strings"
	"time"
)

// WindowUsage is the use of one rate window at a time.
type WindowUsage struct {
	Per       seconds.Duration `json:"perSeconds"`
	Limit     int              `json:"limit"`     // from the spec
	Effective int              `json:"effective"` // after adaptation, foreground
	Reserve   int              `json:"reserve"`   // held back from background
	Used      int              `json:"used"`      // units inside the window now
	FreeAt    time.Time        `json:"freeAt"`    // when one more unit fits
	// Held is, in the app's windows, the room held from the background of
	// the users not held for (Snapshot.HeldFor; see
	// Limiter.computeHolds): another user's background waits while the
	// window's Used is within Held of its limit less Reserve.
	Held int `json:"held,omitempty"`
}

// BreakerInfo describes a hard breaker.
type BreakerInfo struct {
	State  string    `json:"state"`
	Until  time.Time `json:"until,omitzero"`
	Reason string    `json:"reason,omitempty"`
}

// ScopeUsage is the use of one scope.
type ScopeUsage struct {
	Windows              []WindowUsage `json:"windows"`
	Concurrency          int           `json:"concurrency"`
	EffectiveConcurrency int           `json:"effectiveConcurrency"`
	InFlight             int           `json:"inFlight"`
	Breaker              BreakerInfo   `json:"breaker"`
}

// UserUsage is one user's scope and queues.
type UserUsage struct {
	User string `json:"user"`
	ScopeUsage
	Queued [2]int `json:"queued"` // foreground, background
}

// Snapshot is the state of a Limiter for queries.
type Snapshot struct {
	At          time.Time   `json:"at"`
	Spec        string      `json:"spec,omitempty"`
	App         ScopeUsage  `json:"app"`
	Users       []UserUsage `json:"users"` // sorted by user
	Queued      [2]int      `json:"queued"`
	Leases      []Grant     `json:"leases"`
	RetryTokens float64     `json:"retryTokens"`
	// HeldFor is the users the last background pass held app room for
	// (see Limiter.computeHolds), sorted; App's windows give the room
	// (WindowUsage.Held).
	HeldFor []string `json:"heldFor,omitempty"`
}

// State returns a snapshot at now.
func (l *Limiter) State(now time.Time) Snapshot {
	n := l.clock(now)
	s := Snapshot{
		At:          time.Unix(0, n).UTC(),
		Spec:        l.st.Spec.Name,
		App:         l.usage(l.appView(), n),
		RetryTokens: l.st.RetryTokens,
	}
	for _, u := range l.st.Users {
		u.Scope.Log.advance(l.userPers, n)
		uu := UserUsage{User: u.ID, ScopeUsage: l.usage(l.userView(u), n)}
		for lane := range numLanes {
			uu.Queued[lane] = len(u.Queue[lane])
			s.Queued[lane] += len(u.Queue[lane])
		}
		s.Users = append(s.Users, uu)
	}
	slices.SortFunc(s.Users, func(a, b UserUsage) int { return strings.Compare(a.User, b.User) })
	l.snapshotHolds(&s, n)
	for _, ls := range l.st.Leases {
		s.Leases = append(s.Leases, ls.Grant)
	}
	return s
}

func (l *Limiter) usage(v scopeView, now int64) ScopeUsage {
	su := ScopeUsage{
		Concurrency:          v.spec.Concurrency,
		EffectiveConcurrency: v.effConc(Foreground, now),
		InFlight:             v.st.InFlight,
		Breaker: BreakerInfo{
			State:  v.st.Breaker.state(now).String(),
			Reason: v.st.Breaker.Reason,
		},
	}
	if v.st.Breaker.Open {
		su.Breaker.Until = time.Unix(0, v.st.Breaker.Until).UTC()
	}
	for w, win := range v.spec.Windows {
		eff := v.effLimit(w, Foreground, now)
		su.Windows = append(su.Windows, WindowUsage{
			Per:       seconds.Of(win.Per.D()),
			Limit:     win.Limit,
			Effective: eff,
			Reserve:   eff - v.effLimit(w, Background, now),
			Used:      v.st.Log.count(w),
			FreeAt:    time.Unix(0, v.st.Log.freeAt(w, v.pers[w], eff, 1, now)).UTC(),
		})
	}
	return su
}

// Holding returns the open breaker that holds user's requests at now, and
// its scope ("app" or "user"): the app's first, since it holds everyone.
// ok is false when neither is open (a half-open breaker lets its probe
// go).
func (l *Limiter) Holding(user string, now time.Time) (scope string, b BreakerInfo, ok bool) {
	n := l.clock(now)
	info := func(br *breaker) BreakerInfo {
		return BreakerInfo{State: br.state(n).String(), Reason: br.Reason, Until: time.Unix(0, br.Until).UTC()}
	}
	if br := &l.st.App.Breaker; br.state(n) == Open {
		return "app", info(br), true
	}
	if u := l.users[user]; u != nil && u.Scope.Breaker.state(n) == Open {
		return "user", info(&u.Scope.Breaker), true
	}
	return "", BreakerInfo{}, false
}

// snapshotHolds fills s's HeldFor and the app windows' Held from the
// holds of the last background pass, with the room counted at now (the
// users' logs advanced to now). Without them a user idle while the app's
// room is held for another could not be told from one idle for no reason
// (the simulator's stall diagnostic called it "other").
func (l *Limiter) snapshotHolds(s *Snapshot, now int64) {
	if len(l.holds.users) == 0 {
		return
	}
	for _, u := range l.holds.users {
		s.HeldFor = append(s.HeldFor, u.ID)
	}
	slices.Sort(s.HeldFor)
	for w, r := range l.heldRoom(now) {
		s.App.Windows[w].Held = r
	}
}
