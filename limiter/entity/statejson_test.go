package entity

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/notebridge/notebridge/internal/seconds"
	"github.com/notebridge/notebridge/limiter"
)

// TestStateJSONInSeconds: the limiter's state query, as the temporal CLI
// prints it, gives each window's length in seconds (perSeconds), not
// nanoseconds.
func TestStateJSONInSeconds(t *testing.T) {
	spec, err := limiter.Profile("onenote")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	l, err := limiter.New(spec, now)
	if err != nil {
		t.Fatal(err)
	}
	st := State{Model: l.State(now), Waiting: 2}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if bad, err := seconds.UnreadableKeys(b); err != nil || len(bad) > 0 {
		t.Errorf("durations not in seconds: %v (%v) in %s", bad, err, b)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if w := back.Model.App.Windows; len(w) == 0 || w[0].Per.D() <= 0 {
		t.Errorf("windows read back as %+v, want their lengths", w)
	}
}
