package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/limiter/entity"
)

// fairUsers are five users with the same notebook shape: 2 sections of
// 99 pages, one image and one attachment a page (about 600 Graph requests
// each, 3,000 in all: the app's 800 an hour binds, not the users' 400).
func fairUsers() []User {
	var us []User
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("user%d", i)
		us = append(us, User{Name: name, Spec: graph.GenSpec{Seed: uint64(i), Owner: name, Notebooks: 1, SectionsPerContainer: 2,
			PagesPerSection: 99, ImagesPerPage: 1, AttachmentsPerPage: 1}})
	}
	return us
}

// scenarioFairness is scenario 4: five users migrating at once under the
// app budget.
func (b *Bench) scenarioFairness(ctx context.Context) error {
	profile, spec := b.profile()
	users := b.users(fairUsers()...)
	st, err := b.H.Start(ctx, StackConfig{Name: "s4-five-users", Profile: profile, Scale: b.scale, Users: users})
	if err != nil {
		return err
	}
	defer st.Stop()
	var ms []*Migration
	for _, u := range users {
		m, err := st.StartMigration(ctx, u.Name, MigrateOptions{})
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	t0 := ms[0].Started
	if err := st.Await(ctx, ms, AwaitOptions{Horizon: b.wall(20 * time.Hour), Progress: b.progress(st, ms[0], pages(users[0]))}); err != nil {
		return err
	}
	log, done := st.GraphLog(t0), st.PagesDone(t0)
	if err := st.SaveData(t0); err != nil {
		b.Log.Warn("raw data not saved", "error", err)
	}
	if _, err := st.Stop(); err != nil {
		b.Log.Warn("stopping the stack", "error", err)
	}
	first, last := time.Duration(0), time.Duration(0)
	for _, m := range ms {
		if !m.Completed {
			return fmt.Errorf("%s did not complete", m.ID)
		}
		d := m.Ended.Sub(t0)
		if first == 0 || d < first {
			first = d
		}
		last = max(last, d)
	}
	accepted := func(user string) []time.Duration {
		return Times(log, func(q Request) bool { return q.Status < 400 && (user == "" || q.User == user) })
	}
	all := accepted("")
	// Budget use and Jain's index over whole scaled hours before the first
	// user finished (every user had work then), from the first Graph
	// request, leaving out the first hour with each migration's start-up
	// (its Notion containers, its listings) as the simulator does.
	begin := slices.Min(all)
	hour := b.wall(time.Hour)
	total := int((first - begin) / hour)
	start, hours := begin, total
	if total >= 2 {
		start, hours = begin+hour, total-1
	}
	to := start + time.Duration(hours)*hour
	appBudget := Binding(spec.App.Windows)
	use := BudgetUse(all, start, to, appBudget)
	useAll := BudgetUse(all, begin, begin+time.Duration(total)*hour, appBudget)
	var shares []float64
	var w strings.Builder
	fmt.Fprintf(&w, "## 4. Five users sharing the app budget\n\n")
	fmt.Fprintf(&w, "Five users start a migration at the same moment, each a notebook of 198 pages (2 sections, one image and one "+
		"attachment a page, about 600 Graph requests). Together they may make 2,000 requests an hour, the app only 800: the app "+
		"budget binds. Budget use and Jain's fairness index are measured over whole scaled hours before the first user "+
		"finished (every user had work queued then), counted from the first Graph request and leaving out the first hour, "+
		"with each migration's start-up, as the simulator does: %d hour(s), from %s to %s.\n\n", hours, b.fmtScaled(start), b.fmtScaled(to))
	fmt.Fprintf(&w, "| user | accepted in the period | share | finished at |\n|---|---|---|---|\n")
	for i, u := range users {
		n := CountIn(accepted(u.Name), start, to)
		shares = append(shares, float64(n))
		fmt.Fprintf(&w, "| %s | %d | %.1f%% | %s |\n", u.Name, n, 100*float64(n)/float64(max(1, CountIn(all, start, to))),
			fmtDur(b.scaled(ms[i].Ended.Sub(t0))))
	}
	jain := Jain(shares)
	lb := LowerBound(spec.App.Windows, len(all))
	thr := len(Times(log, Request.Throttled))
	fmt.Fprintf(&w, "\nApp budget use %.1f%% (%.1f%% over all %d whole hours, the first included), Jain's index %.4f, %d upstream "+
		"429s. All %d pages done at %s; the app-bound lower bound for the %d requests is %s (%.3fx). At this time scale each "+
		"hour's burst starts a little later than the last: the limiter counts a request in its windows from when the worker "+
		"sent it, a signal and an activity dispatch after its grant, and pads every window by %s; the hour's budget is spent later by that much.\n\n"+
		"![per-user requests](e2e-five-users.png)\n\n",
		100*use, 100*useAll, total, jain, thr, len(done), b.fmtScaled(last), len(all), b.fmtScaled(lb), ratio(last, lb),
		entity.DefaultSkew(spec))
	b.sections = append(b.sections, w.String())
	b.check("4", "Jain's index >= 0.99", jain >= 0.99, "%.4f over %d scaled hours", jain, hours)
	b.check("4", "app budget use >= 95%", use >= 0.95, "%.1f%% over scaled hours 1 to %d (%.1f%% with hour 0)", 100*use, total, 100*useAll)
	b.check("4", "0 upstream 429s", thr == 0, "%d", thr)

	minute := b.wall(time.Minute)
	n := int(last/minute) + 1
	var cum, rate []Series
	for _, u := range users {
		cum = append(cum, Cumulative(u.Name, PerBucket(accepted(u.Name), minute, n), 1.0/60))
	}
	rate = append(rate, Steps("app (all users)", PerBucket(all, minute, n), 1.0/60))
	b.plot("e2e-five-users.png", []Panel{
		{Title: "five users: accepted Graph requests per user (cumulative)", XLabel: "scaled hours", YLabel: "requests", Series: cum},
		{Title: "the app's Graph requests per scaled minute", XLabel: "scaled hours", YLabel: "requests/min", Series: rate},
	})
	return nil
}
