package limiter

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Window is one rate limit: at most Limit request units may leave in any
// rolling interval of length Per.
type Window struct {
	Limit int      `json:"limit"`
	Per   Duration `json:"per"`
}

// ScopeSpec is the table of one scope: its rate windows and its cap on
// concurrent requests.
type ScopeSpec struct {
	Windows     []Window `json:"windows"`
	Concurrency int      `json:"concurrency"`
}

// Tuning holds the knobs of the lanes, breakers, adaptation and retry
// budget. A zero duration, count or ratio means "use the default"
// (DefaultTuning), except Reserve and AdaptFloor, where zero means none.
type Tuning struct {
	// Reserve is the fraction of every window and concurrency cap held
	// back for the foreground lane; background may use the rest. The
	// concurrency reserve is always held; the window reserve only while
	// foreground work was enqueued within ReserveIdle for that scope, and
	// then, while foreground comes in each of the last two shortest
	// windows, with the room that rate will want before the window frees
	// it by itself on top (see scopeView.demand; at most half a window in
	// all).
	Reserve float64 `json:"reserve"`
	// ReserveIdle is how long after the last foreground request the
	// window reserve is kept; after that background may use the whole
	// budget. The default, a day, keeps scans quick for the whole of a
	// migration that began with a scan (the usual way to find what to
	// migrate), at the cost of the reserve's share of the budget; a
	// scope that never saw foreground work holds no window reserve.
	ReserveIdle Duration `json:"reserveIdle"`
	// LeaseTTL is how long a grant holds its concurrency slots if it is
	// never released.
	LeaseTTL Duration `json:"leaseTTL"`
	// Cooldown is the shortest time a hard breaker stays open.
	Cooldown Duration `json:"cooldown"`
	// MaxCooldown caps the cooldown after repeated failed probes.
	MaxCooldown Duration `json:"maxCooldown"`
	// InferWindow is how close together throttles of different users must
	// be for a throttle without a scope to be blamed on the app.
	InferWindow Duration `json:"inferWindow"`
	// ErrorThreshold is how many server errors in a row open the app
	// breaker.
	ErrorThreshold int `json:"errorThreshold"`
	// AdaptQuiet is how long a lowered limit stays lowered before it
	// creeps back; it doubles with each repeated lowering.
	AdaptQuiet Duration `json:"adaptQuiet"`
	// AdaptEvery is the interval between creep steps.
	AdaptEvery Duration `json:"adaptEvery"`
	// AdaptStep is the fraction of the spec limit added per creep step.
	AdaptStep float64 `json:"adaptStep"`
	// AdaptFloor is the lowest fraction of the spec limit adaptation may
	// lower a limit to.
	AdaptFloor float64 `json:"adaptFloor"`
	// RetryRatio is the retry tokens earned per successful request.
	RetryRatio float64 `json:"retryRatio"`
	// RetryBurst caps the retry tokens.
	RetryBurst float64 `json:"retryBurst"`
	// RetryProbeEvery lets one retry through this often when the retry
	// budget is empty, so retries never starve.
	RetryProbeEvery Duration `json:"retryProbeEvery"`
	// DedupeTTL is how long a finished request ID is remembered.
	DedupeTTL Duration `json:"dedupeTTL"`
	// SingleLane switches lanes off: every request is queued and granted
	// as foreground, so scans and migrations wait in one queue (fairness
	// between users still applies) and no reserve is held. It exists so
	// benchmarks can show what lanes are for; production keeps it false.
	SingleLane bool `json:"singleLane,omitempty"`
}

// Spec is the full limit table the model enforces.
type Spec struct {
	Name   string    `json:"name,omitempty"`
	User   ScopeSpec `json:"user"`
	App    ScopeSpec `json:"app"`
	Tuning Tuning    `json:"tuning"`
}

// DefaultTuning returns the tuning used when a field is zero.
func DefaultTuning() Tuning {
	return Tuning{
		Reserve:         0.025,
		ReserveIdle:     Duration(24 * time.Hour),
		LeaseTTL:        Duration(2 * time.Minute),
		Cooldown:        Duration(10 * time.Second),
		MaxCooldown:     Duration(10 * time.Minute),
		InferWindow:     Duration(5 * time.Second),
		ErrorThreshold:  5,
		AdaptQuiet:      Duration(30 * time.Minute),
		AdaptEvery:      Duration(5 * time.Minute),
		AdaptStep:       0.05,
		AdaptFloor:      0.25,
		RetryRatio:      0.1,
		RetryBurst:      10,
		RetryProbeEvery: Duration(10 * time.Second),
		DedupeTTL:       Duration(15 * time.Minute),
	}
}

// OneNote returns the documented Graph OneNote table: per user 120 a
// minute, 400 an hour and 5 at once; per app 240 a minute, 800 an hour and
// 20 at once.
func OneNote() Spec {
	return Spec{
		Name: "onenote",
		User: ScopeSpec{
			Windows:     []Window{{120, Duration(time.Minute)}, {400, Duration(time.Hour)}},
			Concurrency: 5,
		},
		App: ScopeSpec{
			Windows:     []Window{{240, Duration(time.Minute)}, {800, Duration(time.Hour)}},
			Concurrency: 20,
		},
		Tuning: DefaultTuning(),
	}
}

// Profile returns a named spec: "onenote" (the default, also for ""), or
// "onenote-xF" for the OneNote table with time running F times faster
// (in "onenote-x60" an hour lasts 60 s).
func Profile(name string) (Spec, error) {
	switch {
	case name == "" || name == "onenote":
		return OneNote(), nil
	case strings.HasPrefix(name, "onenote-x"):
		f, err := strconv.ParseFloat(strings.TrimPrefix(name, "onenote-x"), 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) { // !(f > 0) also refuses NaN
			return Spec{}, fmt.Errorf("limiter: profile %q: want onenote-x<factor> with a positive factor", name)
		}
		s := OneNote().Scale(f)
		s.Name = name
		if err := s.Validate(); err != nil {
			// A factor so large that windows collapse to a nanosecond.
			return Spec{}, fmt.Errorf("limiter: profile %q: the factor is too large: %w", name, err)
		}
		return s, nil
	}
	return Spec{}, fmt.Errorf("limiter: unknown profile %q (want onenote or onenote-x<factor>)", name)
}

// Scale returns a copy of s in which time runs factor times faster: every
// window, cooldown and quiet period is divided by factor. Limits are
// unchanged, and so are LeaseTTL and DedupeTTL: they measure how long real
// requests and resent signals take, which a faster clock for the windows
// does not shorten (a lease shorter than a Graph call would hand its
// concurrency slot to another request while the first is still in flight).
func (s Spec) Scale(factor float64) Spec {
	div := func(d Duration) Duration {
		if d == 0 {
			return 0
		}
		return Duration(math.Max(1, math.Round(float64(d)/factor)))
	}
	out := s.clone()
	out.Tuning = out.Tuning.withDefaults()
	for _, sc := range []*ScopeSpec{&out.User, &out.App} {
		for i := range sc.Windows {
			sc.Windows[i].Per = div(sc.Windows[i].Per)
		}
	}
	t := &out.Tuning
	t.ReserveIdle = div(t.ReserveIdle)
	t.Cooldown = div(t.Cooldown)
	t.MaxCooldown = div(t.MaxCooldown)
	t.InferWindow = div(t.InferWindow)
	t.AdaptQuiet = div(t.AdaptQuiet)
	t.AdaptEvery = div(t.AdaptEvery)
	t.RetryProbeEvery = div(t.RetryProbeEvery)
	if s.Name != "" {
		out.Name = fmt.Sprintf("%s-x%g", s.Name, factor)
	}
	return out
}

// Tighten returns a copy of s whose limits and caps are multiplied by
// factor (rounded down, at least 1). Simulations use it for hidden limits
// stricter than the spec.
func (s Spec) Tighten(factor float64) Spec {
	out := s.clone()
	mul := func(n int) int { return max(1, int(math.Floor(float64(n)*factor))) }
	for _, sc := range []*ScopeSpec{&out.User, &out.App} {
		for i := range sc.Windows {
			sc.Windows[i].Limit = mul(sc.Windows[i].Limit)
		}
		sc.Concurrency = mul(sc.Concurrency)
	}
	return out
}

func (s Spec) clone() Spec {
	out := s
	out.User.Windows = append([]Window(nil), s.User.Windows...)
	out.App.Windows = append([]Window(nil), s.App.Windows...)
	return out
}

func (t Tuning) withDefaults() Tuning {
	d := DefaultTuning()
	setD := func(v *Duration, def Duration) {
		if *v == 0 {
			*v = def
		}
	}
	setD(&t.ReserveIdle, d.ReserveIdle)
	setD(&t.LeaseTTL, d.LeaseTTL)
	setD(&t.Cooldown, d.Cooldown)
	setD(&t.MaxCooldown, d.MaxCooldown)
	setD(&t.InferWindow, d.InferWindow)
	setD(&t.AdaptQuiet, d.AdaptQuiet)
	setD(&t.AdaptEvery, d.AdaptEvery)
	setD(&t.RetryProbeEvery, d.RetryProbeEvery)
	setD(&t.DedupeTTL, d.DedupeTTL)
	if t.ErrorThreshold == 0 {
		t.ErrorThreshold = d.ErrorThreshold
	}
	if t.AdaptStep == 0 {
		t.AdaptStep = d.AdaptStep
	}
	if t.RetryRatio == 0 {
		t.RetryRatio = d.RetryRatio
	}
	if t.RetryBurst == 0 {
		t.RetryBurst = d.RetryBurst
	}
	return t
}

// SpecError reports an invalid spec field.
type SpecError struct {
	Field  string // e.g. "user.windows[1].per"
	Reason string
}

// Error names the field and what is wrong with it.
func (e *SpecError) Error() string {
	return "limiter: spec: " + e.Field + ": " + e.Reason
}

// Validate reports the first invalid field of s as a *SpecError.
func (s Spec) Validate() error {
	for _, sc := range []struct {
		name string
		spec ScopeSpec
	}{{"user", s.User}, {"app", s.App}} {
		if len(sc.spec.Windows) == 0 {
			return &SpecError{sc.name + ".windows", "need at least one window"}
		}
		for i, w := range sc.spec.Windows {
			f := fmt.Sprintf("%s.windows[%d]", sc.name, i)
			if w.Limit <= 0 {
				return &SpecError{f + ".limit", fmt.Sprintf("must be positive, got %d", w.Limit)}
			}
			if w.Per <= 0 {
				return &SpecError{f + ".per", fmt.Sprintf("must be positive, got %s", w.Per.D())}
			}
			for j := range i {
				if sc.spec.Windows[j].Per == w.Per {
					return &SpecError{f + ".per", fmt.Sprintf("duplicates windows[%d]", j)}
				}
			}
		}
		if sc.spec.Concurrency <= 0 {
			return &SpecError{sc.name + ".concurrency", fmt.Sprintf("must be positive, got %d", sc.spec.Concurrency)}
		}
	}
	t := s.Tuning
	if t.Reserve < 0 || t.Reserve > 0.5 {
		return &SpecError{"tuning.reserve", fmt.Sprintf("must be in [0, 0.5], got %g", t.Reserve)}
	}
	if t.AdaptStep < 0 || t.AdaptStep > 1 {
		return &SpecError{"tuning.adaptStep", fmt.Sprintf("must be in [0, 1], got %g", t.AdaptStep)}
	}
	if t.AdaptFloor < 0 || t.AdaptFloor > 1 {
		return &SpecError{"tuning.adaptFloor", fmt.Sprintf("must be in [0, 1], got %g", t.AdaptFloor)}
	}
	if t.RetryRatio < 0 || t.RetryBurst < 0 {
		return &SpecError{"tuning.retryRatio", "retry ratio and burst must not be negative"}
	}
	if t.ErrorThreshold < 0 {
		return &SpecError{"tuning.errorThreshold", "must not be negative"}
	}
	for _, d := range []struct {
		name string
		v    Duration
	}{
		{"reserveIdle", t.ReserveIdle}, {"leaseTTL", t.LeaseTTL}, {"cooldown", t.Cooldown}, {"maxCooldown", t.MaxCooldown},
		{"inferWindow", t.InferWindow}, {"adaptQuiet", t.AdaptQuiet}, {"adaptEvery", t.AdaptEvery},
		{"retryProbeEvery", t.RetryProbeEvery}, {"dedupeTTL", t.DedupeTTL},
	} {
		if d.v < 0 {
			return &SpecError{"tuning." + d.name, fmt.Sprintf("must not be negative, got %s", d.v.D())}
		}
	}
	return nil
}

// ReadSpec decodes a JSON spec from r. Fields absent from the JSON keep
// the OneNote defaults; unknown fields are an error. The result is
// validated.
func ReadSpec(r io.Reader) (Spec, error) {
	s := OneNote()
	s.Name = ""
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Spec{}, fmt.Errorf("limiter: decode spec: %w", err)
	}
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// LoadSpec reads a JSON spec file (see ReadSpec).
func LoadSpec(path string) (Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return Spec{}, fmt.Errorf("limiter: load spec: %w", err)
	}
	defer f.Close()
	s, err := ReadSpec(f)
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
