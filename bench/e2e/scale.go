package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/limiter"
)

// Scenario 6's shape.
const (
	scaleSections           = 20
	scaleSectionParallelism = 10
	scalePageParallelism    = 8
)

// raisedSpec is a limiter spec no run reaches, so Temporal and the
// worker, not the budget, set the pace.
func raisedSpec() limiter.Spec {
	s := limiter.OneNote()
	s.Name = "raised"
	s.User = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 1_000_000, Per: limiter.Duration(time.Minute)},
		{Limit: 10_000_000, Per: limiter.Duration(time.Hour)}}, Concurrency: 1000}
	s.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 1_000_000, Per: limiter.Duration(time.Minute)},
		{Limit: 10_000_000, Per: limiter.Duration(time.Hour)}}, Concurrency: 1000}
	return s
}

// scenarioScale is scenario 6: a 10,000-page notebook with limits raised
// out of the way.
func (b *Bench) scenarioScale(ctx context.Context) error {
	pages := b.Opts.ScalePages
	per := max(1, pages/scaleSections)
	u := User{Name: "bulk", Spec: graph.GenSpec{Seed: 1, Owner: "bulk", Notebooks: 1, SectionsPerContainer: pages / per,
		PagesPerSection: per, ImagesPerPage: 1, AttachmentsPerPage: 1}}
	pages = u.Spec.SectionsPerContainer * per
	unlimited := graph.UnlimitedLimits()
	spec := raisedSpec()
	st, err := b.H.Start(ctx, StackConfig{Name: "s6-scale", Profile: "onenote", Scale: 1, GraphLimits: &unlimited,
		LimiterSpec: &spec, Users: []User{u}})
	if err != nil {
		return err
	}
	defer st.Stop()
	temporalPID := childPID("temporal")
	var tu0 Usage
	if temporalPID > 0 {
		tu0, _ = ReadUsage(temporalPID)
	}
	u0, err := st.Worker.Usage()
	if err != nil {
		return err
	}
	st.Worker.StartSampling(time.Second)
	m, err := st.StartMigration(ctx, u.Name, MigrateOptions{SectionParallelism: scaleSectionParallelism, PageParallelism: scalePageParallelism})
	if err != nil {
		return err
	}
	if err := st.Await(ctx, []*Migration{m}, AwaitOptions{Horizon: b.Opts.ScaleHorizon, Poll: time.Second, Progress: b.progress(st, m, pages)}); err != nil {
		return err
	}
	u1, err := st.Worker.Usage()
	if err != nil {
		return err
	}
	var tu1 Usage
	if temporalPID > 0 {
		tu1, _ = ReadUsage(temporalPID)
	}
	samples := st.Worker.Samples()
	done := st.PagesDone(m.Started)
	log := st.GraphLog(m.Started)
	b.Log.Info("reading every history")
	hist, err := st.ReadHistories(ctx)
	if err != nil {
		return err
	}
	final, err := st.Stop()
	if err != nil {
		b.Log.Warn("stopping the stack", "error", err)
	}
	// A run that did not finish within the horizon is reported as far as
	// it got (its rate over the pages it did), and fails its check.
	completion := m.Ended.Sub(m.Started)
	cpu := u1.CPU - u0.CPU
	hwm := max(u1.HWM, final.HWM)
	rate := float64(len(done)) / completion.Seconds()
	a := hist.Actions()
	perPage := func(n int) float64 { return float64(n) / float64(max(1, len(done))) }
	longest := 0
	for _, n := range hist.Longest {
		longest = max(longest, n)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "## 6. Cost at scale\n\n")
	fmt.Fprintf(&w, "One notebook of %d pages (%d sections, one image and one attachment a page: %d Graph requests, %d permits) "+
		"with the limits raised out of reach (the emulator unlimited, the limiter started with %s per minute and %d at once), "+
		"%d sections and %d pages a section at a time, so Temporal and the worker set the pace. Wall-clock times; the worker's "+
		"figures are its own process (VmHWM and user+system CPU from /proc), the limiter entity included.\n\n",
		pages, u.Spec.SectionsPerContainer, len(log), pages*2, "1,000,000", 1000, scaleSectionParallelism, scalePageParallelism)
	fmt.Fprintf(&w, "| pages done | took | pages/s | actions / page | workflow tasks / page | worker peak memory (VmHWM) | worker CPU s / page | worker CPU use | Temporal server CPU s / page | largest history |\n|---|---|---|---|---|---|---|---|---|---|\n")
	tcpu := "n/a"
	if temporalPID > 0 {
		tcpu = fmt.Sprintf("%.4f", (tu1.CPU-tu0.CPU).Seconds()/float64(max(1, len(done))))
	}
	fmt.Fprintf(&w, "| %d/%d | %s | %.1f | %.2f | %.2f | %.0f MB | %.4f | %.0f%% of a core | %s | %d events |\n\n",
		len(done), pages, fmtDur(completion), rate, perPage(a.Billed()), perPage(a.WorkflowTasks), float64(hwm)/1e6,
		cpu.Seconds()/float64(max(1, len(done))), 100*cpu.Seconds()/completion.Seconds(), tcpu, longest)
	fmt.Fprintf(&w, "Actions per page: %.2f signals, %.2f activities, %.2f timers, %.2f workflow starts (children and continue-as-new), "+
		"%.2f search-attribute upserts, %.2f markers; plus %.2f workflow tasks (not billed as actions; %.2f per page with them). "+
		"Longest history per workflow type: %s.\n\n![pages done and the worker's memory and CPU](e2e-scale.png)\n\n",
		perPage(a.Signals), perPage(a.Activities), perPage(a.Timers), perPage(a.Starts), perPage(a.Upserts), perPage(a.Markers),
		perPage(a.WorkflowTasks), perPage(a.Billed()+a.WorkflowTasks), longestText(hist))
	b.sections = append(b.sections, w.String())
	b.check("6", "<= 12 Temporal actions per page", perPage(a.Billed()) <= 12, "%.2f (%.2f with workflow tasks)", perPage(a.Billed()), perPage(a.Billed()+a.WorkflowTasks))
	b.check("6", "worker peak memory <= 300 MB", hwm <= 300e6, "%.0f MB", float64(hwm)/1e6)
	b.check("6", "no workflow history over 10,000 events", longest <= 10000, "%d", longest)
	b.check("6", "every page migrated", m.Completed && len(done) == pages, "%d/%d in %s, %.1f pages/s, %.4f worker CPU s/page", len(done), pages,
		fmtDur(completion), rate, cpu.Seconds()/float64(max(1, len(done))))

	n := int(completion/time.Second) + 1
	var rss, cpuUse Series
	rss.Name, cpuUse.Name = "worker RSS (MB)", "worker CPU (% of a core)"
	for i, s := range samples {
		rss.X, rss.Y = append(rss.X, s.At.Seconds()), append(rss.Y, float64(s.RSS)/1e6)
		if i > 0 {
			dt := (s.At - samples[i-1].At).Seconds()
			cpuUse.X = append(cpuUse.X, s.At.Seconds())
			cpuUse.Y = append(cpuUse.Y, 100*(s.CPU-samples[i-1].CPU).Seconds()/dt)
		}
	}
	b.plot("e2e-scale.png", []Panel{
		{Title: fmt.Sprintf("%d pages, limits raised: pages done", pages), XLabel: "seconds", YLabel: "pages",
			Series: []Series{Cumulative("pages done", PerBucket(done, time.Second, n), 1)}},
		{Title: "worker memory", XLabel: "seconds", YLabel: "MB", Series: []Series{rss}},
		{Title: "worker CPU", XLabel: "seconds", YLabel: "% of a core", Series: []Series{cpuUse}},
	})
	return nil
}

// childPID finds a child process of this one whose command name starts
// with name (the dev server the devserver package started), or 0.
func childPID(name string) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		comm := s[open+1 : close]
		f := strings.Fields(s[close+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == self && strings.HasPrefix(comm, name) {
			found = append(found, pid)
		}
	}
	if len(found) == 0 {
		return 0
	}
	return slices.Max(found) // the newest
}
