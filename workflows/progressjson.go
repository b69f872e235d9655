package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/notebridge/notebridge/internal/seconds"
)

// The progress queries' JSON is for people as much as for programs
// (`temporal workflow query --name progress`): durations are seconds
// under keys ending in Seconds, the page and section counts are apart
// and named as such, a one-line summary says it all, and the notebook's
// answer has the structure of `starter status --json` (PageCounts,
// SectionCounts, etaSeconds, permits, permitWaitSeconds, summary,
// sections).

// PageCounts are a migration's page counts as its JSON shows them.
type PageCounts struct {
	// Total counts the pages known; TotalIsPartial is set while some
	// sections have not listed theirs.
	Total          int  `json:"total"`
	TotalIsPartial bool `json:"totalIsPartial"`
	// Done counts unchanged pages too.
	Done      int `json:"done"`
	Unchanged int `json:"unchanged"`
	Failed    int `json:"failed"`
	Left      int `json:"left"`
}

// SectionCounts are a migration's sections by status.
type SectionCounts struct {
	Done    int `json:"done"`
	Running int `json:"running"`
	Pending int `json:"pending"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// notebookProgressJSON is NotebookProgress on the wire.
type notebookProgressJSON struct {
	Phase         string            `json:"phase"`
	Summary       string            `json:"summary"`
	Pages         PageCounts        `json:"pages"`
	SectionCounts SectionCounts     `json:"sectionCounts"`
	ETA           *seconds.Duration `json:"etaSeconds,omitempty"`
	Permits       int               `json:"permits"`
	Waited        seconds.Duration  `json:"permitWaitSeconds"`
	Message       string            `json:"message,omitempty"`
	Health        Health            `json:"health"`
	Outcome       *Outcome          `json:"outcome,omitempty"`
	Sections      []SectionSummary  `json:"sections"`
}

// PageCounts is p's pages as its JSON shows them.
func (p NotebookProgress) PageCounts() PageCounts {
	partial := false
	for _, s := range p.Sections {
		if !s.Listed() {
			partial = true
		}
	}
	return PageCounts{Total: p.PagesListed, TotalIsPartial: partial, Done: p.PagesDone, Unchanged: p.PagesSkipped,
		Failed: p.PagesFailed, Left: max(0, p.PagesListed-p.PagesDone-p.PagesFailed)}
}

// Listed reports whether a section's pages are counted: it ended (done,
// or skipped as unreadable), or a run of it listed pages.
func (s SectionSummary) Listed() bool {
	live := 0
	if s.Live != nil {
		live = s.Live.Pages
	}
	return s.Status == SectionDone || s.Status == SectionSkipped || max(s.Pages, s.Counted.Pages, live) > 0
}

// Summary is p in one line: "migrating: 52/160+ pages done (3
// unchanged), 1 failed, 107 left · sections 2 done, 1 running, 3
// pending · 80 Graph permits, waited 2m3s · ETA 1m30s".
func (p NotebookProgress) Summary() string {
	pc := p.PageCounts()
	plus := ""
	if pc.TotalIsPartial {
		plus = "+"
	}
	parts := []string{
		fmt.Sprintf("%s: %d/%d%s pages done (%d unchanged), %d failed, %d left", cmpOr(p.Phase, "starting"), pc.Done, pc.Total, plus,
			pc.Unchanged, pc.Failed, pc.Left),
		fmt.Sprintf("sections %d done, %d running, %d pending, %d failed", p.Done, p.Running, p.Pending, p.Failed),
		fmt.Sprintf("%d Graph permits, waited %s", p.Permits, p.Waited.Round(time.Second)),
	}
	if p.Skipped > 0 {
		parts[1] += fmt.Sprintf(", %d skipped", p.Skipped)
	}
	if p.ETA > 0 {
		parts = append(parts, "ETA "+p.ETA.Round(time.Second).String())
	}
	if p.Health.Stall != "" {
		parts = append(parts, "STALLED: "+p.Health.Stall)
	}
	return strings.Join(parts, " · ")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// MarshalJSON writes p for people: see notebookProgressJSON.
func (p NotebookProgress) MarshalJSON() ([]byte, error) {
	j := notebookProgressJSON{Phase: p.Phase, Summary: p.Summary(), Pages: p.PageCounts(),
		SectionCounts: SectionCounts{Done: p.Done, Running: p.Running, Pending: p.Pending, Failed: p.Failed, Skipped: p.Skipped},
		Permits:       p.Permits, Waited: seconds.Of(p.Waited), Message: p.Message, Health: p.Health, Outcome: p.Outcome, Sections: p.Sections}
	if p.ETA > 0 {
		eta := seconds.Of(p.ETA)
		j.ETA = &eta
	}
	if j.Sections == nil {
		j.Sections = []SectionSummary{}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *NotebookProgress) UnmarshalJSON(b []byte) error {
	var j notebookProgressJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = NotebookProgress{Phase: j.Phase, Sections: j.Sections, Pending: j.SectionCounts.Pending, Running: j.SectionCounts.Running,
		Done: j.SectionCounts.Done, Failed: j.SectionCounts.Failed, Skipped: j.SectionCounts.Skipped,
		PagesListed: j.Pages.Total, PagesDone: j.Pages.Done, PagesFailed: j.Pages.Failed, PagesSkipped: j.Pages.Unchanged,
		Permits: j.Permits, Waited: j.Waited.D(), Message: j.Message, Health: j.Health, Outcome: j.Outcome}
	if j.ETA != nil {
		p.ETA = j.ETA.D()
	}
	return nil
}

// MarshalJSON writes p's durations as seconds (permitWaitSeconds,
// etaSeconds).
func (p SectionProgress) MarshalJSON() ([]byte, error) {
	type plain SectionProgress
	return json.Marshal(struct {
		plain
		Waited seconds.Duration `json:"permitWaitSeconds"`
		ETA    seconds.Duration `json:"etaSeconds"`
	}{plain(p), seconds.Of(p.Waited), seconds.Of(p.ETA)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *SectionProgress) UnmarshalJSON(b []byte) error {
	type plain SectionProgress
	var j struct {
		plain
		Waited seconds.Duration `json:"permitWaitSeconds"`
		ETA    seconds.Duration `json:"etaSeconds"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = SectionProgress(j.plain)
	p.Waited, p.ETA = j.Waited.D(), j.ETA.D()
	return nil
}

// MarshalJSON writes the wait as seconds (permitWaitSeconds). A pulse
// is a signal, kept in the notebook's history.
func (p SectionPulse) MarshalJSON() ([]byte, error) {
	type plain SectionPulse
	return json.Marshal(struct {
		plain
		Waited seconds.Duration `json:"permitWaitSeconds"`
	}{plain(p), seconds.Of(p.Waited)})
}

// UnmarshalJSON reads what MarshalJSON wrote, and the nanoseconds
// (permitsWaited) of the pulses in histories written before.
func (p *SectionPulse) UnmarshalJSON(b []byte) error {
	type plain SectionPulse
	var j struct {
		plain
		Waited *seconds.Duration `json:"permitWaitSeconds"`
		Nanos  time.Duration     `json:"permitsWaited"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = SectionPulse(j.plain)
	p.Waited = j.Nanos
	if j.Waited != nil {
		p.Waited = j.Waited.D()
	}
	return nil
}
