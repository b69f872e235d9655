package activities

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/onenote"
)

// FetchContentInput asks for one page's content.
type FetchContentInput struct {
	User   string   `json:"user"`
	PageID string   `json:"pageID"`
	Key    StageKey `json:"key"`
}

// ResourceRef is a resource a page refers to.
type ResourceRef struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// ContentMeta is what a workflow learns of a page's content: never the
// content itself.
type ContentMeta struct {
	Title     string          `json:"title,omitempty"`
	Bytes     int             `json:"bytes"`
	SHA256    string          `json:"sha256"`
	Resources []ResourceRef   `json:"resources,omitempty"`
	Links     int             `json:"links,omitempty"`
	Outcome   limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed.
func (m ContentMeta) LimiterOutcome() limiter.Outcome { return m.Outcome }

// FetchContent downloads a page's HTML (one Graph request), stages it on
// this worker and returns its metadata: title, size, hash and the
// resources it refers to.
func (a *Activities) FetchContent(ctx context.Context, in FetchContentInput) (ContentMeta, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return ContentMeta{}, err
	}
	pc, obs, err := c.GetPageContent(ctx, in.PageID, onenote.ContentOptions{})
	if err != nil {
		return ContentMeta{}, graphError(err, obs)
	}
	meta := ContentMeta{Bytes: len(pc.HTML), Outcome: outcome(obs)}
	sum := sha256.Sum256(pc.HTML)
	meta.SHA256 = hex.EncodeToString(sum[:])
	if err := writeFile(a.htmlPath(in.Key), pc.HTML); err != nil {
		return ContentMeta{}, temporal.NewApplicationErrorWithCause("staging page content: "+err.Error(), ErrTypeStaging, err, meta.Outcome)
	}
	res, err := convert.Page(pc.HTML, convert.Options{})
	if err != nil {
		// The write step reports it; the page has no resources to fetch.
		activity.GetLogger(ctx).Warn("Page content does not convert", "page", in.PageID, "error", err)
		return meta, nil
	}
	meta.Title = res.Title
	meta.Links = len(res.Links)
	for _, r := range res.Resources {
		meta.Resources = append(meta.Resources, ResourceRef{ID: r.ID, URL: r.URL})
	}
	return meta, nil
}

// FetchResourcesInput asks for some of a page's resources.
type FetchResourcesInput struct {
	User      string        `json:"user"`
	Key       StageKey      `json:"key"`
	Resources []ResourceRef `json:"resources"`
}

// FetchResourcesResult says which resources were staged. The activity
// does not fail on an upstream error: it stops there and reports it, so
// the workflow knows what is still missing and asks a permit for only
// those.
type FetchResourcesResult struct {
	Fetched []string `json:"fetched,omitempty"`
	// Error is the upstream error that stopped the sequence, if any, and
	// ErrorType its type (an ErrType* constant); Fatal means retrying
	// will not help.
	Error     string          `json:"error,omitempty"`
	ErrorType string          `json:"errorType,omitempty"`
	Fatal     bool            `json:"fatal,omitempty"`
	Requests  int             `json:"requests"`
	Outcome   limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed: the outcome of the last
// request, which is the one that stopped the sequence if any did.
func (r FetchResourcesResult) LimiterOutcome() limiter.Outcome { return r.Outcome }

// FetchResources downloads resources one after another into the page's
// staging directory: one Graph request each, all under one permit of cost
// len(Resources). It stops at the first failure.
func (a *Activities) FetchResources(ctx context.Context, in FetchResourcesInput) (FetchResourcesResult, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return FetchResourcesResult{}, err
	}
	var res FetchResourcesResult
	for _, r := range in.Resources {
		var buf bytes.Buffer
		var got onenote.Resource
		var obs onenote.Observation
		res.Requests++
		got, obs, err = c.DownloadResource(ctx, r.URL, &buf, a.cfg.MaxResourceBytes)
		res.Outcome = outcome(obs)
		if err == nil {
			path := a.resourcePath(in.Key, r.ID)
			err = writeWith(path, func(w io.Writer) error { _, err := buf.WriteTo(w); return err })
			if err == nil && got.ContentType != "" {
				err = os.WriteFile(path+".type", []byte(got.ContentType), 0o600)
			}
			if err != nil {
				return res, temporal.NewApplicationErrorWithCause("staging resource: "+err.Error(), ErrTypeStaging, err, res.Outcome)
			}
			res.Fetched = append(res.Fetched, r.ID)
			activity.RecordHeartbeat(ctx, len(res.Fetched))
			continue
		}
		ge := graphError(err, obs)
		var app *temporal.ApplicationError
		res.Error = err.Error()
		res.Fatal = !onenote.IsRetryable(err)
		if asApp(ge, &app) {
			res.ErrorType = app.Type()
		}
		return res, nil
	}
	return res, nil
}
