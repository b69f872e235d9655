package sim

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// propertySamples is how many small samples TestProperties runs; the
// environment's NOTEBRIDGE_PROPERTIES=N runs N full ones instead (make
// bench-limiter-properties).
const propertySamples = 300

// TestProperties runs the limiter over generated samples and holds each
// to the targets (Check). Every failure names its seed and the command
// that replays it alone.
func TestProperties(t *testing.T) {
	size, n := Small, propertySamples
	if v := os.Getenv("NOTEBRIDGE_PROPERTIES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("NOTEBRIDGE_PROPERTIES=%q: want a number of samples", v)
		}
		size = Full
	}
	t.Run(size.Name, func(t *testing.T) {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				runProperty(t, Generate(seed, size))
			})
		}
	})
}

// runProperty runs one sample and reports its violations.
func runProperty(t *testing.T, s Sample) {
	t.Helper()
	res, err := Run(s.Scenario.Config, "ours")
	if err != nil {
		t.Fatal(err)
	}
	v := Check(s, res)
	t.Logf("%s: %s; ratio %.4f, stall %s, fg p99 %s", s.Scenario.Name, s.Scenario.Description, v.Ratio, v.Stall, v.ForegroundP99)
	for _, msg := range v.Violations {
		t.Errorf("seed %d (%s): %s\nreplay: %s", s.Seed, s.Scenario.Description, msg, replay(s))
	}
}

// replay is the one-line command that runs sample s alone.
func replay(s Sample) string {
	env := ""
	if s.Size.Name == Full.Name {
		env = fmt.Sprintf("NOTEBRIDGE_PROPERTIES=%d ", s.Seed)
	}
	return fmt.Sprintf("%sgo test -count=1 -v -run 'TestProperties/%s/seed=%d$' ./limiter/sim/", env, s.Size.Name, s.Seed)
}
