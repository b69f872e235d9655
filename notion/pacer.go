package notion

import (
	"context"
	"math"
	"sync"
	"time"
)

// Pace spaces the requests of one integration token. The Client calls Wait
// before every attempt and Pause when Notion answers 429 or 529 with a
// Retry-After. Pacer is the in-process implementation; a Pace shared by
// several processes lives outside this package (see Pacing).
type Pace interface {
	// Wait blocks until one request of the token may leave, or ctx is
	// done.
	Wait(ctx context.Context) error
	// Pause holds every request of the token until until. It may report
	// the pause to others (and so take a round trip); it never fails:
	// the caller waits for until anyway.
	Pause(until time.Time)
}

// Pacing gives each integration token its Pace, by the token's
// Fingerprint, so an implementation never sees the token itself.
// *Pacers is the in-process Pacing.
type Pacing interface {
	Pace(fingerprint string) Pace
}

// PacerConfig sets the pace of requests per integration token.
type PacerConfig struct {
	// Rate is the average number of requests per second (Notion: 3).
	Rate float64
	// Burst is how many requests may leave back to back after a quiet
	// spell (at least 1).
	Burst int
}

// DefaultPacerConfig returns Notion's documented average of 3 requests a
// second, with a small burst.
func DefaultPacerConfig() PacerConfig { return PacerConfig{Rate: 3, Burst: 3} }

// Budget is an upstream limit: at most Limit requests in any interval of
// length Per.
type Budget struct {
	Limit int
	Per   time.Duration
}

// PacerConfigWithin returns the fastest PacerConfig with the given burst
// whose requests never number more than a budget's Limit in any interval
// of its Per, for every budget. A pacer that keeps a budget over every
// interval keeps it over fixed windows that reset too, as Notion's 2026
// per-connection (60 s) and per-workspace windows do. burst is lowered to
// the smallest Limit. A pacer (rate r, burst b) sends at most
// b - 1 + r*Per requests in an interval of length Per, so the rate is the
// least (Limit - b + 1) / Per. With no budget it returns
// DefaultPacerConfig.
func PacerConfigWithin(burst int, budgets ...Budget) PacerConfig {
	if len(budgets) == 0 {
		return DefaultPacerConfig()
	}
	for _, b := range budgets {
		burst = min(burst, b.Limit)
	}
	burst = max(burst, 1)
	rate := 0.0
	for i, b := range budgets {
		r := float64(max(b.Limit-burst+1, 1)) / max(b.Per, time.Millisecond).Seconds()
		if i == 0 || r < rate {
			rate = r
		}
	}
	return PacerConfig{Rate: rate, Burst: burst}
}

// Pacers is a registry of pacers, one per integration token. Every Client
// of the process that is given the same Pacers shares one pace per token,
// whatever goroutine or activity calls it: create one Pacers per process
// and pass it to every Client (Config.Pacers).
type Pacers struct {
	cfg   PacerConfig
	clock Clock

	mu     sync.Mutex
	pacers map[string]*Pacer
}

// NewPacers returns an empty registry whose pacers follow cfg and clock
// (SystemClock if nil).
func NewPacers(cfg PacerConfig, clock Clock) *Pacers {
	if clock == nil {
		clock = SystemClock{}
	}
	if cfg.Rate <= 0 {
		cfg.Rate = DefaultPacerConfig().Rate
	}
	if cfg.Burst < 1 {
		cfg.Burst = 1
	}
	return &Pacers{cfg: cfg, clock: clock, pacers: make(map[string]*Pacer)}
}

// ForToken returns the pacer of a token, creating it on first use, for
// code outside Client that calls Notion with the same token. The registry
// keys pacers by a hash of the token, never the token itself.
func (ps *Pacers) ForToken(tok string) *Pacer { return ps.forToken(tok) }

// Pace returns the pacer of the token with fingerprint fp (see
// Fingerprint), creating it on first use.
func (ps *Pacers) Pace(fp string) Pace { return ps.forFingerprint(fp) }

func (ps *Pacers) forToken(tok string) *Pacer { return ps.forFingerprint(tokenKey(tok)) }

func (ps *Pacers) forFingerprint(k string) *Pacer {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.pacers[k]
	if !ok {
		p = newPacer(ps.cfg, ps.clock)
		ps.pacers[k] = p
	}
	return p
}

// Pacer spaces the requests of one token: a generic cell rate algorithm
// (a token bucket without a timer) plus a pause that a 429's Retry-After
// sets, during which no request of the token leaves.
type Pacer struct {
	clock    Clock
	interval time.Duration // time between requests at the average rate
	tau      time.Duration // how far ahead of the schedule a burst may run

	mu          sync.Mutex
	tat         time.Time // theoretical arrival time of the next request
	pausedUntil time.Time
	pauses      int // incremented by every Pause, to notice one while asleep
}

func newPacer(cfg PacerConfig, clock Clock) *Pacer {
	// Rounded up: a rate such as 2/3 a second must not become an interval
	// a nanosecond short, which fits one request too many in a window.
	interval := time.Duration(math.Ceil(float64(time.Second) / cfg.Rate))
	return &Pacer{clock: clock, interval: interval, tau: time.Duration(cfg.Burst-1) * interval}
}

// Wait blocks until the caller may send one request, or ctx is done.
func (p *Pacer) Wait(ctx context.Context) error {
	for {
		now := p.clock.Now()
		p.mu.Lock()
		at := p.tat.Add(-p.tau)
		if at.Before(now) {
			at = now
		}
		if at.Before(p.pausedUntil) {
			at = p.pausedUntil
		}
		next := p.tat
		if next.Before(at) {
			next = at
		}
		p.tat = next.Add(p.interval)
		pauses := p.pauses
		p.mu.Unlock()

		if err := p.clock.Sleep(ctx, at.Sub(now)); err != nil {
			return err
		}
		p.mu.Lock()
		repaused := p.pauses != pauses && p.clock.Now().Before(p.pausedUntil)
		p.mu.Unlock()
		if !repaused {
			return nil
		}
	}
}

// Pause holds every request of the token until until. After the pause the
// requests resume at the average rate, without a burst, so that they do not
// all arrive together and get throttled again.
func (p *Pacer) Pause(until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if until.After(p.pausedUntil) {
		p.pausedUntil = until
	}
	if t := until.Add(p.tau); t.After(p.tat) {
		p.tat = t
	}
	p.pauses++
}

// PausedUntil reports the end of the current pause (zero if none was set).
func (p *Pacer) PausedUntil() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pausedUntil
}
