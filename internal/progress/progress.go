// Package progress reads and renders a migration's progress: one
// Snapshot of a MigrateNotebook run (its progress query, its running
// sections', the Graph limiter's state) and the one-line display of it
// that `starter status --follow` and the demo print.
package progress

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// ScanPages maps the section IDs of a scanned notebook to their page
// counts, for TotalsOf (nil for no scan).
func ScanPages(nb *workflows.NotebookScan) map[string]int {
	if nb == nil {
		return nil
	}
	m := make(map[string]int, len(nb.Sections))
	for _, s := range nb.Sections {
		m[s.ID] = s.Pages
	}
	return m
}

// Snapshot is what the status display shows of one migration at one
// moment.
type Snapshot struct {
	ID                   string
	Status               enumspb.WorkflowExecutionStatus
	Started, Closed, Now time.Time
	User, NotebookID     string
	// Progress is the notebook's progress query (when it answered).
	Progress   workflows.NotebookProgress
	ProgressOK bool
	// Sections holds the progress of running sections, by section ID.
	Sections map[string]workflows.SectionProgress
	// Report is the result of a completed migration; Failure the error
	// of one that ended otherwise.
	Report  *workflows.NotebookReport
	Failure error
	// Limiter is the Graph limiter's state, if it answered.
	Limiter *entity.State
	// Down names the component that is down when the counts are not
	// known: the workers (none polls the task queue), the Temporal server
	// or its database ("" when nothing is known to be down).
	Down string
	// RunID is the run shown.
	RunID string
	// Lost are the activities of the notebook and its running sections
	// that lost workers hold up (LostWorkers), while they do.
	Lost []LostWorker
}

// Running reports whether the migration runs.
func (s *Snapshot) Running() bool { return s.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING }

// Waiting reports whether the notebook waits for an operator's signal.
func (s *Snapshot) Waiting() bool {
	return s.Running() && s.ProgressOK && s.Progress.Phase == workflows.PhaseWaiting
}

// SectionList is the sections the Snapshot knows: from the progress
// query, or from the report once the workflow completed.
func (s *Snapshot) SectionList() []workflows.SectionSummary {
	if s.ProgressOK {
		return s.Progress.Sections
	}
	if s.Report != nil {
		return s.Report.Sections
	}
	return nil
}

// Totals are a migration's page counts summed over its sections.
type Totals struct {
	Pages     int // known pages
	Done      int // done pages, unchanged ones included
	Unchanged int // skipped because unchanged (or deleted in OneNote)
	Failed    int
	Remaining int
	// Unknown counts sections whose page count is not known yet (not
	// listed, and not in the last scan).
	Unknown int
	// sections by status
	SecDone, SecRunning, SecPending, SecFailed, SecSkipped int
	Permits                                                int
	Waited                                                 time.Duration
	ETA                                                    time.Duration
	// NoAnswer is set when the running migration did not answer its
	// progress query: the counts are unknown (all zero), or, from a
	// Tracker, the last known ones, Age old.
	NoAnswer bool
	Age      time.Duration
}

// TotalsOf is a Snapshot's counts: the notebook's own sums from its
// progress query (the one place they are computed, carried across runs
// and retries so they only move forward), or its report once it ended
// and no worker answered; sections whose pages are not counted yet add
// the page counts of the user's last scan (scan maps section IDs to
// them; nil if none), or count as Unknown.
func TotalsOf(s *Snapshot, scan map[string]int) Totals {
	var t Totals
	if s.Running() && !s.ProgressOK {
		// No worker answered: nothing is known, which is not zero.
		return Totals{NoAnswer: true}
	}
	secs := s.SectionList()
	switch {
	case s.ProgressOK:
		p := s.Progress
		t.Pages, t.Done, t.Failed, t.Unchanged = p.PagesListed, p.PagesDone, p.PagesFailed, p.PagesSkipped
		t.Permits, t.Waited = p.Permits, p.Waited
	case s.Report != nil:
		r := s.Report
		t.Pages, t.Done, t.Failed, t.Unchanged = r.Pages, r.Pages-r.FailedPages, r.FailedPages, r.Skipped
		t.Permits, t.Waited = r.Permits, r.PermitsWaited.D()
	}
	unlisted := func(id string) {
		if n, ok := scan[id]; ok {
			t.Pages += n
		} else {
			t.Unknown++
		}
	}
	if len(secs) == 0 {
		// The notebook has not listed its sections yet: the scan's count.
		for _, n := range scan {
			t.Pages += n
		}
	}
	var runningETA time.Duration
	for _, sec := range secs {
		switch sec.Status {
		case workflows.SectionDone:
			t.SecDone++
		case workflows.SectionFailed:
			t.SecFailed++
		case workflows.SectionRunning:
			t.SecRunning++
			runningETA = max(runningETA, s.Sections[sec.ID].ETA)
		case workflows.SectionSkipped:
			t.SecSkipped++
		default:
			t.SecPending++
		}
		if !sec.Listed() {
			unlisted(sec.ID)
		}
	}
	t.Remaining = max(0, t.Pages-t.Done-t.Failed)
	worked := t.Done - t.Unchanged + t.Failed
	elapsed := s.Now.Sub(s.Started)
	switch {
	case !s.Running() || s.Waiting() || t.Remaining == 0 && t.Unknown == 0:
	case worked > 0 && t.Unknown == 0 && elapsed > 0:
		t.ETA = (elapsed / time.Duration(worked) * time.Duration(t.Remaining)).Round(time.Second)
	case s.Progress.ETA > 0:
		t.ETA = s.Progress.ETA
	default:
		t.ETA = runningETA
	}
	return t
}

// PagesText is "52/160 pages" ("52/160+" while some sections are not
// counted yet).
func (t Totals) PagesText() string {
	if t.NoAnswer && t.Age == 0 {
		return "unknown pages"
	}
	plus := ""
	if t.Unknown > 0 {
		plus = "+"
	}
	return fmt.Sprintf("%d/%d%s pages", t.Done, t.Pages, plus)
}

// ETAText is the ETA as a person reads it ("-" when none).
func (t Totals) ETAText() string {
	if t.ETA <= 0 {
		return "-"
	}
	return ShortDur(t.ETA)
}

// BudgetText is the user's use of the Graph budget: "alice 96/120 per 1m,
// 310/400 per 1h, 3/5 at once" (and the breaker, when it is not closed).
func BudgetText(st *entity.State, user string) string {
	if st == nil {
		return ""
	}
	for _, u := range st.Model.Users {
		if u.User == user {
			s := user + " " + ScopeText(u.ScopeUsage)
			if q := u.Queued[limiter.Foreground] + u.Queued[limiter.Background]; q > 0 {
				s += fmt.Sprintf(", %d queued", q)
			}
			return s
		}
	}
	return user + " idle"
}

func ScopeText(su limiter.ScopeUsage) string {
	var parts []string
	for _, w := range su.Windows {
		p := fmt.Sprintf("%d/%d per %s", w.Used, w.Effective, ShortDur(w.Per.D()))
		if w.Effective != w.Limit {
			p += fmt.Sprintf(" (lowered from %d)", w.Limit)
		}
		parts = append(parts, p)
	}
	parts = append(parts, fmt.Sprintf("%d/%d at once", su.InFlight, su.EffectiveConcurrency))
	if su.Breaker.State != "" && su.Breaker.State != "closed" {
		b := "breaker " + su.Breaker.State
		if !su.Breaker.Until.IsZero() {
			b += " until " + su.Breaker.Until.Local().Format(time.TimeOnly)
		}
		if su.Breaker.Reason != "" {
			b += " (" + su.Breaker.Reason + ")"
		}
		parts = append(parts, b)
	}
	return strings.Join(parts, ", ")
}

// ShortDur prints 1m for 1m0s and 1h for 1h0m0s.
func ShortDur(d time.Duration) string {
	if d >= time.Second {
		d = d.Round(time.Second)
	} else {
		d = d.Round(time.Millisecond)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Line is the one-line status: what `starter status --follow` and the
// demo print.
func Line(s *Snapshot, t Totals) string {
	asOf := ""
	if t.NoAnswer {
		asOf = " " + ShortDur(t.Age) + " ago"
	}
	parts := []string{
		fmt.Sprintf("%s done%s, %d failed, %d left", t.PagesText(), asOf, t.Failed, t.Remaining),
		"ETA " + t.ETAText(),
		fmt.Sprintf("permit waits %s (%d Graph permits)", ShortDur(t.Waited.Round(100*time.Millisecond)), t.Permits),
	}
	if t.NoAnswer {
		if t.Age == 0 {
			parts = parts[:0]
		}
		why := "the progress query got no answer (is a worker running?)"
		if s.Down != "" {
			why = s.Down
		}
		parts = append(parts, "counts unknown now: "+why)
	}
	if b := BudgetText(s.Limiter, s.User); b != "" {
		parts = append(parts, "budget "+b)
	}
	phase := s.Progress.Phase
	if !s.Running() {
		phase = StatusName(s.Status)
	} else if phase == "" && s.ProgressOK {
		phase = "starting"
	}
	if phase != "" {
		parts = append(parts, phase)
	}
	if h := HealthShort(s); h != "" {
		parts = append(parts, h)
	}
	return strings.Join(parts, " · ")
}

// HealthShort is the health part of the one-line status: the stall, or
// the upstream service failing now ("" while all is well).
func HealthShort(s *Snapshot) string {
	if !s.Running() {
		return ""
	}
	if len(s.Lost) > 0 {
		// The stall's cause, named while it lasts: the workflow's own
		// stall shows only after a minute without a page.
		short := "STALLED " + s.Lost[0].Short(s.Now)
		if n := len(s.Lost) - 1; n > 0 {
			short += fmt.Sprintf(" (+%d more)", n)
		}
		return short
	}
	if !s.ProgressOK {
		return ""
	}
	h := s.Progress.Health
	e := h.LastError
	switch {
	case h.Stall != "" && e != nil && e.Ongoing:
		return fmt.Sprintf("STALLED %s: %s", ShortDur(idle(s)), errorShort(e))
	case h.Stall != "":
		return "STALLED " + ShortDur(idle(s))
	case e != nil && e.Ongoing && s.Progress.Phase != workflows.PhaseWaiting:
		return errorShort(e) + " since " + e.Since.Local().Format(time.TimeOnly)
	}
	return ""
}

// healthKey changes when the health HealthShort shows changes, but not
// with the clock.
func healthKey(s *Snapshot) string {
	h := s.Progress.Health
	k := h.State
	if e := h.LastError; e != nil && e.Ongoing {
		k += " " + errorShort(e)
	}
	for _, l := range s.Lost {
		k += fmt.Sprintf(" lost %s %s %d %t %t", l.Workflow, l.Activity, l.Attempt, l.Noticed.IsZero(), l.Started)
	}
	return k
}

// idle is how long no page has finished.
func idle(s *Snapshot) time.Duration {
	last := s.Progress.Health.LastPage
	if last.Before(s.Started) {
		last = s.Started
	}
	return s.Now.Sub(last)
}

// errorShort is "Graph 503" or "Notion NotionRetryable".
func errorShort(e *workflows.UpstreamError) string {
	if e.Code != "" {
		return e.Service + " " + e.Code
	}
	return e.Service + " " + e.Type
}

// HealthLines are the status display's health rows, label and text:
// the last upstream error with its time, the breaker holding Graph
// requests (from the notebook, or the limiter's state), a stall and its
// likely cause, and the next command to run. Only the rows that apply.
func HealthLines(s *Snapshot) [][2]string {
	var rows [][2]string
	if s.Running() {
		for _, l := range s.Lost {
			rows = append(rows, [2]string{"worker lost", l.Text(s.Now) + where(s, l)})
		}
	}
	if !s.ProgressOK {
		return rows
	}
	h := s.Progress.Health
	if e := h.LastError; e != nil {
		state := "recovered since"
		if e.Ongoing {
			state = "failing since " + e.Since.Local().Format(time.TimeOnly) + ", last at"
		}
		where := ""
		if e.Section != "" {
			where = fmt.Sprintf(" in %q", e.Section)
		}
		rows = append(rows, [2]string{"last error", fmt.Sprintf("%s (%s %s%s): %s", errorShort(e), state,
			e.At.Local().Format(time.TimeOnly), where, e.Message)})
	}
	if s.Running() {
		if b := breakerOf(s); b != "" {
			rows = append(rows, [2]string{"breaker", b})
		}
	}
	if h.Stall != "" && s.Running() {
		rows = append(rows, [2]string{"stall", h.Stall})
	}
	if h.Next != "" && s.Running() {
		rows = append(rows, [2]string{"next", h.Next})
	}
	return rows
}

// breakerOf names the breaker holding the user's Graph requests: the
// limiter's own state when it answered (the user's, else the app's),
// else what the notebook last heard.
func breakerOf(s *Snapshot) string {
	text := func(scope string, b limiter.BreakerInfo) string {
		t := fmt.Sprintf("%s breaker %s", scope, b.State)
		if !b.Until.IsZero() && b.State == "open" {
			t += " until " + b.Until.Local().Format(time.TimeOnly)
		}
		if b.Reason != "" {
			t += ": " + b.Reason
		}
		return t
	}
	if st := s.Limiter; st != nil {
		if b := st.Model.App.Breaker; b.State != "" && b.State != "closed" {
			return text("app", b)
		}
		for _, u := range st.Model.Users {
			if u.User == s.User && u.Breaker.State != "" && u.Breaker.State != "closed" {
				return text("user "+u.User, u.Breaker)
			}
		}
		return ""
	}
	if b := s.Progress.Health.Breaker; b != nil {
		return text(b.Scope, limiter.BreakerInfo{State: "open", Until: b.Until, Reason: b.Reason}) + " (as the notebook last heard)"
	}
	return ""
}

// Tracker follows one migration's snapshots and gives the counts to
// show: the one place that keeps them moving forward. Pages done, pages
// unchanged, permits and permit waits are cumulative, so a snapshot that
// reads less (a section's live report older than the notebook's sum, a
// section run that continued as new) shows the most already seen; and a
// snapshot without an answer shows the last known counts with their age,
// never zeros. The zero value is ready.
type Tracker struct {
	last  Totals
	at    time.Time
	known bool
}

// Next is the counts of s to show (TotalsOf, kept moving forward).
func (k *Tracker) Next(s *Snapshot, scan map[string]int) Totals {
	t := TotalsOf(s, scan)
	if t.NoAnswer {
		if !k.known {
			return t
		}
		old := k.last
		old.NoAnswer, old.Age, old.ETA = true, s.Now.Sub(k.at), 0
		return old
	}
	if k.known {
		t.Done = max(t.Done, k.last.Done)
		t.Unchanged = max(t.Unchanged, k.last.Unchanged)
		t.Permits = max(t.Permits, k.last.Permits)
		t.Waited = max(t.Waited, k.last.Waited)
		t.Pages = max(t.Pages, k.last.Pages, t.Done+t.Failed)
		t.Remaining = max(0, t.Pages-t.Done-t.Failed)
	}
	k.last, k.at, k.known = t, s.Now, true
	return t
}

// Key changes when what Line shows changes but for the clock, so that
// output that is not a terminal gets a line per change.
func Key(s *Snapshot, t Totals) string {
	return fmt.Sprintf("%d/%d/%d/%d/%d/%s/%d/%d/%d/%s/%t", t.Done, t.Pages, t.Failed, t.Remaining, t.Unknown, s.Progress.Phase,
		t.SecDone, t.SecFailed, t.SecRunning, healthKey(s), t.NoAnswer)
}

// IsTerminal reports whether w is a terminal, where a follower redraws
// one line.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Bar is a progress bar of done out of pages.
func Bar(t Totals, width int) string {
	n := 0
	if t.Pages > 0 {
		n = min(width, t.Done*width/t.Pages)
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

// StatusName is an execution status as a person says it.
func StatusName(st enumspb.WorkflowExecutionStatus) string {
	name := strings.TrimPrefix(st.String(), "WORKFLOW_EXECUTION_STATUS_")
	if name == "" || st == enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED {
		return "unknown"
	}
	return strings.ReplaceAll(strings.ToLower(name), "_", " ")
}

// Gatherer collects snapshots of one migration.
type Gatherer struct {
	Client client.Client
	// ID is the notebook workflow's ID; RunID one of its runs ("" for
	// the latest, which a migration that continues as new goes on in);
	// App the Graph app whose limiter to ask ("" finds the only one
	// running).
	ID, RunID string
	App       string
	// limiterID is the limiter's workflow ID, once found.
	limiterID string
}

// Gather takes a snapshot. Its error wraps the Temporal error (a
// serviceerror.NotFound for no such workflow).
func (g *Gatherer) Gather(ctx context.Context) (*Snapshot, error) {
	desc, err := g.Client.DescribeWorkflow(ctx, g.ID, g.RunID)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", g.ID, err)
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	s := &Snapshot{ID: g.ID, RunID: info.GetExecution().GetRunId(), Status: info.GetStatus(), Started: info.GetStartTime().AsTime(),
		Now: time.Now(), Sections: map[string]workflows.SectionProgress{}}
	if info.GetCloseTime() != nil {
		s.Closed = info.GetCloseTime().AsTime()
	}
	s.User = Keyword(info.GetSearchAttributes(), workflows.AttrUser.GetName())
	s.NotebookID = Keyword(info.GetSearchAttributes(), workflows.AttrNotebook.GetName())
	if parts := strings.SplitN(g.ID, "/", 3); len(parts) == 3 && parts[0] == "migrate" {
		if s.User == "" {
			s.User = parts[1]
		}
		if s.NotebookID == "" {
			s.NotebookID = parts[2]
		}
	}
	runID := info.GetExecution().GetRunId()
	// A closed migration answers queries too (a worker replays it): its
	// final counts, permits included. Best effort.
	if v, err := g.Client.QueryWorkflow(ctx, g.ID, runID, workflows.QueryProgress); err == nil && v.Get(&s.Progress) == nil {
		s.ProgressOK = true
	} else if s.Running() {
		s.Down = g.workersDown(ctx, info.GetTaskQueue())
	}
	if !s.Running() {
		if s.Status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			var rep workflows.NotebookReport
			if err := g.Client.GetWorkflow(ctx, g.ID, runID).Get(ctx, &rep); err != nil {
				return nil, fmt.Errorf("result of %s: %w", g.ID, err)
			}
			s.Report = &rep
		} else {
			s.Failure = g.Client.GetWorkflow(ctx, g.ID, runID).Get(ctx, nil)
			if s.Failure == nil {
				s.Failure = fmt.Errorf("the workflow is %s", StatusName(s.Status))
			}
		}
		return s, nil
	}
	s.Lost = LostWorkers(g.ID, desc.RawResponse.GetPendingActivities(), s.Now)
	for _, sec := range s.Progress.Sections {
		if sec.Status != workflows.SectionRunning {
			continue
		}
		secID := workflows.SectionWorkflowID(s.User, s.NotebookID, sec.ID)
		v, err := g.Client.QueryWorkflow(ctx, secID, "", workflows.QueryProgress)
		var sp workflows.SectionProgress
		if err == nil && v.Get(&sp) == nil {
			s.Sections[sec.ID] = sp
		}
		if d, err := g.Client.DescribeWorkflow(ctx, secID, ""); err == nil {
			s.Lost = append(s.Lost, LostWorkers(secID, d.RawResponse.GetPendingActivities(), s.Now)...)
		}
	}
	s.Limiter = g.limiterState(ctx)
	return s, nil
}

// pollWindow is how recently a worker must have polled to count as up.
const pollWindow = time.Minute

// workersDown names the workers as down when none polled the task queue
// within pollWindow ("" when one did, or the server cannot tell).
func (g *Gatherer) workersDown(ctx context.Context, queue string) string {
	if queue == "" {
		return ""
	}
	resp, err := g.Client.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return ""
	}
	for _, p := range resp.GetPollers() {
		if time.Since(p.GetLastAccessTime().AsTime()) < pollWindow {
			return ""
		}
	}
	return fmt.Sprintf("down: the workers (none polled task queue %q in the last %s); start one: go run ./worker, "+
		"or docker compose up -d worker, or the cluster's worker processes", queue, ShortDur(pollWindow))
}

// limiterState queries the Graph limiter: the one of -app-id, or the only
// one running.
func (g *Gatherer) limiterState(ctx context.Context) *entity.State {
	if g.limiterID == "" && g.App != "" {
		g.limiterID = entity.WorkflowID(workflows.LimiterResource, g.App)
	}
	if g.limiterID == "" {
		resp, err := g.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 2,
			Query: fmt.Sprintf("WorkflowType = %q AND ExecutionStatus = \"Running\"", entity.WorkflowName)})
		if err != nil || len(resp.GetExecutions()) != 1 {
			return nil
		}
		g.limiterID = resp.GetExecutions()[0].GetExecution().GetWorkflowId()
	}
	v, err := g.Client.QueryWorkflow(ctx, g.limiterID, "", entity.QueryState)
	if err != nil {
		return nil
	}
	var st entity.State
	if v.Get(&st) != nil {
		return nil
	}
	return &st
}

// Keyword decodes a Keyword search attribute ("" when it is not set).
func Keyword(sa *commonpb.SearchAttributes, name string) string {
	p := sa.GetIndexedFields()[name]
	if p == nil {
		return ""
	}
	var s string
	if converter.GetDefaultDataConverter().FromPayload(p, &s) != nil {
		return ""
	}
	return s
}
