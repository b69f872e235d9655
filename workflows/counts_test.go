package workflows

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter/entity"
)

// TestProgressCountsOnlyMoveForward walks a section through the runs that
// made the counters of issue 35 go back (a run that fails with no result
// after pages were done, a retry that starts its own counts at zero and
// reports less than the last run, a second retry that completes) and
// checks after every step that the notebook's progress reads no fewer
// pages listed, done or unchanged, and no fewer permits or less wait,
// than before, and that the report's permits are the last progress's.
func TestProgressCountsOnlyMoveForward(t *testing.T) {
	s := &SectionSummary{SectionRef: SectionRef{ID: "s1", Name: "S"}, Status: SectionPending}
	other := &SectionSummary{SectionRef: SectionRef{ID: "s2", Name: "T"}, Status: SectionDone}
	other.setResult(&SectionResult{Pages: 10, Done: 10, Written: 10, Permits: 12, Waited: 3 * time.Second})
	other.Counted.ended(*other.result, nil)
	nb := &notebook{sections: []*SectionSummary{s, other}, live: map[string]*SectionPulse{}}
	nb.own.took(entity.CallStats{Attempts: 3, Waited: time.Second}) // the tree
	pulse := func(pages, done, failed, unchanged, permits int, waited time.Duration) func() {
		return func() {
			nb.live[s.ID] = &SectionPulse{SectionID: s.ID, Pages: pages, Done: done, Failed: failed, Skipped: unchanged,
				Permits: permits, Waited: waited}
		}
	}
	start := func() { s.Status = SectionRunning; s.Attempts++ }
	end := func(status string, res *SectionResult) func() {
		return func() {
			var r SectionResult
			if res != nil {
				r = *res
			}
			s.Counted.ended(r, nb.live[s.ID])
			delete(nb.live, s.ID)
			s.Status = status
			s.setResult(res)
		}
	}
	steps := []struct {
		name string
		do   func()
		// want: the notebook's pages done and permits after the step
		done, permits int
	}{
		{"pending", func() {}, 10, 15},
		{"first run starts", start, 10, 15},
		{"first run reports", pulse(40, 20, 0, 0, 25, 5*time.Second), 30, 40},
		{"first run reports more", pulse(40, 30, 0, 0, 36, 9*time.Second), 40, 51},
		{"first run fails without a result", end(SectionFailed, nil), 40, 51},
		{"retry starts", start, 40, 51},
		{"retry reports less than the first run", pulse(40, 5, 0, 5, 6, time.Second), 40, 57},
		{"retry fails with 10 pages failed", end(SectionFailed, &SectionResult{Pages: 40, Done: 30, Skipped: 30, Failed: 10, Permits: 20, Waited: 2 * time.Second}), 40, 71},
		{"second retry starts", start, 40, 71},
		{"second retry reports", pulse(40, 32, 0, 30, 4, 0), 42, 75},
		{"second retry completes", end(SectionDone, &SectionResult{Pages: 40, Done: 40, Skipped: 30, Written: 10, Permits: 11, Waited: time.Second}), 50, 82},
	}
	var last NotebookProgress
	for i, st := range steps {
		st.do()
		p := nb.progress()
		if p.PagesDone != st.done || p.Permits != st.permits {
			t.Errorf("%s: pages done %d, permits %d; want %d, %d", st.name, p.PagesDone, p.Permits, st.done, st.permits)
		}
		if i > 0 {
			for _, c := range []struct {
				what      string
				now, then int64
			}{
				{"pages listed", int64(p.PagesListed), int64(last.PagesListed)},
				{"pages done", int64(p.PagesDone), int64(last.PagesDone)},
				{"pages unchanged", int64(p.PagesSkipped), int64(last.PagesSkipped)},
				{"permits", int64(p.Permits), int64(last.Permits)},
				{"permit waits", int64(p.Waited), int64(last.Waited)},
			} {
				if c.now < c.then {
					t.Errorf("%s: %s went back from %d to %d", st.name, c.what, c.then, c.now)
				}
			}
		}
		if p.PagesDone+p.PagesFailed > p.PagesListed {
			t.Errorf("%s: %d done and %d failed of %d pages", st.name, p.PagesDone, p.PagesFailed, p.PagesListed)
		}
		last = p
	}
	rep := nb.report()
	if rep.Permits != last.Permits || rep.PermitsWaited.D() != last.Waited {
		t.Errorf("report: %d permits, waited %v; the last progress said %d, %v", rep.Permits, rep.PermitsWaited.D(), last.Permits, last.Waited)
	}
}

// TestReportCountsTheUnsentUnitsOfEveryRun checks that the notebook
// report's UnsentUnits adds up the permit units every section run gave
// back unsent: a run that failed (its last pulse, which finalPulse sends
// as it fails), a retry that failed with a result, and the run that
// completed. The limiter counts every one of them, so the report must too.
func TestReportCountsTheUnsentUnitsOfEveryRun(t *testing.T) {
	type run struct {
		pulse  int            // the run's last pulse's Unsent (-1: no pulse)
		result *SectionResult // nil: the run failed without one
	}
	cases := []struct {
		name string
		runs []run
		want int
	}{
		{"one run with a result", []run{{1, &SectionResult{UnsentUnits: 4}}}, 4},
		{"a failed run, then one that completes", []run{{3, nil}, {0, &SectionResult{UnsentUnits: 2}}}, 5},
		{"a failed run without a pulse, a retry failing with pages failed, a completed retry",
			[]run{{-1, nil}, {2, &SectionResult{Failed: 1, UnsentUnits: 2}}, {1, &SectionResult{UnsentUnits: 1}}}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &SectionSummary{SectionRef: SectionRef{ID: "s1", Name: "S"}}
			other := &SectionSummary{SectionRef: SectionRef{ID: "s2", Name: "T"}, Status: SectionDone}
			other.setResult(&SectionResult{UnsentUnits: 7})
			other.Counted.ended(*other.result, nil)
			nb := &notebook{sections: []*SectionSummary{s, other}, live: map[string]*SectionPulse{}}
			for _, r := range c.runs {
				s.Status = SectionRunning
				if r.pulse >= 0 {
					nb.live[s.ID] = &SectionPulse{SectionID: s.ID, Unsent: r.pulse}
				}
				var res SectionResult
				if r.result != nil {
					res = *r.result
				}
				s.Counted.ended(res, nb.live[s.ID])
				delete(nb.live, s.ID)
				s.Status = SectionDone
				s.setResult(r.result)
			}
			if got := nb.report().UnsentUnits; got != c.want+7 {
				t.Errorf("report counts %d unsent units, want %d (%d of this section, 7 of the other)", got, c.want+7, c.want)
			}
		})
	}
}
