package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/readiness"
)

// CheckReadinessName is CheckReadiness's registered name.
const CheckReadinessName = "CheckReadiness"

// CheckReadinessInput is what a run is about to do.
type CheckReadinessInput struct {
	// Sections and Pages are the run's size; Pages 0 means not known yet
	// (a migration's start): the estimate is then a lower bound.
	Sections int `json:"sections"`
	Pages    int `json:"pages,omitempty"`
	// SkipAttachments is the migration's option.
	SkipAttachments bool `json:"skipAttachments,omitempty"`
	// ReportOnly returns a verdict that is not ready instead of failing
	// (a scan, a dry run).
	ReportOnly bool `json:"reportOnly,omitempty"`
}

// CheckReadinessResult is the verdict and what it was made from.
type CheckReadinessResult struct {
	Facts    readiness.Facts    `json:"facts"`
	Estimate readiness.Estimate `json:"estimate"`
	Verdict  readiness.Verdict  `json:"verdict"`
	// Text is the verdict for a person.
	Text string `json:"text"`
}

// CheckReadiness gathers the workspace's facts (the API's, and the
// worker's flags for what the API does not tell) and decides whether the
// run can finish. A verdict that is not ready fails it with a
// non-retryable NotionNotReady naming the limit, the numbers and the
// options, unless ReportOnly. It writes nothing.
func (a *Activities) CheckReadiness(ctx context.Context, in CheckReadinessInput) (CheckReadinessResult, error) {
	if a.cfg.Notion == nil {
		return CheckReadinessResult{}, errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	wf, err := a.cfg.Notion.WorkspaceFacts(ctx)
	if err != nil {
		return CheckReadinessResult{}, notionError(err)
	}
	f := a.cfg.NotionFacts
	f.MaxUploadBytes = wf.MaxUploadBytes
	if wf.Members > 0 {
		f.Members = wf.Members
	}
	est := readiness.EstimateBlocks(in.Sections, in.Pages)
	est.SkipAttachments = in.SkipAttachments
	v := readiness.Check(f, est)
	res := CheckReadinessResult{Facts: f, Estimate: est, Verdict: v, Text: v.Text()}
	activity.GetLogger(ctx).Info("Notion readiness", "ready", v.Ready, "plan", f.Plan, "members", f.Members,
		"tokenType", f.TokenType, "blocksUsed", f.BlocksUsed, "blocks", est.Blocks, "pages", in.Pages)
	if err := v.Err(); err != nil && !in.ReportOnly {
		return res, temporal.NewNonRetryableApplicationError(err.Error(), failure.NotionNotReady, err, res)
	}
	return res, nil
}
