package sim

import (
	"testing"
	"time"
)

func mustRun(t *testing.T, sc Scenario, policy string) *Result {
	t.Helper()
	r, err := Run(sc.Config, policy)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s/%s: done %d/%d in %s (bound %s, x%.3f), sent %d, 429 %d, 10003 %d, 5xx %d, peak %.3f, stall %s, budget %.3f, jain %.4f, fg p99 %s",
		sc.Name, policy, r.PagesDone, r.Pages, r.Completion, r.LowerBound, ratio(r), r.Sent, r.Throttled, r.Concurrency,
		r.Failed, r.PeakUsage, r.MaxStall, r.Budget, r.Jain, Percentile(r.FGWaits, 0.99))
	return r
}

func ratio(r *Result) float64 { return float64(r.Completion) / float64(r.LowerBound) }

func TestGreedyFinish(t *testing.T) {
	spec := Seed().Config.Spec
	tests := []struct {
		n    int
		want time.Duration
	}{
		{1, 0},
		{120, 0},               // the minute's burst
		{121, time.Minute},     // then the minute window binds
		{400, 3 * time.Minute}, // 120+120+120+40
		{401, time.Hour},       // the hour window binds
		{800, time.Hour + 3*time.Minute},
	}
	for _, tc := range tests {
		if got := GreedyFinish(spec.User.Windows, tc.n); got != tc.want {
			t.Errorf("GreedyFinish(%d) = %s, want %s", tc.n, got, tc.want)
		}
	}
}

func TestOursSeedExactLimits(t *testing.T) {
	r := mustRun(t, Seed(), "ours")
	if !r.Finished {
		t.Fatal("did not finish")
	}
	if r.Throttled+r.Concurrency != 0 {
		t.Errorf("upstream throttled %d (429) + %d (10003), want 0", r.Throttled, r.Concurrency)
	}
	if r.PeakUsage > 1 {
		t.Errorf("worst rolling-window usage %.3f of a limit, want <= 1", r.PeakUsage)
	}
	if x := ratio(r); x > 1.03 {
		t.Errorf("completion %s is %.3fx the lower bound %s, want <= 1.03", r.Completion, x, r.LowerBound)
	}
	if r.MaxStall != 0 {
		t.Errorf("idle %s while the windows had room, want 0", r.MaxStall)
	}
}

func TestOursBudgetUse(t *testing.T) {
	tests := []struct {
		sc         Scenario
		minBudget  float64
		maxFGp99   time.Duration
		checkFGp99 bool
	}{
		{Saturate(), 0.97, 0, false},
		{Foreground(), 0.90, time.Second, true},
	}
	for _, tc := range tests {
		t.Run(tc.sc.Name, func(t *testing.T) {
			r := mustRun(t, tc.sc, "ours")
			if r.Budget < tc.minBudget {
				t.Errorf("budget use %.3f, want >= %.2f", r.Budget, tc.minBudget)
			}
			if r.Throttled+r.Concurrency != 0 || r.PeakUsage > 1 {
				t.Errorf("throttled %d+%d, peak %.3f", r.Throttled, r.Concurrency, r.PeakUsage)
			}
			if tc.checkFGp99 {
				if len(r.FGWaits) < 50 {
					t.Fatalf("only %d foreground requests", len(r.FGWaits))
				}
				if p := Percentile(r.FGWaits, 0.99); p > tc.maxFGp99 {
					t.Errorf("foreground p99 wait %s, want <= %s", p, tc.maxFGp99)
				}
			}
		})
	}
}

func TestOursFairness(t *testing.T) {
	r := mustRun(t, FiveUsers(), "ours")
	if r.Jain < 0.99 {
		t.Errorf("Jain's index %.4f, want >= 0.99", r.Jain)
	}
	if r.Throttled+r.Concurrency != 0 || r.PeakUsage > 1 {
		t.Errorf("throttled %d+%d, peak %.3f", r.Throttled, r.Concurrency, r.PeakUsage)
	}
	if x := ratio(r); x > 1.03 {
		t.Errorf("completion %.3fx the lower bound", x)
	}
}

func TestOursHiddenLimits(t *testing.T) {
	sc := Hidden()
	r := mustRun(t, sc, "ours")
	if !r.Finished {
		t.Fatal("did not finish")
	}
	if r.ThrottledAfterAdapt > 0.01 {
		t.Errorf("%.2f%% of requests after the first adaptation throttled, want <= 1%%", 100*r.ThrottledAfterAdapt)
	}
	if cool := sc.Config.Spec.Tuning.Cooldown.D(); r.MaxStall > 2*cool {
		t.Errorf("longest stall %s, want <= 2 cooldowns (%s)", r.MaxStall, 2*cool)
	}
	if x := ratio(r); x > 1.1 {
		t.Errorf("completion %s is %.3fx the true-limit bound %s, want <= 1.1", r.Completion, x, r.LowerBound)
	}
}

func TestOursOutageRetryBudget(t *testing.T) {
	r := mustRun(t, OutageScenario(), "ours")
	if !r.Finished {
		t.Fatal("did not finish")
	}
	if amp := float64(r.Sent) / float64(r.Logical); amp > 1.1 {
		t.Errorf("retry amplification %.3f (sent %d for %d requests), want <= 1.1", amp, r.Sent, r.Logical)
	}
	if r.Failed == 0 {
		t.Error("the outage was never hit")
	}
}

func TestBaselinesReproduceTheSeedStory(t *testing.T) {
	sc := Seed()
	sc.Config.Horizon = 2*time.Hour + 10*time.Minute
	queue := mustRun(t, sc, "queue-retry")
	if queue.LongestNoPage < 30*time.Minute {
		t.Errorf("queue retry: longest time without a page %s, want a death spiral >= 30 min", queue.LongestNoPage)
	}
	back := mustRun(t, sc, "backoff")
	if back.Abandoned == 0 || back.Sent < 2*back.Accepted {
		t.Errorf("backoff: abandoned %d, sent %d for %d accepted; want abandoned jobs and wasted requests",
			back.Abandoned, back.Sent, back.Accepted)
	}
	ours := mustRun(t, sc, "ours")
	if ours.MaxStall != 0 || ours.PagesDone < 3*max(queue.PagesDone, back.PagesDone) {
		t.Errorf("ours: stall %s, pages %d (baselines %d, %d)", ours.MaxStall, ours.PagesDone, queue.PagesDone, back.PagesDone)
	}
	// Ours waits only for the hour window: every gap without a page ends
	// when the window's oldest requests leave.
	if ours.LongestNoPage > time.Hour {
		t.Errorf("ours: %s without a page, more than the hour window forces", ours.LongestNoPage)
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := Run(FiveUsers().Config, "ours")
	b, _ := Run(FiveUsers().Config, "ours")
	if a.Completion != b.Completion || a.Sent != b.Sent || a.Jain != b.Jain {
		t.Fatalf("two runs differ: %v/%d vs %v/%d", a.Completion, a.Sent, b.Completion, b.Sent)
	}
}

func TestBestFeasible(t *testing.T) {
	spec := Seed().Config.Spec
	one := oneUser(300, 1)
	up := UpstreamConfig{Limits: spec, LatencyMin: time.Second}
	if got, want := BestFeasible(up, one), GreedyFinish(spec.User.Windows, one.Users[0].Requests())+time.Second; got != want {
		t.Errorf("one user: BestFeasible %s, want the greedy finish %s", got, want)
	}
	w := Unequal().Config.Workload
	up.LatencyMin = 0
	lb, best := LowerBound(spec, w, 0), BestFeasible(up, w)
	if best < lb {
		t.Errorf("unequal: best feasible %s below the lower bound %s", best, lb)
	}
	late := w
	late.Users = append([]UserWork(nil), w.Users...)
	late.Users[0].Start = 2 * time.Hour // the largest user starts late: the finish moves
	if b := BestFeasible(up, late); b <= best {
		t.Errorf("the largest user starting 2 h late: best feasible %s, want later than %s", b, best)
	}
	t.Logf("unequal: lower bound %s, best feasible %s", lb, best)
}

// TestWaterFillUnequal checks the limiter, told each user's remaining
// work, against unequal staggered users: it finishes within 3% of the
// best feasible schedule, equal users get equal shares, and the limiter
// told nothing of the remaining work (max-min) does not.
func TestWaterFillUnequal(t *testing.T) {
	sc := Unequal()
	fill, maxMin := mustRun(t, sc, "ours"), mustRun(t, sc, "max-min")
	x := func(r *Result) float64 { return float64(r.Completion) / float64(r.BestFeasible) }
	if !fill.Finished || x(fill) > 1.03 {
		t.Errorf("ours finished %v at %s, %.4fx the best feasible %s; want <= 1.03x", fill.Finished, fill.Completion, x(fill), fill.BestFeasible)
	}
	if fill.JainEqual < 0.99 {
		t.Errorf("ours: Jain's index among equal users %.4f, want >= 0.99", fill.JainEqual)
	}
	if fill.Throttled+fill.Concurrency != 0 {
		t.Errorf("ours: upstream throttled %d, want 0", fill.Throttled+fill.Concurrency)
	}
	if x(maxMin) <= 1.03 {
		t.Errorf("max-min finished at %.4fx the best feasible: the scenario does not tell the policies apart", x(maxMin))
	}
}

// TestScanners checks the foreground reserve that follows the demand:
// twenty people scanning while migrations saturate the app wait under a
// second at p99, and background takes at least 97% of the budget once
// nobody scans; the fixed reserve (max-min runs the same limiter) is not
// what makes the difference, so both policies must pass.
func TestScanners(t *testing.T) {
	for _, p := range []string{"ours", "max-min"} {
		r := mustRun(t, Scanners(), p)
		if len(r.FGWaits) < 500 {
			t.Fatalf("%s: only %d scan requests", p, len(r.FGWaits))
		}
		if p99 := Percentile(r.FGWaits, 0.99); p99 > time.Second {
			t.Errorf("%s: scan p99 wait %s, want <= 1s", p, p99)
		}
		if r.Budget < 0.97 {
			t.Errorf("%s: background budget use %.3f once nobody scans, want >= 0.97", p, r.Budget)
		}
		if r.Throttled+r.Concurrency != 0 {
			t.Errorf("%s: upstream throttled %d+%d, want 0", p, r.Throttled, r.Concurrency)
		}
	}
}

// TestHiddenVariantTargets runs every hidden-limit variant over two seeds
// (bench/cmd/simulate -variants runs ten) against the targets: <= 1% of
// requests throttled after the first throttle, no stall longer than two
// cooldowns, completion <= 1.03x the best feasible schedule under the true
// limits.
func TestHiddenVariantTargets(t *testing.T) {
	for _, v := range HiddenVariants(2) {
		for _, sc := range v.Seeds {
			r := mustRun(t, sc, "ours")
			cool := sc.Config.Spec.Tuning.Cooldown.D()
			x := float64(r.Completion) / float64(r.BestFeasible)
			if !r.Finished || x > 1.03 {
				t.Errorf("%s: finished %v at %.4fx the best feasible, want <= 1.03x", sc.Name, r.Finished, x)
			}
			if r.ThrottledAfterAdapt > 0.01 {
				t.Errorf("%s: %.2f%% throttled after the first throttle, want <= 1%%", sc.Name, 100*r.ThrottledAfterAdapt)
			}
			if r.MaxStall > 2*cool {
				t.Errorf("%s: stall %s, want <= %s", sc.Name, r.MaxStall, 2*cool)
			}
		}
	}
}

// TestLimitChange checks that a mid-run change reaches upstream and the
// best feasible schedule: halving every limit at 2 h makes both later.
func TestLimitChange(t *testing.T) {
	sc := FiveUsers()
	base := BestFeasible(sc.Config.Upstream, sc.Config.Workload)
	var halved Scenario
	for _, v := range HiddenVariants(1) {
		if v.Name == "halved-mid-run" {
			halved = v.Seeds[0]
		}
	}
	if halved.Config.Upstream.Change == nil {
		t.Fatal("no halved-mid-run variant")
	}
	later := BestFeasible(halved.Config.Upstream, halved.Config.Workload)
	all := sc.Config.Upstream
	all.Limits = all.Limits.Tighten(0.5)
	if !(later > base && later < BestFeasible(all, sc.Config.Workload)) {
		t.Errorf("best feasible: published %s, halved at 2 h %s, halved throughout %s; want the middle one between", base, later, BestFeasible(all, sc.Config.Workload))
	}
	r := mustRun(t, halved, "ours")
	if r.Throttled+r.Concurrency == 0 {
		t.Error("halving every limit at 2 h throttled nothing: the change did not reach upstream")
	}
}
