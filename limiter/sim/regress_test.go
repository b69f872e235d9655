package sim

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// knownViolations is the file of the small samples that still violate a
// target: TestProperties expects them to, and fails when one holds (take
// it off the list) or another sample breaks.
const knownViolations = "testdata/property-violations.txt"

// readKnown reads knownViolations: one seed a line, # starts a comment.
func readKnown(t *testing.T) map[uint64]bool {
	t.Helper()
	f, err := os.Open(knownViolations)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[uint64]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		seed, err := strconv.ParseUint(line, 10, 64)
		if err != nil {
			t.Fatalf("%s: %q is not a seed", knownViolations, line)
		}
		out[seed] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// saturating is five users of 200 pages each from 0, which keep the app's
// budget full for nearly four hours.
func saturating() Workload {
	w := Workload{Workers: 5}
	for i := range 5 {
		w.Users = append(w.Users, UserWork{User: fmt.Sprintf("migrator%d", i+1), Pages: Pages(200, 2, uint64(31+i))})
	}
	return w
}

// scanShape is the saturating workload with people scanning 3 requests
// every 20 minutes until 3 h, person i first at at(i).
func scanShape(name string, people int, at func(i int) time.Duration) Sample {
	w := saturating()
	for i := range people {
		w.Scans = append(w.Scans, Scan{User: fmt.Sprintf("scanner%02d", i+1), At: at(i), Every: 20 * time.Minute, Until: 3 * time.Hour, Requests: 3})
	}
	cfg := Config{Scenario: name, Workload: w, Upstream: baseUpstream(), Spec: limiter.OneNote(), Seed: 7}
	cfg.Horizon = 2*Oracle(cfg) + 6*time.Hour
	return Sample{Scenario: Scenario{Name: name, Description: name, Config: cfg}, AsSpecified: true}
}

// asSample is a named scenario as a sample.
func asSample(sc Scenario) Sample {
	up := sc.Config.Upstream
	same := up.Change == nil && (up.Limits.User.Windows == nil || sameLimits(up.Limits, sc.Config.Spec))
	return Sample{Scenario: sc, AsSpecified: same}
}

// TestRegressions runs the samples that once failed and the shapes issue
// 32 names against the targets (Check), and the scan shapes also against
// a foreground p99 of 1 s, which their demand (more than the base
// reserve) does not make Check ask. A case marked known still fails a
// target, for the reason given; it fails the test when it holds.
func TestRegressions(t *testing.T) {
	together := Unequal()
	together.Name = "unequal-together"
	for i := range together.Config.Workload.Users {
		together.Config.Workload.Users[i].Start = 0
	}
	var halved Scenario
	for _, v := range HiddenVariants(2) {
		if v.Name == "halved-mid-run" {
			halved = v.Seeds[1]
		}
	}
	tests := []struct {
		name   string
		sample Sample
		scans  bool
		known  string
	}{
		{"seven unequal users arriving together (1.155x before the holds)", asSample(together), false, ""},
		{"small-60: four users together, the largest past its hour (1.93x before the holds)", Generate(60, Small), false, ""},
		{"small-146: eleven together, two past their hour (1.94x before the holds)", Generate(146, Small), false, ""},
		{"small-285: held users refused at a hidden hour held the app's room (52 min stall)", Generate(285, Small), false, ""},
		{"small-160: a scan by a user before its migration starts (59 min stall in the measure)", Generate(160, Small), false, ""},
		{"limits halved at 2 h (56 min stalls before issue 21)", asSample(halved), false, ""},
		{"one user, every limit 30% stricter", asSample(Hidden()), false, "1.073x: the hour is found by throttles, one strike at a time"},
		{"twenty people one a minute (the scanners scenario)", scanShape("scanners-staggered-20", 20, func(i int) time.Duration { return time.Duration(i) * time.Minute }), true, ""},
		{"ten people scanning together", scanShape("scanners-together-10", 10, func(int) time.Duration { return 30 * time.Minute }), true, "the reserve forgets the demand between scans 20 minutes apart"},
		{"scans in bursts of five", scanShape("scanners-bursts-5", 10, func(i int) time.Duration { return 30*time.Minute + time.Duration(i/5)*5*time.Minute }), true, "the reserve forgets the demand between scans 20 minutes apart"},
		{"ten people staggered 2 minutes apart from 30 min", scanShape("scanners-staggered-10", 10, func(i int) time.Duration { return 30*time.Minute + time.Duration(2*i)*time.Minute }), true, "the reserve forgets the demand between scans 20 minutes apart"},
	}
	for _, tc := range tests {
		t.Run(tc.sample.Scenario.Name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(tc.sample.Scenario.Config, "ours")
			if err != nil {
				t.Fatal(err)
			}
			v := Check(tc.sample, res)
			if p99 := Percentile(res.FGWaits, 0.99); tc.scans && !v.FitsReserve && p99 > TargetForeground {
				v.Violations = append(v.Violations, Violation{SlowForeground, fmt.Sprintf("foreground p99 %s", p99)})
			}
			t.Logf("%s: ratio %.4f, stall %s, fg p99 %s, %d+%d throttles", tc.name, v.Ratio, v.Stall, v.ForegroundP99, res.Throttled, res.Concurrency)
			switch {
			case tc.known == "":
				for _, msg := range v.Violations {
					t.Errorf("%s: %s", tc.name, msg)
				}
			case len(v.Violations) == 0:
				t.Errorf("%s holds every target now: drop its known mark (%s)", tc.name, tc.known)
			default:
				t.Logf("known (%s): %s", tc.known, v.Summary())
			}
		})
	}
}
