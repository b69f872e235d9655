package sim

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// propertySamples is how many small samples TestProperties runs (fewer
// under the race detector: raceSamples); the environment's
// NOTEBRIDGE_PROPERTIES=N runs N full ones instead (make
// bench-limiter-properties runs them through bench/cmd/simulate).
const propertySamples = 300

// TestProperties runs the limiter over generated samples and holds each
// to the targets (Check). Every failure names its seed and the command
// that replays it alone.
func TestProperties(t *testing.T) {
	size, n := Small, raceSamples
	if v := os.Getenv("NOTEBRIDGE_PROPERTIES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("NOTEBRIDGE_PROPERTIES=%q: want a number of samples", v)
		}
		size = Full
	}
	known := map[uint64]bool{}
	if size.Name == Small.Name {
		known = readKnown(t)
	}
	t.Run(size.Name, func(t *testing.T) {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				runProperty(t, Generate(seed, size), known[seed])
			})
		}
	})
}

// runProperty runs one sample and reports its violations; a known
// violator (knownViolations) must still violate a target.
func runProperty(t *testing.T, s Sample, known bool) {
	t.Helper()
	cfg := s.Scenario.Config
	if os.Getenv("NOTEBRIDGE_TRACE") != "" {
		cfg.Trace = t.Logf
	}
	res, err := Run(cfg, "ours")
	if err != nil {
		t.Fatal(err)
	}
	v := Check(s, res)
	t.Logf("%s: %s; ratio %.4f, stall %s, fg p99 %s", s.Scenario.Name, s.Scenario.Description, v.Ratio, v.Stall, v.ForegroundP99)
	switch {
	case known && len(v.Violations) == 0:
		t.Errorf("seed %d holds every target now: take it off %s", s.Seed, knownViolations)
	case known:
		t.Logf("known violation (%s): %s", knownViolations, v.Summary())
	default:
		for _, msg := range v.Violations {
			t.Errorf("seed %d (%s): %s\nreplay: %s", s.Seed, s.Scenario.Description, msg, replay(s))
		}
	}
}

// replay is the one-line command that runs sample s alone (with
// NOTEBRIDGE_TRACE=1 in front, it traces the limiter's learning: see
// Config.Trace).
func replay(s Sample) string {
	env := ""
	if s.Size.Name == Full.Name {
		env = fmt.Sprintf("NOTEBRIDGE_PROPERTIES=%d ", s.Seed)
	}
	return fmt.Sprintf("%sgo test -count=1 -v -run 'TestProperties/%s/seed=%d$' ./limiter/sim/", env, s.Size.Name, s.Seed)
}
