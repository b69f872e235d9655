package activities

import (
	"testing"
	"time"
)

// TestSignalGate checks that a workflow run is signalled a failure once
// per signalEvery, and at once when the answer changes or for another run.
func TestSignalGate(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		run, key string
		at       time.Duration
		want     bool
	}{
		{"r1", "503/service_unavailable", 0, true},
		{"r1", "503/service_unavailable", time.Second, false},
		{"r2", "503/service_unavailable", time.Second, true},
		{"r1", "502/", 2 * time.Second, true},
		{"r1", "502/", signalEvery + time.Second, false},
		{"r1", "502/", signalEvery + 2*time.Second, true},
	}
	g := &signalGate{}
	for i, s := range steps {
		if got := g.allow(s.run, s.key, t0.Add(s.at)); got != s.want {
			t.Errorf("step %d: allow(%s, %s, +%s) = %v, want %v", i, s.run, s.key, s.at, got, s.want)
		}
	}
}
