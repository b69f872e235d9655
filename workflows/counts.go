package workflows

import (
	"time"

	"github.com/notebridge/notebridge/internal/seconds"
	"github.com/notebridge/notebridge/limiter/entity"
)

// SectionCount is what a section's runs so far add to its notebook's
// counts, carried across the section's runs, its retries and the
// notebook's continue-as-new, so the counts only move forward: a retry
// starts its own counts at zero, and a run that fails leaves no result,
// yet the pages it finished stay done and the Graph permits it took stay
// taken.
type SectionCount struct {
	// Pages and Done are the most pages any run listed and finished
	// (unchanged ones included); Unchanged the most it found unchanged.
	Pages     int `json:"pages"`
	Done      int `json:"done"`
	Unchanged int `json:"unchanged"`
	// Permits and Waited are the Graph permits the ended runs took
	// (one a request attempt, each covering one or more Graph requests)
	// and the time they waited for them.
	Permits int              `json:"permits"`
	Waited  seconds.Duration `json:"permitWaitSeconds"`
	// Unsent is the permit units the ended runs gave back to the limiter
	// as never sent.
	Unsent int `json:"unsent,omitempty"`
}

// saw raises the most pages listed, done and unchanged to a run's.
func (c *SectionCount) saw(pages, done, unchanged int) {
	c.Pages = max(c.Pages, pages)
	c.Done = max(c.Done, done)
	c.Unchanged = max(c.Unchanged, unchanged)
}

// ended adds an ended run's permits and unsent units: those of its
// result, else (a run that failed) of its last report, which a failing
// run sends as it ends (finalPulse).
func (c *SectionCount) ended(res SectionResult, last *SectionPulse) {
	permits, waited, unsent := res.Permits, res.Waited, res.UnsentUnits
	if last != nil {
		permits, waited, unsent = max(permits, last.Permits), max(waited, last.Waited), max(unsent, last.Unsent)
		c.saw(last.Pages, last.Done, last.Skipped)
	}
	c.saw(res.Pages, res.Done, res.Skipped)
	c.Permits += permits
	c.Waited += seconds.Of(waited)
	c.Unsent += unsent
}

// counts is the section's share of the notebook's progress: its running
// run's last report (live) or its last result, with the pages done and
// the permits of earlier runs. Done, unchanged, permits and waits never
// read less than before; failed pages do, as a retry writes them.
func (s *SectionSummary) counts(live *SectionPulse) SectionPulse {
	c := s.Counted
	var run SectionPulse
	r := s.result
	switch {
	case s.Status == SectionRunning && live != nil:
		run = *live
		if r != nil && live.Done+live.Failed < r.Done+r.Failed {
			// A retry that has not caught up yet: the pages the last
			// run failed, but for those done since.
			run.Failed = r.Failed
		}
	case s.Status == SectionRunning:
		// A retry that has not reported: the last run's counts.
		if r != nil {
			run = SectionPulse{Pages: r.Pages, Done: r.Done, Failed: r.Failed, Skipped: r.Skipped}
		}
		run.Permits, run.Waited = 0, 0
	case r != nil:
		run = SectionPulse{Pages: r.Pages, Done: r.Done, Failed: r.Failed, Skipped: r.Skipped}
	}
	out := SectionPulse{SectionID: s.ID, Phase: run.Phase,
		Pages: max(run.Pages, c.Pages), Done: max(run.Done, c.Done), Skipped: max(run.Skipped, c.Unchanged),
		Permits: c.Permits, Waited: c.Waited.D()}
	out.Failed = max(0, min(run.Failed, out.Pages-out.Done))
	if r != nil && s.Status != SectionRunning {
		// A result carried from before the counts were: its own.
		out.Permits, out.Waited = max(out.Permits, r.Permits), max(out.Waited, r.Waited)
	}
	if s.Status == SectionRunning && live != nil {
		// The running run's permits are its own; the ended runs' are
		// counted.
		out.Permits += live.Permits
		out.Waited += live.Waited
	}
	return out
}

// took adds a Graph call's permits and wait.
func (c *SectionCount) took(st entity.CallStats) {
	c.Permits += st.Attempts
	c.Waited += seconds.Of(st.Waited)
}

// spent is the Graph permits the notebook's own calls and all the
// sections took, and their wait.
func (nb *notebook) spent() (int, time.Duration) {
	n, w := nb.own.Permits, nb.own.Waited.D()
	for _, s := range nb.sections {
		c := s.counts(nb.live[s.ID])
		n += c.Permits
		w += c.Waited
	}
	return n, w
}
