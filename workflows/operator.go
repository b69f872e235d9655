package workflows

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/failure"
)

// The operator's updates of a notebook: retry-section, retry-failed and
// finish. Each has a validator, so the operator gets at once either a yes
// (the update's result says what the notebook will do) or a Refused error
// that says why not; a refused update leaves no trace in history.

// handleUpdates registers the notebook's update handlers.
func (nb *notebook) handleUpdates(ctx workflow.Context) error {
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateRetrySection,
		func(_ workflow.Context, id string) (string, error) { return nb.retrySection(id), nil },
		workflow.UpdateHandlerOptions{Validator: nb.validateRetrySection,
			Description: "Run a failed or skipped section again; takes its ID, name or path"}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateRetryFailed,
		func(workflow.Context) (string, error) { return nb.retryFailed(), nil },
		workflow.UpdateHandlerOptions{Validator: nb.validateRetryFailed,
			Description: "Run every failed or skipped section again"}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateFinish,
		func(workflow.Context) (string, error) { return nb.finishNow(), nil },
		workflow.UpdateHandlerOptions{Validator: nb.validateFinish,
			Description: "Stop waiting for retries: rewrite the links and complete with a report of what failed"})
}

// refused is a validator's answer: nothing changes, and why.
func refused(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), failure.Refused, nil)
}

// section finds a section by ID, name or path.
func (nb *notebook) section(id string) (int, *SectionSummary) {
	id = strings.TrimSpace(id)
	for i, s := range nb.sections {
		if s.ID == id || s.Name == id || s.Path == id {
			return i, s
		}
	}
	return -1, nil
}

// runsSections refuses while the notebook cannot run a section again:
// still reading its tree, stopping, or past its sections.
func (nb *notebook) runsSections() error {
	switch {
	case nb.sections == nil:
		return refused("the notebook is still %s: no section has run yet", nb.phase)
	case nb.stop != nil:
		return refused("the migration is stopping, no section starts again: %s", failure.Find(nb.stop).Message())
	case nb.finish || nb.ended:
		return refused("the notebook is past its sections (%s): start the migration again to retry what failed", nb.phase)
	}
	return nil
}

// retriableList names the sections a retry can run, for a refusal.
func (nb *notebook) retriableList() string {
	var names []string
	for _, s := range nb.sections {
		if retriable(s.Status) {
			names = append(names, fmt.Sprintf("%q (%s, %s)", s.Path, s.ID, s.Status))
		}
	}
	if len(names) == 0 {
		return "no section has failed or been skipped"
	}
	return "the sections that can be retried are " + strings.Join(names, ", ")
}

func (nb *notebook) validateRetrySection(id string) error {
	if err := nb.runsSections(); err != nil {
		return err
	}
	_, s := nb.section(id)
	if s == nil {
		return refused("no section %q in this notebook: %s", id, nb.retriableList())
	}
	switch s.Status {
	case SectionRunning:
		return refused("section %q is running: retry it once it has failed", s.Path)
	case SectionPending:
		return refused("section %q is already waiting to run", s.Path)
	case SectionDone:
		return refused("section %q is done, nothing to retry (starting the migration again picks up pages changed since)", s.Path)
	}
	return nil
}

// retrySection queues a failed or skipped section (validated) again.
func (nb *notebook) retrySection(id string) string {
	i, s := nb.section(id)
	s.Status = SectionPending
	nb.queue = append(nb.queue, i)
	nb.changes++
	return fmt.Sprintf("section %q (%s) runs again", s.Path, s.ID)
}

func (nb *notebook) validateRetryFailed() error {
	if err := nb.runsSections(); err != nil {
		return err
	}
	if nb.waiting() == 0 {
		return refused("%s: nothing to retry", nb.retriableList())
	}
	return nil
}

// retryFailed queues every failed or skipped section again.
func (nb *notebook) retryFailed() string {
	n := 0
	for i, s := range nb.sections {
		if retriable(s.Status) {
			s.Status = SectionPending
			nb.queue = append(nb.queue, i)
			n++
		}
	}
	nb.changes++
	return fmt.Sprintf("%d failed or skipped sections run again", n)
}

func (nb *notebook) validateFinish() error {
	if err := nb.runsSections(); err != nil {
		return err
	}
	var busy []string
	for _, s := range nb.sections {
		if s.Status == SectionRunning || s.Status == SectionPending {
			busy = append(busy, fmt.Sprintf("%q (%s)", s.Path, s.Status))
		}
	}
	if len(busy) > 0 {
		return refused("%d sections still run or wait to run (%s): finish once they have ended and the notebook waits",
			len(busy), strings.Join(busy, ", "))
	}
	return nil
}

// finishNow ends the wait for retries: the notebook rewrites the links
// and completes, reporting what failed.
func (nb *notebook) finishNow() string {
	nb.finish = true
	nb.changes++
	return fmt.Sprintf("finishing: the report lists %d failed or skipped sections", nb.waiting())
}

// RetrySection asks notebook workflowID to run a failed or skipped section
// (its ID, name or path) again, and returns the notebook's answer: what it
// will do, or a failure.Refused error saying why not.
func RetrySection(ctx context.Context, c client.Client, workflowID, section string) (string, error) {
	return sendUpdate(ctx, c, workflowID, UpdateRetrySection, section)
}

// RetryFailed asks notebook workflowID to run every failed or skipped
// section again.
func RetryFailed(ctx context.Context, c client.Client, workflowID string) (string, error) {
	return sendUpdate(ctx, c, workflowID, UpdateRetryFailed)
}

// Finish asks notebook workflowID, which waits with failed or skipped
// sections, to complete with its report.
func Finish(ctx context.Context, c client.Client, workflowID string) (string, error) {
	return sendUpdate(ctx, c, workflowID, UpdateFinish)
}

func sendUpdate(ctx context.Context, c client.Client, workflowID, name string, args ...any) (string, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: workflowID, UpdateName: name, Args: args,
		WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return "", fmt.Errorf("%s of %s: %w", name, workflowID, err)
	}
	var answer string
	if err := h.Get(ctx, &answer); err != nil {
		return "", fmt.Errorf("%s of %s: %w", name, workflowID, err)
	}
	return answer, nil
}
