package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
)

// hiddenUser owns 6 sections of 99 pages, one image and one attachment a
// page: about 1,800 Graph requests, six and a half hours at the true
// (hidden) 280 an hour, long enough for the limits to be learnt and for
// the adapted limits to creep back and be learnt again.
func hiddenUser() User {
	return User{Name: "hidden", Spec: graph.GenSpec{Seed: 1, Owner: "hidden", Notebooks: 1, SectionsPerContainer: 6,
		PagesPerSection: 99, ImagesPerPage: 1, AttachmentsPerPage: 1}}
}

// hiddenFactor makes the emulator's limits 30% stricter than published.
const hiddenFactor = 0.7

// scenarioHidden is scenario 5: hidden limits 30% stricter than the
// spec, no throttle headers.
func (b *Bench) scenarioHidden(ctx context.Context) error {
	profile, spec := b.profile()
	u := b.users(hiddenUser())[0]
	st, err := b.H.Start(ctx, StackConfig{Name: "s5-hidden", Profile: profile, Scale: b.scale, Hidden: hiddenFactor, Users: []User{u}})
	if err != nil {
		return err
	}
	defer st.Stop()
	m, err := st.StartMigration(ctx, u.Name, MigrateOptions{})
	if err != nil {
		return err
	}
	pages := pages(u)
	if err := st.Await(ctx, []*Migration{m}, AwaitOptions{Horizon: b.wall(20 * time.Hour), Progress: b.progress(st, m, pages)}); err != nil {
		return err
	}
	log, done, spans := st.GraphLog(m.Started), st.PagesDone(m.Started), st.GraphSpans(m.Started)
	if err := st.SaveData(m.Started); err != nil {
		b.Log.Warn("raw data not saved", "error", err)
	}
	enforced := st.Graph.EnforcedLimits()
	if _, err := st.Stop(); err != nil {
		b.Log.Warn("stopping the stack", "error", err)
	}
	if !m.Completed {
		return fmt.Errorf("%s did not complete", m.ID)
	}
	completion := m.Ended.Sub(m.Started)
	trueWindows := windows(enforced.User.Windows)
	arrivals := Times(log, nil)
	accepted := Times(log, func(q Request) bool { return q.Status < 400 })
	throttled := Times(log, Request.Throttled)
	var codes = map[string]int{}
	for _, q := range log {
		if q.Throttled() {
			codes[q.Code]++
		}
	}
	after, afterThr, share := 0, 0, 0.0
	if len(throttled) > 0 {
		first := slices.Min(throttled)
		after = CountIn(arrivals, first+1, completion+time.Hour)
		afterThr = CountIn(throttled, first+1, completion+time.Hour)
		if after > 0 {
			share = float64(afterThr) / float64(after)
		}
	}
	lastGraph := slices.Max(arrivals)
	firstThrottle := lastGraph
	if len(throttled) > 0 {
		firstThrottle = slices.Min(throttled)
	}
	stall, stallAt := Stalls(spans, trueWindows, firstThrottle, lastGraph)
	cooldown := spec.Tuning.Cooldown.D()
	lb := LowerBound(trueWindows, len(accepted))
	ratio := ratio(completion, lb)
	var w strings.Builder
	fmt.Fprintf(&w, "## 5. Hidden limits 30%% stricter, no headers\n\n")
	fmt.Fprintf(&w, "The emulator enforces 70%% of the published limits (per user 84 a minute, 280 an hour, 3 at once) while the limiter "+
		"believes the published ones; 429s carry neither a scope nor a percentage header. One user migrates %d pages (6 sections, "+
		"one image and one attachment a page). The true lower bound uses the enforced windows.\n\n", pages)
	fmt.Fprintf(&w, "| pages done | completion | true lower bound | × bound | requests | 429s (20166 / 10003) | throttled after the first throttle | longest stall | 2 cooldowns |\n|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&w, "| %d/%d | %s | %s | %.3f | %d | %d (%d / %d) | %.2f%% (%d of %d) | %s | %s |\n\n", len(done), pages,
		b.fmtScaled(completion), b.fmtScaled(lb), ratio, len(arrivals), len(throttled), codes["20166"], codes["10003"],
		100*share, afterThr, after, b.fmtScaled(stall), b.fmtScaled(2*cooldown))
	var when []string
	for _, q := range log {
		if q.Throttled() && len(when) < 30 {
			when = append(when, fmt.Sprintf("%s %s", fmtDur(b.scaled(q.At)), q.Code))
		}
	}
	if len(when) > 0 {
		fmt.Fprintf(&w, "The 429s, at (scaled) time and code: %s.\n\n", strings.Join(when, ", "))
	}
	fmt.Fprintf(&w, "A stall is time, from the first throttle on, in which upstream's true windows had room, the migration had "+
		"Graph work left, no Graph request was in flight and none arrived, measured at the emulator (the longest began %s in). It includes the pipeline's own reaction time: "+
		"a window the limiter sees slide frees a unit only after a timer, and a grant reaches Graph after a signal, a workflow task "+
		"and an activity dispatch. ", b.fmtScaled(stallAt))
	if len(done) > 0 && firstThrottle > slices.Min(done) {
		floor, _ := Stalls(spans, trueWindows, slices.Min(done), firstThrottle)
		fmt.Fprintf(&w, "Before the first throttle, from the first page done on, with no breaker or adaptation involved, the "+
			"longest stall was %s: that much is the pipeline's own reaction time.", b.fmtScaled(floor))
	}
	fmt.Fprintf(&w, "\n\n![requests, 429s and pages under hidden limits](e2e-hidden.png)\n\n")
	b.sections = append(b.sections, w.String())
	b.check("5", "<= 1% of upstream requests throttled after adaptation", share <= 0.01, "%.2f%% (%d of %d after the first throttle; %d in all)",
		100*share, afterThr, after, len(throttled))
	b.check("5", "no stall longer than 2 cooldowns", stall <= 2*cooldown, "%s, 2 cooldowns = %s", b.fmtScaled(stall), b.fmtScaled(2*cooldown))
	b.check("5", "completion against the true lower bound (reported)", len(done) == pages, "%.3fx (%s for %s)", ratio, b.fmtScaled(completion), b.fmtScaled(lb))

	minute := b.wall(time.Minute)
	n := int(completion/minute) + 1
	b.plot("e2e-hidden.png", []Panel{
		{Title: "hidden limits: Graph requests per scaled minute", XLabel: "scaled hours", YLabel: "requests/min",
			Series: []Series{Steps("sent", PerBucket(arrivals, minute, n), 1.0/60), Steps("429", PerBucket(throttled, minute, n), 1.0/60)}},
		{Title: "pages done", XLabel: "scaled hours", YLabel: "pages", Series: []Series{Cumulative("ours", PerBucket(done, minute, n), 1.0/60)}},
	})
	return nil
}
