package main

import (
	"encoding/json"
	"time"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

// statusJSON is a migration's status as --json prints it: what the text
// status shows, durations in seconds (keys ending in Seconds).
type statusJSON struct {
	Type       string `json:"type"` // "status"
	WorkflowID string `json:"workflowId"`
	User       string `json:"user"`
	NotebookID string `json:"notebookId"`
	// State is the workflow's execution status: running, completed,
	// failed, ...; Phase the notebook's own while it runs.
	State          string    `json:"state"`
	Phase          string    `json:"phase,omitempty"`
	Waiting        bool      `json:"waiting"`
	StartTime      time.Time `json:"startTime"`
	CloseTime      time.Time `json:"closeTime,omitzero"`
	ElapsedSeconds float64   `json:"elapsedSeconds"`
	// Pages and SectionCounts are those of the progress query's answer
	// (one structure), with the scan's pages of the sections not
	// listed yet.
	Pages         workflows.PageCounts    `json:"pages"`
	SectionCounts workflows.SectionCounts `json:"sectionCounts"`
	// ETASeconds is absent when there is no estimate.
	ETASeconds        *float64                   `json:"etaSeconds,omitempty"`
	PermitWaitSeconds float64                    `json:"permitWaitSeconds"`
	Permits           int                        `json:"permits"`
	Budget            string                     `json:"budget,omitempty"`
	Sections          []workflows.SectionSummary `json:"sections"`
	Report            *workflows.NotebookReport  `json:"report,omitempty"`
	// Outcome is what the ended migration lost, approximated and
	// verified: the progress query's "outcome" (one structure).
	Outcome *workflows.Outcome `json:"outcome,omitempty"`
	Failure string             `json:"failure,omitempty"`
	// Answer is the migration's answer to finish.
	Answer              string `json:"answer,omitempty"`
	ProgressQueryFailed bool   `json:"progressQueryFailed,omitempty"`
	// Summary is the one-line status, as status --follow prints it.
	Summary string `json:"summary"`
	// CountsUnknown is set when the progress query got no answer and no
	// earlier one is known: the counts are absent, not zero.
	// CountsAgeSeconds is the age of counts last known, when the query
	// got no answer now.
	CountsUnknown    bool    `json:"countsUnknown,omitempty"`
	CountsAgeSeconds float64 `json:"countsAgeSeconds,omitempty"`
	// Down names the component that is down when the counts are not
	// known (the workers, the Temporal server or its database).
	Down string `json:"down,omitempty"`
	// RunID is the run shown: the running one, else the latest completed,
	// else the latest (or --run-id's).
	RunID string `json:"runId,omitempty"`
	// LostWorkers name the activities lost workers hold up, while they do.
	LostWorkers []string `json:"lostWorkers,omitempty"`
}

func (s *statusCmd) statusJSON(snap *progress.Snapshot) statusJSON {
	return s.statusJSONOf(snap, progress.TotalsOf(snap, s.scan))
}

// statusJSONOf is statusJSON with the counts t (a Tracker's, when
// following).
func (s *statusCmd) statusJSONOf(snap *progress.Snapshot, t progress.Totals) statusJSON {
	j := statusJSON{Summary: progress.Line(snap, t), Down: snap.Down, CountsUnknown: t.NoAnswer && t.Age == 0,
		CountsAgeSeconds: t.Age.Round(time.Second).Seconds(), Type: "status", WorkflowID: snap.ID, User: snap.User, NotebookID: snap.NotebookID,
		State: progress.StatusName(snap.Status), Waiting: snap.Waiting(), StartTime: snap.Started, CloseTime: snap.Closed,
		ElapsedSeconds:    snap.Now.Sub(snap.Started).Round(time.Second).Seconds(),
		PermitWaitSeconds: t.Waited.Seconds(), Permits: t.Permits, Budget: progress.BudgetText(snap.Limiter, snap.User),
		Sections: snap.SectionList(), Report: snap.Report}
	if !snap.Closed.IsZero() {
		j.ElapsedSeconds = snap.Closed.Sub(snap.Started).Round(time.Second).Seconds()
	}
	j.RunID = snap.RunID
	switch {
	case snap.Report != nil:
		j.Outcome = snap.Report.Outcome()
	case snap.ProgressOK:
		j.Outcome = snap.Progress.Outcome
	}
	if snap.Running() {
		j.Phase = snap.Progress.Phase
		j.ProgressQueryFailed = !snap.ProgressOK
		for _, l := range snap.Lost {
			j.LostWorkers = append(j.LostWorkers, l.Text(snap.Now))
		}
	}
	j.Pages = workflows.PageCounts{Total: t.Pages, TotalIsPartial: t.Unknown > 0, Done: t.Done, Unchanged: t.Unchanged, Failed: t.Failed, Left: t.Remaining}
	j.SectionCounts = workflows.SectionCounts{Done: t.SecDone, Running: t.SecRunning, Pending: t.SecPending, Failed: t.SecFailed, Skipped: t.SecSkipped}
	if snap.Running() && t.ETA > 0 {
		eta := t.ETA.Seconds()
		j.ETASeconds = &eta
	}
	if snap.Failure != nil {
		j.Failure = explain(snap.Failure, snap.User, "the migration").Error()
	}
	if j.Sections == nil {
		j.Sections = []workflows.SectionSummary{}
	}
	return j
}

// jsonLine writes v as one line of JSON, for a stream of objects.
func (c *cli) jsonLine(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
