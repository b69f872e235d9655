package notion

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// fakeClock is a Clock whose Sleep advances the time at once.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if d > 0 {
		f.now = f.now.Add(d)
		f.sleeps = append(f.sleeps, d)
	}
	return nil
}

func (f *fakeClock) slept() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// quietLogger discards logs.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newTestClient returns a Client for the server at url with a fake clock
// and a fast pace.
func newTestClient(t *testing.T, url string, clock Clock) *Client {
	t.Helper()
	c, err := NewClient(Config{BaseURL: url, Token: StaticToken("secret-token"), Clock: clock,
		Pacers: NewPacers(PacerConfig{Rate: 1000, Burst: 10}, clock), Logger: quietLogger(),
		Retry: RetryPolicy{MaxAttempts: 5, BaseDelay: 10 * time.Millisecond, MaxDelay: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
