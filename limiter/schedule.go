package limiter

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PaceSpec is the limit table of a resource paced by send slots rather
// than permits (Notion: its limit is a rate per integration token, with no
// concurrency cap, users or lanes). It is data: operators override it,
// tests shrink it.
type PaceSpec struct {
	Name string `json:"name,omitempty"`
	// Windows are the rate limits: at most Limit slots in any rolling
	// interval of length Per, for every window at once.
	Windows []Window `json:"windows"`
	// Skew lengthens every window: no interval of Per+Skew holds more
	// than Limit slots, so requests that reach upstream no earlier than
	// their slot and at most Skew after it (scheduling, network, clock
	// differences between hosts) never crowd more than Limit into one
	// upstream window of Per.
	Skew Duration `json:"skew,omitempty"`
	// Lead is how far after the reservation the earliest slot is, so that
	// the answer reaches the requester before its slot begins (a
	// requester drops a slot it could only use too late).
	Lead Duration `json:"lead,omitempty"`
	// MaxBatch caps the slots one reservation may take (0: the smallest
	// window limit).
	MaxBatch int `json:"maxBatch,omitempty"`
	// Horizon is how far ahead of the reservation a slot is firm; a slot
	// further ahead is tentative and must be confirmed (Confirm) shortly
	// before it is used, so that a pause reported meanwhile revokes it.
	// 0 means every slot is firm.
	Horizon Duration `json:"horizon,omitempty"`
}

// Notion returns Notion's documented limit for one integration token: an
// average of three requests a second. The one-second window is the rate
// itself; the minute window states the average, so that an operator who
// raises the short window to allow bursts keeps the average (both are
// data: see ParsePaceWindows).
func Notion() PaceSpec {
	return PaceSpec{
		Name:    "notion",
		Windows: []Window{{3, Duration(time.Second)}, {180, Duration(time.Minute)}},
		Skew:    Duration(50 * time.Millisecond),
		Lead:    Duration(50 * time.Millisecond),
		Horizon: Duration(250 * time.Millisecond),
	}
}

// NotionAt returns Notion() with the average rate perSecond: the
// one-second window allows ceil(perSecond) requests and the minute window
// perSecond*60 (a fraction below one a second is a longer short window:
// 0.5 is 1 request per 2 s).
func NotionAt(perSecond float64) (PaceSpec, error) {
	if !(perSecond > 0) || perSecond > 1e6 {
		return PaceSpec{}, fmt.Errorf("limiter: Notion rate %g: want a positive number of requests a second", perSecond)
	}
	s := Notion()
	if perSecond == 3 {
		return s, nil
	}
	s.Name = fmt.Sprintf("notion-%gps", perSecond)
	short := Window{Limit: int(math.Ceil(perSecond)), Per: Duration(time.Second)}
	if perSecond < 1 {
		short = Window{Limit: 1, Per: Duration(float64(time.Second) / perSecond)}
	}
	s.Windows = []Window{short}
	if long := int(perSecond * 60); long > short.Limit && time.Minute > short.Per.D() {
		s.Windows = append(s.Windows, Window{Limit: long, Per: Duration(time.Minute)})
	}
	return s, s.Validate()
}

// ParsePaceWindows reads windows written as "3/1s,180/1m": limit/duration
// pairs separated by commas.
func ParsePaceWindows(v string) ([]Window, error) {
	var out []Window
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		n, per, ok := strings.Cut(part, "/")
		limit, lerr := strconv.Atoi(strings.TrimSpace(n))
		d, derr := time.ParseDuration(strings.TrimSpace(per))
		if !ok || lerr != nil || derr != nil {
			return nil, fmt.Errorf("limiter: window %q: want <limit>/<duration>, e.g. 3/1s", part)
		}
		out = append(out, Window{Limit: limit, Per: Duration(d)})
	}
	return out, nil
}

// String writes the windows as ParsePaceWindows reads them.
func (s PaceSpec) String() string {
	parts := make([]string, len(s.Windows))
	for i, w := range s.Windows {
		parts[i] = fmt.Sprintf("%d/%s", w.Limit, w.Per.D())
	}
	return strings.Join(parts, ",")
}

// Validate reports the first invalid field of s as a *SpecError.
func (s PaceSpec) Validate() error {
	if len(s.Windows) == 0 {
		return &SpecError{"windows", "need at least one window"}
	}
	for i, w := range s.Windows {
		f := fmt.Sprintf("windows[%d]", i)
		if w.Limit <= 0 {
			return &SpecError{f + ".limit", fmt.Sprintf("must be positive, got %d", w.Limit)}
		}
		if w.Per <= 0 {
			return &SpecError{f + ".per", fmt.Sprintf("must be positive, got %s", w.Per.D())}
		}
	}
	if s.Skew < 0 || s.Lead < 0 || s.MaxBatch < 0 || s.Horizon < 0 {
		return &SpecError{"skew", "skew, lead, horizon and maxBatch must not be negative"}
	}
	return nil
}

// Batch is the most slots one reservation takes: MaxBatch, or the
// smallest window limit when that is lower or MaxBatch is 0.
func (s PaceSpec) Batch() int {
	if len(s.Windows) == 0 {
		return 1
	}
	least := s.Windows[0].Limit
	for _, w := range s.Windows {
		least = min(least, w.Limit)
	}
	if s.MaxBatch > 0 {
		return min(s.MaxBatch, least)
	}
	return least
}

// Pause is a pause of a Schedule, as recorded.
type Pause struct {
	// At is when it was reported, Until when it ends.
	At    time.Time `json:"at"`
	Until time.Time `json:"until"`
	// Pending is the latest firm (or confirmed) slot handed out before
	// the pause and still ahead of At (zero if none): those slots were in
	// requesters' hands and may still be used during the pause.
	Pending time.Time `json:"pending,omitzero"`
}

// MaxPausesKept bounds how many pauses a Schedule remembers for its
// snapshot.
const MaxPausesKept = 64

// Schedule hands out send slots for one paced resource: times at which
// one request each may leave, such that no more than Limit slots fall in
// any rolling interval of any window's length (plus Skew). Like Limiter it
// is pure: it never reads the clock, every method takes now, and its state
// round-trips through JSON. A slot once handed out stays spent.
//
// Its log is the same sliding log as Limiter's (a slot at a counts in a
// window of length per at time t iff a > t-per), but it holds slots in the
// future, handed out ahead of their time, where Limiter's rolling logs
// count grants made at the model's present; so it keeps its own, a plain
// ascending list: the next slot is at least the Limit-th latest plus the
// window.
type Schedule struct {
	st scheduleState
}

type scheduleState struct {
	Spec PaceSpec `json:"spec"`
	Now  int64    `json:"now"`
	// Log holds the slots handed out, ascending, as long as a window may
	// still count them.
	Log []int64 `json:"log"`
	// PausedUntil is the end of the latest pause; Spaced is how many
	// slots after it are still spread out rather than sent together.
	PausedUntil int64   `json:"pausedUntil,omitempty"`
	Spaced      int     `json:"spaced,omitempty"`
	Pauses      []Pause `json:"pauses,omitempty"`
	// Committed is the latest slot that may be used without asking
	// again: firm when handed out, or confirmed.
	Committed int64 `json:"committed"`
}

// NewSchedule returns an empty Schedule for spec at now.
func NewSchedule(spec PaceSpec, now time.Time) (*Schedule, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec.Windows = slices.Clone(spec.Windows)
	return &Schedule{st: scheduleState{Spec: spec, Now: now.UnixNano()}}, nil
}

// Spec returns the spec in force.
func (s *Schedule) Spec() PaceSpec {
	sp := s.st.Spec
	sp.Windows = slices.Clone(sp.Windows)
	return sp
}

// SetSpec replaces the spec; slots already handed out stay counted.
func (s *Schedule) SetSpec(spec PaceSpec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	spec.Windows = slices.Clone(spec.Windows)
	s.st.Spec = spec
	return nil
}

// MaxBatch is the most slots one Reserve hands out.
func (s *Schedule) MaxBatch() int { return s.st.Spec.Batch() }

func (s *Schedule) clock(now time.Time) int64 {
	n := max(now.UnixNano(), s.st.Now)
	s.st.Now = n
	// Drop slots no window counts any more. A slot at a is inside a
	// window of length per at time t iff a > t-per; new slots are never
	// earlier than now.
	longest := int64(0)
	for _, w := range s.st.Spec.Windows {
		longest = max(longest, int64(w.Per)+int64(s.st.Spec.Skew))
	}
	drop := 0
	for drop < len(s.st.Log) && s.st.Log[drop] <= n-longest {
		drop++
	}
	s.st.Log = s.st.Log[drop:]
	return n
}

// Reserve hands out n slots (at most MaxBatch; n below 1 means 1), the
// earliest that keep every window, never before now+Lead nor during a
// pause, in ascending order. The first firm of them are firm; the rest
// lie beyond the Horizon and must be confirmed before use.
func (s *Schedule) Reserve(n int, now time.Time) (slots []time.Time, firm int) {
	t := s.clock(now)
	n = min(max(n, 1), s.MaxBatch())
	sp := &s.st.Spec
	out := make([]time.Time, 0, n)
	for range n {
		at := max(t+int64(sp.Lead), s.st.PausedUntil)
		if k := len(s.st.Log); k > 0 {
			at = max(at, s.st.Log[k-1])
		}
		for _, w := range sp.Windows {
			// The slot Limit places back must have left the window.
			if k := len(s.st.Log); k >= w.Limit {
				at = max(at, s.st.Log[k-w.Limit]+int64(w.Per)+int64(sp.Skew))
			}
		}
		if s.st.Spaced > 0 {
			// Just after a pause: one slot per interval of the average
			// rate, so the requests held back do not all arrive together
			// and get throttled again.
			if k := len(s.st.Log); k > 0 {
				at = max(at, s.st.Log[k-1]+s.interval())
			}
			s.st.Spaced--
		}
		s.st.Log = append(s.st.Log, at)
		if sp.Horizon == 0 || at-t <= int64(sp.Horizon) {
			s.st.Committed = max(s.st.Committed, at)
			firm++
		}
		out = append(out, time.Unix(0, at))
	}
	return out, firm
}

// Confirm reports whether a tentative slot handed out earlier may still
// be used: it may unless a pause reported since covers it. A confirmed
// slot is firm. A revoked slot stays counted (it may have been used by a
// requester that never asked).
func (s *Schedule) Confirm(at, now time.Time) bool {
	s.clock(now)
	a := at.UnixNano()
	if a < s.st.PausedUntil {
		return false
	}
	s.st.Committed = max(s.st.Committed, a)
	return true
}

// interval is the time between slots at the strictest window's average.
func (s *Schedule) interval() int64 {
	iv := int64(0)
	for _, w := range s.st.Spec.Windows {
		iv = max(iv, (int64(w.Per)+int64(s.st.Spec.Skew))/int64(w.Limit))
	}
	return iv
}

// Pause holds every slot not yet handed out until until (upstream's
// Retry-After); after it, slots resume one interval apart for a full
// short window. It returns the pause as recorded.
func (s *Schedule) Pause(until, now time.Time) Pause {
	t := s.clock(now)
	p := Pause{At: time.Unix(0, t), Until: until}
	if s.st.Committed > t {
		p.Pending = time.Unix(0, s.st.Committed)
	}
	if u := until.UnixNano(); u > s.st.PausedUntil {
		s.st.PausedUntil = u
		s.st.Spaced = s.MaxBatch()
	}
	s.st.Pauses = append(s.st.Pauses, p)
	if k := len(s.st.Pauses) - MaxPausesKept; k > 0 {
		s.st.Pauses = slices.Delete(s.st.Pauses, 0, k)
	}
	return p
}

// ScheduleSnapshot is a Schedule's state, for queries and tests.
type ScheduleSnapshot struct {
	Spec PaceSpec `json:"spec"`
	// InWindow counts, per window, the slots inside it at the snapshot's
	// time (slots already handed out for later are not counted).
	InWindow []int `json:"inWindow"`
	// Ahead counts slots handed out for after now.
	Ahead       int       `json:"ahead"`
	PausedUntil time.Time `json:"pausedUntil,omitzero"`
	// Pauses are the latest pauses (at most MaxPausesKept).
	Pauses []Pause `json:"pauses,omitempty"`
}

// Snapshot describes the schedule at now. It changes nothing, so a query
// may call it.
func (s *Schedule) Snapshot(now time.Time) ScheduleSnapshot {
	t := max(now.UnixNano(), s.st.Now)
	out := ScheduleSnapshot{Spec: s.Spec(), InWindow: make([]int, len(s.st.Spec.Windows)), Pauses: slices.Clone(s.st.Pauses)}
	if s.st.PausedUntil > 0 {
		out.PausedUntil = time.Unix(0, s.st.PausedUntil)
	}
	for _, at := range s.st.Log {
		if at > t {
			out.Ahead++
			continue
		}
		for i, w := range s.st.Spec.Windows {
			if at > t-int64(w.Per) {
				out.InWindow[i]++
			}
		}
	}
	return out
}

// MarshalJSON saves the whole state.
func (s *Schedule) MarshalJSON() ([]byte, error) { return json.Marshal(s.st) }

// UnmarshalJSON restores a state saved by MarshalJSON.
func (s *Schedule) UnmarshalJSON(b []byte) error {
	var st scheduleState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("limiter: schedule state: %w", err)
	}
	if err := st.Spec.Validate(); err != nil {
		return err
	}
	s.st = st
	return nil
}
