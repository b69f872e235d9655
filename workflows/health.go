package workflows

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/internal/seconds"
	"github.com/notebridge/notebridge/internal/shell"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// The notebook workflow is the one source of a migration's health: its
// running sections report their counts and the last upstream error they
// saw (SignalSectionProgress, at most once per pulse interval, and only
// when something changed), and the notebook's progress query adds them
// up, names a stall and the next thing a person can do.

// SignalSectionProgress carries a SectionPulse from a running section to
// its notebook.
const SignalSectionProgress = "section-progress"

// Upstream services.
const (
	ServiceGraph  = "Graph"
	ServiceNotion = "Notion"
)

// maxHealthText bounds an error message kept for the health report.
const maxHealthText = 300

// UpstreamError is an error an upstream service answered: which service,
// its code ("429/20166": HTTP status and OneNote code) and message, and
// when.
type UpstreamError struct {
	Service string `json:"service"`
	Code    string `json:"code,omitempty"`
	// Type is the error's type in the failure taxonomy.
	Type    string    `json:"type,omitempty"`
	Message string    `json:"message"`
	Section string    `json:"section,omitempty"`
	At      time.Time `json:"at"`
	// Ongoing is set while no call to the service has succeeded since;
	// Since is when the service began failing.
	Ongoing bool      `json:"ongoing,omitempty"`
	Since   time.Time `json:"since,omitzero"`
}

// String is "Graph 503/20001 at 01:02:03 (ongoing): message".
func (e *UpstreamError) String() string {
	if e == nil {
		return ""
	}
	s := e.Service
	if e.Code != "" {
		s += " " + e.Code
	} else if e.Type != "" {
		s += " " + e.Type
	}
	s += " at " + e.At.UTC().Format(time.TimeOnly) + " UTC"
	if e.Ongoing {
		s += " (still failing)"
	}
	if e.Section != "" {
		s += " in " + strconv.Quote(e.Section)
	}
	return s + ": " + e.Message
}

// BreakerHold is a limiter breaker that holds a section's Graph
// requests: its scope ("app" or "user"), why it opened and when it lets
// a probe through.
type BreakerHold struct {
	Scope  string    `json:"scope"`
	Reason string    `json:"reason"`
	Until  time.Time `json:"until"`
}

// String is "the user breaker holds Graph requests until 01:02:03 UTC
// (throttled (429/20166))".
func (b *BreakerHold) String() string {
	return fmt.Sprintf("the limiter's %s breaker holds Graph requests until %s UTC (%s)", b.Scope,
		b.Until.UTC().Format(time.TimeOnly), b.Reason)
}

// holds is implemented by a Caller that hears of breaker holds
// (*entity.Client).
type holds interface{ NotifyHolds(func(entity.Hold)) }

// SectionPulse is what a running section tells its notebook: its page
// counts so far and the last upstream error it saw.
type SectionPulse struct {
	SectionID string `json:"sectionID"`
	Phase     string `json:"phase"`
	Pages     int    `json:"pages"`
	Done      int    `json:"done"`
	Failed    int    `json:"failed"`
	Skipped   int    `json:"skipped"`
	Permits   int    `json:"permits"`
	// Waited is in seconds in JSON (MarshalJSON).
	Waited time.Duration `json:"-"`
	// Unsent counts the permit units the run (with the runs it continued
	// from) gave back to the limiter as never sent, so far.
	Unsent int `json:"unsent,omitempty"`
	// LastPage is when a page last finished (the section's start before
	// the first).
	LastPage  time.Time      `json:"lastPage"`
	LastError *UpstreamError `json:"lastError,omitempty"`
	Breaker   *BreakerHold   `json:"breaker,omitempty"`
	At        time.Time      `json:"at"`
}

// Health is the notebook's judgement of how its migration goes.
type Health struct {
	// State is "ok", "failing" (an upstream service fails now, pages
	// still move), "stalled", "waiting" (for an operator) or the phase
	// once the sections are past.
	State string `json:"state"`
	// LastPage is when a page last finished.
	LastPage  time.Time      `json:"lastPage,omitzero"`
	LastError *UpstreamError `json:"lastError,omitempty"`
	// Breaker is the limiter breaker holding Graph requests now, as the
	// limiter last told a section (nil when none is known to be open).
	Breaker *BreakerHold `json:"breaker,omitempty"`
	// StallAfter is how long without a page the Graph budget explains;
	// Stall names a stall and its likely cause ("" if none).
	StallAfter seconds.Duration `json:"stallAfterSeconds"`
	Stall      string           `json:"stall,omitempty"`
	// Next is what a person can do now: the exact command.
	Next string `json:"next,omitempty"`
}

// Budget is what the Graph limits spec says about a migration's pace.
type Budget struct {
	// PerRequest is the user's sustained pace: the slowest of its rate
	// windows, per request.
	PerRequest time.Duration
}

// BudgetOf reads a limits spec.
func BudgetOf(spec limiter.Spec) Budget {
	var b Budget
	for _, w := range spec.User.Windows {
		if w.Limit > 0 {
			b.PerRequest = max(b.PerRequest, w.Per.D()/time.Duration(w.Limit))
		}
	}
	return b
}

// Pulse is how often, at most, a section reports to its notebook: three
// requests' worth of the budget, from a second to 30 seconds. A real
// (400 an hour) run pulses at most twice a minute per section; a
// time-scaled one keeps up with its faster clock.
func (b Budget) Pulse() time.Duration {
	return min(max(3*b.PerRequest, time.Second), 30*time.Second)
}

// StallAfter is how long without a finished page the budget explains: 30
// requests' worth (a page with its resources waiting its turn), at least
// 30 seconds (Notion's pace, which is not scaled), plus a pulse for the
// news to arrive.
func (b Budget) StallAfter() time.Duration {
	return max(30*b.PerRequest, 30*time.Second) + b.Pulse()
}

// upstreamOf describes err, an error of service ("" to tell it by the
// error's type), for the health report; nil for an error no upstream
// answered (a cancellation, a lost worker, a conversion).
func upstreamOf(service string, err error, o limiter.Outcome, at time.Time, section string) *UpstreamError {
	var app *temporal.ApplicationError
	var timeout *temporal.TimeoutError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &app) && errors.As(err, &timeout) && service != "":
		return &UpstreamError{Service: service, Type: "timeout", Message: "no answer within the activity's timeout",
			Section: section, At: at, Ongoing: true}
	case app == nil:
		return nil
	}
	if service == "" {
		switch {
		case strings.HasPrefix(app.Type(), ServiceNotion):
			service = ServiceNotion
		case strings.HasPrefix(app.Type(), ServiceGraph) || app.Type() == failure.NotSignedIn:
			service = ServiceGraph
		default:
			return nil
		}
	}
	e := &UpstreamError{Service: service, Type: app.Type(), Section: section, At: at, Ongoing: true}
	if o.Status == 0 && o.Code == "" && app.HasDetails() {
		_ = app.Details(&o)
	}
	e.Code = outcomeCode(o)
	if app.Type() == failure.SectionProtected || app.Type() == failure.Refused || app.Type() == failure.Config {
		return nil
	}
	if o.Status == 0 && !strings.HasPrefix(app.Type(), service) && app.Type() != failure.NotSignedIn {
		// Not an answer of the service (staging, conversion, a local
		// failure).
		return nil
	}
	e.Message = clipText(app.Message(), maxHealthText)
	return e
}

// notionFailing is what a Notion activity signalled while its client
// retries a failing request (activities.SignalUpstreamFailing), as an
// upstream error of section ("" for the notebook's own activities).
func notionFailing(f activities.UpstreamFailure, section string) *UpstreamError {
	e := &UpstreamError{Service: ServiceNotion, Type: failure.NotionRetryable, Message: clipText(f.Message, maxHealthText),
		Section: section, At: f.At, Ongoing: true}
	switch {
	case f.Status != 0 && f.Code != "":
		e.Code = fmt.Sprintf("%d/%s", f.Status, f.Code)
	case f.Status != 0:
		e.Code = strconv.Itoa(f.Status)
	default:
		e.Type = "no answer"
	}
	return e
}

// receiveFailures hands record each failure the workflow's Notion
// activities signal while their client retries, so the health names a
// Notion outage at its first failed request, not minutes later when a
// page gives up.
func receiveFailures(ctx workflow.Context, section string, record func(workflow.Context, *UpstreamError)) {
	ch := workflow.GetSignalChannelWithOptions(ctx, activities.SignalUpstreamFailing, workflow.SignalChannelOptions{
		Description: "A Notion request failing while the client retries it (sent by the Notion activities, at most every 30 s)"})
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var f activities.UpstreamFailure
			if !ch.Receive(ctx, &f) {
				return
			}
			record(ctx, notionFailing(f, section))
		}
	})
}

// outcomeCode is an answer's code for the health report: "503/10002"
// (HTTP status and OneNote code), "503", or "" without an answer.
func outcomeCode(o limiter.Outcome) string {
	switch {
	case o.Status != 0 && o.Code != "":
		return fmt.Sprintf("%d/%s", o.Status, o.Code)
	case o.Status != 0:
		return strconv.Itoa(o.Status)
	}
	return ""
}

// observe is the section's entity.Call hook: it keeps the last Graph
// error, and marks it past once a Graph call succeeds.
func (s *section) observe(a entity.Attempt) {
	if a.Err == nil {
		s.recovered(ServiceGraph)
		return
	}
	s.upstream(upstreamOf(ServiceGraph, a.Err, a.Outcome, a.At, s.in.Section.Path))
}

// held is told the limiter queued a Graph request behind an open breaker.
func (s *section) held(h entity.Hold) {
	b := &BreakerHold{Scope: h.Scope, Reason: h.Breaker.Reason, Until: h.Breaker.Until}
	if s.breaker == nil || *s.breaker != *b {
		s.breaker = b
		s.changes++
	}
}

// upstream records e as the section's last upstream error.
func (s *section) upstream(e *UpstreamError) {
	if e == nil {
		return
	}
	e.Since = e.At
	if l := s.lastErr; l != nil && l.Ongoing && l.Service == e.Service && !l.Since.IsZero() {
		e.Since = l.Since
	} else {
		s.urgent = true
	}
	s.lastErr = e
	s.changes++
}

// recovered marks the last error of service past.
func (s *section) recovered(service string) {
	if s.lastErr != nil && s.lastErr.Ongoing && s.lastErr.Service == service {
		c := *s.lastErr
		c.Ongoing = false
		s.lastErr = &c
		s.changes++
	}
}

// pulse is the section's report to its notebook now.
func (s *section) pulse(ctx workflow.Context) SectionPulse {
	p := s.progress(ctx)
	return SectionPulse{SectionID: s.in.Section.ID, Phase: p.Phase, Pages: p.Pages, Done: p.Done, Failed: p.Failed,
		Skipped: p.Skipped, Permits: p.Permits, Waited: p.Waited, Unsent: s.unsent(), LastPage: s.lastPage, LastError: s.lastErr,
		Breaker: s.breaker, At: workflow.Now(ctx)}
}

// reportProgress sends the notebook a pulse whenever something changed,
// at most once per pulse interval, until the section ends. A section run
// alone (no parent) reports nothing.
func (s *section) reportProgress(ctx workflow.Context) {
	parent := workflow.GetInfo(ctx).ParentWorkflowExecution
	if parent == nil {
		return
	}
	every := s.budget.Pulse()
	workflow.Go(ctx, func(ctx workflow.Context) {
		sent := 0
		var last time.Time
		for {
			if err := workflow.Await(ctx, func() bool { return s.changes != sent }); err != nil {
				return
			}
			if wait := last.Add(every).Sub(workflow.Now(ctx)); !last.IsZero() && wait > 0 && !s.urgent {
				// A service that starts failing is news at once: it ends
				// the hold.
				if _, err := workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: wait,
					TimerOptions: workflow.TimerOptions{Summary: "Hold the next progress report to the notebook"}},
					func() bool { return s.urgent }); err != nil {
					return
				}
			}
			sent, last, s.urgent = s.changes, workflow.Now(ctx), false
			// Best effort: a notebook gone has nobody to tell.
			_ = workflow.SignalExternalWorkflow(ctx, parent.ID, "", SignalSectionProgress, s.pulse(ctx))
		}
	})
}

// receivePulses takes the running sections' reports.
func (nb *notebook) receivePulses(ctx workflow.Context) {
	ch := workflow.GetSignalChannelWithOptions(ctx, SignalSectionProgress,
		workflow.SignalChannelOptions{Description: "A running section's page counts and last upstream error (sent by MigrateSection)"})
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var p SectionPulse
			if !ch.Receive(ctx, &p) {
				return
			}
			_, s := nb.section(p.SectionID)
			if s == nil || s.Status != SectionRunning {
				continue // late: the section has ended
			}
			nb.live[s.ID] = &p
			nb.heard(p.LastPage, p.LastError)
			if b := p.Breaker; b != nil && (nb.breaker == nil || b.Until.After(nb.breaker.Until)) {
				nb.breaker = b
			}
			nb.details(ctx)
		}
	})
}

// heard keeps the latest page time and upstream error a section reported.
func (nb *notebook) heard(lastPage time.Time, e *UpstreamError) {
	if lastPage.After(nb.lastPage) {
		nb.lastPage = lastPage
	}
	if e == nil || (nb.lastErr != nil && e.At.Before(nb.lastErr.At)) {
		return
	}
	c := *e
	if c.Since.IsZero() {
		c.Since = c.At
	}
	if l := nb.lastErr; l != nil && l.Ongoing && l.Service == c.Service && c.Ongoing && l.Since.Before(c.Since) {
		c.Since = l.Since
	}
	nb.lastErr = &c
}

// recovered marks the notebook's last error of service past (one of its
// own calls to the service succeeded).
func (nb *notebook) recovered(service string) {
	if e := nb.lastErr; e != nil && e.Ongoing && e.Service == service {
		c := *e
		c.Ongoing = false
		nb.lastErr = &c
	}
}

// health judges the migration at nb.now from what the sections reported.
func (nb *notebook) health(p NotebookProgress) Health {
	h := Health{State: "ok", LastPage: nb.lastPage, LastError: nb.lastErr, StallAfter: seconds.Of(nb.budget.StallAfter())}
	if b := nb.breaker; b != nil && b.Until.After(nb.now) && p.Running > 0 {
		h.Breaker = b
	}
	since := nb.lastPage
	if nb.resumed.After(since) {
		since = nb.resumed
	}
	switch {
	case nb.phase == PhaseWaiting:
		h.State = "waiting"
		h.Next = nb.retryCommand(p)
		return h
	case p.Running == 0 && nb.phase != "migrating":
		h.State = nb.phase
		if stall, next := nb.stepStall(); stall != "" {
			h.State, h.Stall, h.Next = "stalled", stall, next
			return h
		}
		if nb.lastErr != nil && nb.lastErr.Ongoing && !nb.ended && nb.phase != "failed" && nb.phase != "stopped" {
			h.State = "failing"
			h.Next = nb.nextAction(h)
		}
		return h
	case p.Running > 0 && !since.IsZero() && nb.now.Sub(since) > h.StallAfter.D():
		h.State = "stalled"
		h.Stall = fmt.Sprintf("stalled: no page done for %s (the Graph budget explains %s): %s",
			nb.now.Sub(since).Round(time.Second), h.StallAfter.D().Round(time.Second), nb.stallCause(h, since))
	case nb.lastErr != nil && nb.lastErr.Ongoing:
		h.State = "failing"
	}
	h.Next = nb.nextAction(h)
	return h
}

// stallCause is the likely reason no page finished since.
func (nb *notebook) stallCause(h Health, since time.Time) string {
	e := nb.lastErr
	switch {
	case h.Breaker != nil && e != nil && e.Ongoing && e.Service == ServiceGraph:
		return fmt.Sprintf("Graph has been failing since %s UTC, and %s", e.Since.UTC().Format(time.TimeOnly), h.Breaker)
	case h.Breaker != nil:
		return h.Breaker.String()
	case e != nil && e.Ongoing:
		return fmt.Sprintf("%s has been failing since %s UTC", e.Service, e.Since.UTC().Format(time.TimeOnly))
	case e != nil && !e.At.Before(since):
		return "the last upstream error came after the last page: " + e.String()
	}
	return "no upstream error reported: the sections wait for Graph permits (the limiter's breaker or budget) or for a worker"
}

// nextAction is the command a person can run now; each command is in
// backticks and quoted for a shell (command), so it pastes.
func (nb *notebook) nextAction(h Health) string {
	lim := nb.dep.limiterOf(nb.in.User)
	e := h.LastError
	switch {
	case e != nil && e.Ongoing && (e.Type == failure.NotSignedIn || e.Type == failure.GraphAuth):
		return command("starter", "login", "--user", nb.in.User)
	case e != nil && e.Ongoing && e.Type == failure.NotionAuth:
		return "check the worker's Notion token (NOTION_TOKEN), then restart the worker"
	case (h.Stall != "" || h.State == "failing") && (h.Breaker != nil || e != nil && e.Ongoing && e.Service == ServiceGraph):
		return "wait: the pages go on by themselves once Graph answers; the limiter's breakers (cause, when they close): " +
			command("temporal", "workflow", "query", "--workflow-id", lim, "--name", entity.QueryState)
	case (h.Stall != "" || h.State == "failing") && e != nil && e.Ongoing:
		return "wait: the pages retry by themselves once Notion answers (https://status.notion.so); " +
			"the retrying requests: " + command("temporal", "workflow", "describe", "--workflow-id", nb.failingWorkflow(e))
	case h.Stall != "":
		return "check a worker polls the task queue (" + command("temporal", "task-queue", "describe", "--task-queue", nb.taskQueue) +
			") and the limiter (" + command("temporal", "workflow", "query", "--workflow-id", lim, "--name", entity.QueryState) + ")"
	}
	return ""
}

// failingWorkflow is the workflow whose pending activities retry e: the
// section it names, or the notebook.
func (nb *notebook) failingWorkflow(e *UpstreamError) string {
	for _, s := range nb.sections {
		if e.Section != "" && s.Path == e.Section {
			return SectionWorkflowID(nb.in.User, nb.idOr(), s.ID)
		}
	}
	return NotebookWorkflowID(nb.in.User, nb.idOr())
}

// retryCommand is the operator's way out of the wait for retries.
func (nb *notebook) retryCommand(p NotebookProgress) string {
	id := NotebookWorkflowID(nb.in.User, nb.idOr())
	for _, s := range p.Sections {
		if retriable(s.Status) {
			return command("starter", "retry", "--user", nb.in.User, "--notebook", nb.idOr(), "--section", s.Path) +
				" (or --all; or `starter finish`), or " +
				command("temporal", "workflow", "update", "execute", "--workflow-id", id, "--name", UpdateRetrySection,
					"--input", strconv.Quote(s.ID)) // a JSON string for an ID (no JSON encoder in workflow code)
		}
	}
	return ""
}

// idOr is the notebook's ID, or what the input named until it is known.
func (nb *notebook) idOr() string {
	if nb.id != "" {
		return nb.id
	}
	return nb.in.Notebook
}

// watchStalls refreshes the Web UI's current details once a stall is
// due (no page for StallAfter while sections run), so the details name it
// even though nothing else wakes the workflow.
func (nb *notebook) watchStalls(ctx workflow.Context) {
	after := nb.budget.StallAfter()
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			if err := workflow.Await(ctx, func() bool { return nb.running > 0 && !nb.ended }); err != nil {
				return
			}
			since := nb.lastPage
			if nb.resumed.After(since) {
				since = nb.resumed
			}
			wait := since.Add(after).Sub(workflow.Now(ctx))
			if wait <= 0 {
				wait = after
			}
			t := workflow.NewTimerWithOptions(ctx, wait+time.Second, workflow.TimerOptions{
				Summary: fmt.Sprintf("Check for a stall (no page done for %s)", after.Round(time.Second))})
			if err := t.Get(ctx, nil); err != nil {
				return
			}
			nb.details(ctx)
		}
	})
}

// healthMarkdown is the health part of the Web UI's current details.
func healthMarkdown(h Health) string {
	var b strings.Builder
	if h.Stall != "" {
		b.WriteString("\n\n**" + h.Stall + "**")
	}
	if e := h.LastError; e != nil {
		b.WriteString("\n\nLast upstream error: " + e.String())
	}
	if br := h.Breaker; br != nil && h.Stall == "" {
		b.WriteString("\n\n" + br.String())
	}
	if h.Next != "" {
		b.WriteString("\n\nNext: `" + h.Next + "`")
	}
	if b.Len() == 0 {
		b.WriteString("\n\nHealth: " + h.State + ", no upstream error")
	}
	return b.String()
}

// orNone is s, or "(none)".
func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// command is a command a person can paste: its words quoted for a shell
// (shell.Quote: OneNote IDs hold "!"), in backticks, as the Web UI's
// Markdown shows code. It names no Temporal address: the workflow does
// not know which one the person uses (starter's own hints add it).
func command(words ...string) string {
	return "`" + shell.Join(words...) + "`"
}
