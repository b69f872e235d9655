package main

import (
	"context"
	"fmt"
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

// snapshot is what the status display shows of one migration at one
// moment.
type snapshot struct {
	id                   string
	status               enumspb.WorkflowExecutionStatus
	started, closed, now time.Time
	user, notebookID     string
	// progress is the notebook's progress query (when it answered).
	progress   workflows.NotebookProgress
	progressOK bool
	// sections holds the progress of running sections, by section ID.
	sections map[string]workflows.SectionProgress
	// report is the result of a completed migration; failure the error
	// of one that ended otherwise.
	report  *workflows.NotebookReport
	failure error
	// limiter is the Graph limiter's state, if it answered.
	limiter *entity.State
}

func (s *snapshot) running() bool { return s.status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING }

// waiting reports whether the notebook waits for an operator's signal.
func (s *snapshot) waiting() bool {
	return s.running() && s.progressOK && s.progress.Phase == workflows.PhaseWaiting
}

// sectionList is the sections the snapshot knows: from the progress
// query, or from the report once the workflow completed.
func (s *snapshot) sectionList() []workflows.SectionSummary {
	if s.progressOK {
		return s.progress.Sections
	}
	if s.report != nil {
		return s.report.Sections
	}
	return nil
}

// totals are a migration's page counts summed over its sections.
type totals struct {
	pages     int // known pages
	done      int // done pages, unchanged ones included
	unchanged int // skipped because unchanged (or deleted in OneNote)
	failed    int
	remaining int
	// unknown counts sections whose page count is not known yet (not
	// listed, and not in the last scan).
	unknown int
	// sections by status
	secDone, secRunning, secPending, secFailed int
	permits                                    int
	waited                                     time.Duration
	eta                                        time.Duration
}

// totalsOf adds up a snapshot; scan maps section IDs to the page counts
// of the user's last scan (nil if none).
func totalsOf(s *snapshot, scan map[string]int) totals {
	var t totals
	unlisted := func(id string) {
		if n, ok := scan[id]; ok {
			t.pages += n
			t.remaining += n
		} else {
			t.unknown++
		}
	}
	var runningETA time.Duration
	if len(s.sectionList()) == 0 {
		// The notebook has not listed its sections yet: the scan's count.
		for _, n := range scan {
			t.pages += n
			t.remaining += n
		}
	}
	for _, sec := range s.sectionList() {
		switch sec.Status {
		case workflows.SectionDone:
			t.secDone++
		case workflows.SectionFailed:
			t.secFailed++
		case workflows.SectionRunning:
			t.secRunning++
		default:
			t.secPending++
		}
		if sec.Status == workflows.SectionRunning {
			sp, ok := s.sections[sec.ID]
			if !ok || (sp.Pages == 0 && sp.Phase == "listing") {
				unlisted(sec.ID)
				continue
			}
			t.pages += sp.Pages
			t.failed += sp.Failed
			t.remaining += sp.Remaining
			t.done += sp.Pages - sp.Remaining - sp.Failed
			t.unchanged += sp.Skipped
			t.permits += sp.Permits
			t.waited += sp.Waited
			runningETA = max(runningETA, sp.ETA)
			continue
		}
		if sec.Status == workflows.SectionPending || (sec.Status == workflows.SectionFailed && sec.Pages == 0 && sec.Error != "") {
			// Not started, or failed before it listed its pages.
			unlisted(sec.ID)
			continue
		}
		t.pages += sec.Pages
		t.failed += sec.Failed
		t.done += sec.Pages - sec.Failed
		t.unchanged += sec.Skipped
	}
	if s.progressOK {
		t.permits += s.progress.Permits
		t.waited += s.progress.Waited
	}
	worked := t.done - t.unchanged + t.failed
	elapsed := s.now.Sub(s.started)
	switch {
	case !s.running() || s.waiting() || t.remaining == 0 && t.unknown == 0:
	case worked > 0 && t.unknown == 0 && elapsed > 0:
		t.eta = (elapsed / time.Duration(worked) * time.Duration(t.remaining)).Round(time.Second)
	case s.progress.ETA > 0:
		t.eta = s.progress.ETA
	default:
		t.eta = runningETA
	}
	return t
}

// pagesText is "52/160 pages" ("52/160+" while some sections are not
// counted yet).
func (t totals) pagesText() string {
	plus := ""
	if t.unknown > 0 {
		plus = "+"
	}
	return fmt.Sprintf("%d/%d%s pages", t.done, t.pages, plus)
}

func (t totals) etaText() string {
	if t.eta <= 0 {
		return "-"
	}
	return shortDur(t.eta)
}

// budgetText is the user's use of the Graph budget: "alice 96/120 per 1m,
// 310/400 per 1h, 3/5 at once" (and the breaker, when it is not closed).
func budgetText(st *entity.State, user string) string {
	if st == nil {
		return ""
	}
	for _, u := range st.Model.Users {
		if u.User == user {
			s := user + " " + scopeText(u.ScopeUsage)
			if q := u.Queued[limiter.Foreground] + u.Queued[limiter.Background]; q > 0 {
				s += fmt.Sprintf(", %d queued", q)
			}
			return s
		}
	}
	return user + " idle"
}

func scopeText(su limiter.ScopeUsage) string {
	var parts []string
	for _, w := range su.Windows {
		p := fmt.Sprintf("%d/%d per %s", w.Used, w.Effective, shortDur(w.Per))
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

// shortDur prints 1m for 1m0s and 1h for 1h0m0s.
func shortDur(d time.Duration) string {
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

// line is the one-line status: what follow prints.
func line(s *snapshot, t totals) string {
	parts := []string{
		fmt.Sprintf("%s done, %d failed, %d left", t.pagesText(), t.failed, t.remaining),
		"ETA " + t.etaText(),
		fmt.Sprintf("permit waits %s (%d permits)", shortDur(t.waited.Round(100*time.Millisecond)), t.permits),
	}
	if b := budgetText(s.limiter, s.user); b != "" {
		parts = append(parts, "budget "+b)
	}
	phase := s.progress.Phase
	if !s.running() {
		phase = statusName(s.status)
	} else if phase == "" {
		phase = "starting"
	}
	parts = append(parts, phase)
	return strings.Join(parts, " · ")
}

// bar is a progress bar of done out of pages.
func bar(t totals, width int) string {
	n := 0
	if t.pages > 0 {
		n = min(width, t.done*width/t.pages)
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

// statusName is an execution status as a person says it.
func statusName(st enumspb.WorkflowExecutionStatus) string {
	name := strings.TrimPrefix(st.String(), "WORKFLOW_EXECUTION_STATUS_")
	if name == "" || st == enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED {
		return "unknown"
	}
	return strings.ReplaceAll(strings.ToLower(name), "_", " ")
}

// gatherer collects snapshots of one migration.
type gatherer struct {
	tc    client.Client
	id    string
	appID string
	// limiterID is the limiter's workflow ID, once found.
	limiterID string
}

// gather takes a snapshot.
func (g *gatherer) gather(ctx context.Context) (*snapshot, error) {
	desc, err := g.tc.DescribeWorkflow(ctx, g.id, "")
	if err != nil {
		return nil, notFound(err, g.id, "")
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	s := &snapshot{id: g.id, status: info.GetStatus(), started: info.GetStartTime().AsTime(), now: time.Now(),
		sections: map[string]workflows.SectionProgress{}}
	if info.GetCloseTime() != nil {
		s.closed = info.GetCloseTime().AsTime()
	}
	s.user = keyword(info.GetSearchAttributes(), workflows.AttrUser.GetName())
	s.notebookID = keyword(info.GetSearchAttributes(), workflows.AttrNotebook.GetName())
	if parts := strings.SplitN(g.id, "/", 3); len(parts) == 3 && parts[0] == "migrate" {
		if s.user == "" {
			s.user = parts[1]
		}
		if s.notebookID == "" {
			s.notebookID = parts[2]
		}
	}
	runID := info.GetExecution().GetRunId()
	// A closed migration answers queries too (a worker replays it): its
	// final counts, permits included. Best effort.
	if v, err := g.tc.QueryWorkflow(ctx, g.id, runID, workflows.QueryProgress); err == nil && v.Get(&s.progress) == nil {
		s.progressOK = true
	}
	if !s.running() {
		if s.status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			var rep workflows.NotebookReport
			if err := g.tc.GetWorkflow(ctx, g.id, runID).Get(ctx, &rep); err != nil {
				return nil, fmt.Errorf("result of %s: %w", g.id, err)
			}
			s.report = &rep
		} else {
			s.failure = g.tc.GetWorkflow(ctx, g.id, runID).Get(ctx, nil)
			if s.failure == nil {
				s.failure = fmt.Errorf("the workflow is %s", statusName(s.status))
			}
		}
		return s, nil
	}
	for _, sec := range s.progress.Sections {
		if sec.Status != workflows.SectionRunning {
			continue
		}
		v, err := g.tc.QueryWorkflow(ctx, workflows.SectionWorkflowID(s.user, s.notebookID, sec.ID), "", workflows.QueryProgress)
		var sp workflows.SectionProgress
		if err == nil && v.Get(&sp) == nil {
			s.sections[sec.ID] = sp
		}
	}
	s.limiter = g.limiterState(ctx)
	return s, nil
}

// limiterState queries the Graph limiter: the one of -app-id, or the only
// one running.
func (g *gatherer) limiterState(ctx context.Context) *entity.State {
	if g.limiterID == "" && g.appID != "" {
		g.limiterID = entity.WorkflowID(workflows.LimiterResource, g.appID)
	}
	if g.limiterID == "" {
		resp, err := g.tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 2,
			Query: fmt.Sprintf("WorkflowType = %q AND ExecutionStatus = \"Running\"", entity.WorkflowName)})
		if err != nil || len(resp.GetExecutions()) != 1 {
			return nil
		}
		g.limiterID = resp.GetExecutions()[0].GetExecution().GetWorkflowId()
	}
	v, err := g.tc.QueryWorkflow(ctx, g.limiterID, "", entity.QueryState)
	if err != nil {
		return nil
	}
	var st entity.State
	if v.Get(&st) != nil {
		return nil
	}
	return &st
}

// keyword decodes a Keyword search attribute.
func keyword(sa *commonpb.SearchAttributes, name string) string {
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
