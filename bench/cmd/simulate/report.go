package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/sim"
)

// report collects the table rows and the checks of every scenario.
type report struct {
	rows   []string
	checks []string
	failed int
}

const header = "| scenario | policy | pages | done at | lower bound | x bound | best feasible | x best | sent | 429 | 10003 | 5xx | retries | jobs requeued | peak window | longest without a page | max stall | fg p99 | budget | Jain | Jain (equal demand) |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"

func (rp *report) add(sc sim.Scenario, results []*sim.Result) {
	for _, r := range results {
		done := dur(r.Completion)
		if !r.Finished {
			done = "not by " + dur(r.Completion)
		}
		fg := "-"
		switch {
		case len(r.FGWaits) > 0:
			fg = sim.Percentile(r.FGWaits, 0.99).Round(time.Millisecond).String()
		case len(sc.Config.Workload.Scans) > 0:
			fg = "none served"
		}
		xb, xbest := "-", "-"
		if r.Finished {
			xb = fmt.Sprintf("%.3f", float64(r.Completion)/float64(r.LowerBound))
			xbest = fmt.Sprintf("%.3f", float64(r.Completion)/float64(r.BestFeasible))
		}
		budget := "-"
		if sc.Config.MeasureTo != 0 {
			budget = fmt.Sprintf("%.1f%%", 100*r.Budget)
		}
		jain, jainEq := "-", "-"
		if len(sc.Config.Workload.Users) > 1 {
			jain = fmt.Sprintf("%.4f", r.Jain)
		}
		if r.JainEqual > 0 {
			jainEq = fmt.Sprintf("%.4f", r.JainEqual)
		}
		rp.rows = append(rp.rows, fmt.Sprintf("| %s | %s | %d/%d | %s | %s | %s | %s | %s | %d | %d | %d | %d | %d | %d | %.0f%% | %s | %s | %s | %s | %s | %s |\n",
			sc.Name, r.Policy, r.PagesDone, r.Pages, done, dur(r.LowerBound),
			xb, dur(r.BestFeasible), xbest, r.Sent, r.Throttled, r.Concurrency, r.Failed,
			r.Retries, r.Abandoned, 100*r.PeakUsage, dur(r.LongestNoPage), r.MaxStall.Round(time.Millisecond), fg, budget, jain, jainEq))
	}
	ours, back, queue, maxMin := results[0], results[1], results[2], results[3]
	x := float64(ours.Completion) / float64(ours.LowerBound)
	if exactSpec(sc) {
		rp.check(sc, "ours: 0 upstream 429s at the exact spec", ours.Throttled+ours.Concurrency == 0,
			fmt.Sprintf("%d (max-min %d)", ours.Throttled+ours.Concurrency, maxMin.Throttled+maxMin.Concurrency))
	}
	switch sc.Name {
	case "seed":
		rp.check(sc, "ours: worst rolling-window usage <= 100%", ours.PeakUsage <= 1, fmt.Sprintf("%.1f%%", 100*ours.PeakUsage))
		rp.check(sc, "ours: completion <= 1.03x lower bound", x <= 1.03, fmt.Sprintf("%.4fx", x))
		rp.check(sc, "ours: no stall beyond what the windows force", ours.MaxStall == 0, ours.MaxStall.String())
		rp.check(sc, "queue-retry: death spiral (>= 30 min without a page)", queue.LongestNoPage >= 30*time.Minute, dur(queue.LongestNoPage))
		rp.check(sc, "backoff: wastes requests and abandons jobs", back.Abandoned > 0 && back.Sent > 2*back.Accepted,
			fmt.Sprintf("%d sent for %d accepted, %d jobs requeued", back.Sent, back.Accepted, back.Abandoned))
	case "five-users":
		rp.check(sc, "ours: Jain's index >= 0.99", ours.Jain >= 0.99, fmt.Sprintf("%.4f", ours.Jain))
	case "unequal":
		xb := float64(ours.Completion) / float64(ours.BestFeasible)
		rp.check(sc, "ours: completion <= 1.03x best feasible", ours.Finished && xb <= 1.03,
			fmt.Sprintf("%.4fx (max-min %.4fx)", xb, float64(maxMin.Completion)/float64(maxMin.BestFeasible)))
		rp.check(sc, "ours: Jain's index >= 0.99 among equal-demand users", ours.JainEqual >= 0.99,
			fmt.Sprintf("%.4f (max-min %.4f)", ours.JainEqual, maxMin.JainEqual))
	case "saturate":
		rp.check(sc, "ours: budget use >= 97%", ours.Budget >= 0.97, fmt.Sprintf("%.1f%%", 100*ours.Budget))
	case "foreground":
		p99 := sim.Percentile(ours.FGWaits, 0.99)
		rp.check(sc, "ours: budget use >= 90% with scans", ours.Budget >= 0.90, fmt.Sprintf("%.1f%%", 100*ours.Budget))
		rp.check(sc, "ours: foreground p99 wait <= 1 s", p99 <= time.Second, p99.String())
	case "scanners":
		p99 := sim.Percentile(ours.FGWaits, 0.99)
		rp.check(sc, "ours: scan p99 wait <= 1 s while migrations saturate", len(ours.FGWaits) > 0 && p99 <= time.Second,
			fmt.Sprintf("%s over %d scan requests (max-min %s)", p99, len(ours.FGWaits), sim.Percentile(maxMin.FGWaits, 0.99)))
		rp.check(sc, "ours: background budget use >= 97% once nobody scans", ours.Budget >= 0.97, fmt.Sprintf("%.1f%%", 100*ours.Budget))
	case "outage":
		amp := float64(ours.Sent) / float64(ours.Logical)
		rp.check(sc, "ours: retry amplification <= 1.1", amp <= 1.1, fmt.Sprintf("%.3f", amp))
	case "hidden":
		cool := sc.Config.Spec.Tuning.Cooldown.D()
		rp.check(sc, "ours: <= 1% throttled after the first adaptation", ours.ThrottledAfterAdapt <= 0.01, fmt.Sprintf("%.2f%%", 100*ours.ThrottledAfterAdapt))
		rp.check(sc, "ours: no stall longer than 2 cooldowns", ours.MaxStall <= 2*cool, ours.MaxStall.Round(time.Millisecond).String())
		rp.check(sc, "ours: completion <= 1.1x true-limit bound", x <= 1.1, fmt.Sprintf("%.4fx", x))
	}
}

// exactSpec reports whether upstream enforces the limits the limiter is
// given, no stricter.
func exactSpec(sc sim.Scenario) bool {
	up, spec := sc.Config.Upstream.Limits, sc.Config.Spec
	same := func(a, b limiter.ScopeSpec) bool {
		return a.Concurrency == b.Concurrency && slices.Equal(a.Windows, b.Windows)
	}
	return sc.Config.Upstream.Change == nil && same(up.User, spec.User) && same(up.App, spec.App)
}

func (rp *report) check(sc sim.Scenario, what string, ok bool, got string) {
	mark := "PASS"
	if !ok {
		mark = "FAIL"
		rp.failed++
	}
	rp.checks = append(rp.checks, fmt.Sprintf("| %s | %s | %s | %s |\n", mark, sc.Name, what, got))
}

func (rp *report) markdown(took time.Duration) string {
	var b strings.Builder
	b.WriteString("# Limiter simulation report\n\n")
	b.WriteString("Generated by `cd bench && go run ./cmd/simulate -out results`.\n\n")
	b.WriteString("## Scenarios\n\n")
	for _, sc := range sim.Scenarios() {
		fmt.Fprintf(&b, "- **%s**: %s (horizon %s).\n", sc.Name, sc.Description, dur(sc.Config.Horizon))
	}
	b.WriteString("\n## Results\n\n")
	b.WriteString(header)
	for _, r := range rp.rows {
		b.WriteString(r)
	}
	b.WriteString("\n## Checks\n\n| | scenario | bound | measured |\n|---|---|---|---|\n")
	for _, c := range rp.checks {
		b.WriteString(c)
	}
	fmt.Fprintf(&b, "\n%d check(s) failed. Simulated in %s of wall time.\n", rp.failed, took.Round(time.Second))
	return b.String()
}

// dur prints a duration in hours and minutes.
func dur(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}
