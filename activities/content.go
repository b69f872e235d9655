package activities

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/onenote"
)

// FetchContentInput asks for one page's content.
type FetchContentInput struct {
	User   string   `json:"user"`
	PageID string   `json:"pageID"`
	Key    StageKey `json:"key"`
	// Options are the migration's content options: with SkipInk the
	// request leaves out the InkML, and skipped images and attachments
	// are not in the resources to fetch.
	Options ContentOptions `json:"options,omitzero"`
}

// ContentOptions are a migration's choices of what to carry over
// (MigrateInput's skipImages, skipAttachments, skipInk and imageAlt). The
// page activities pass them to the converter, which holds the policy
// (convert.Options): what is skipped makes no block, is not fetched, and
// is reported as skipped by option.
type ContentOptions struct {
	SkipImages      bool `json:"skipImages,omitempty"`
	SkipAttachments bool `json:"skipAttachments,omitempty"`
	// SkipInk fetches page content without its ink (no includeInkML):
	// the same one Graph request, less the InkML bytes (hundreds of KB on
	// a page of handwriting), the rendering and one Notion upload per
	// drawing. By default each ink group becomes an SVG image where it
	// was drawn.
	SkipInk bool `json:"skipInk,omitempty"`
	// ImageAlt is "drop" (the default, "" too) or "caption": see
	// convert.ImageAlt.
	ImageAlt string `json:"imageAlt,omitempty"`
	// SkipVerify turns off read-back verification: by default each page
	// written is read back from Notion and compared with what was
	// written (notion.Client.WriteVerifiedPage), which costs a read
	// request per block with children, plus one per page.
	SkipVerify bool `json:"skipVerify,omitempty"`
}

// Convert is the converter's options for a page with the given InkML.
// ImageAlt must be valid (Validate); an invalid one drops alt.
func (o ContentOptions) Convert(inkML []byte) convert.Options {
	alt, _ := convert.ParseImageAlt(o.ImageAlt)
	return convert.Options{InkML: inkML, ImageAlt: alt,
		SkipImages: o.SkipImages, SkipAttachments: o.SkipAttachments, SkipInk: o.SkipInk}
}

// Validate checks ImageAlt and normalises it ("" stays "").
func (o *ContentOptions) Validate() error {
	if o.ImageAlt == "" {
		return nil
	}
	alt, err := convert.ParseImageAlt(o.ImageAlt)
	if err != nil {
		return err
	}
	o.ImageAlt = string(alt)
	return nil
}

// ResourceRef is a resource a page refers to.
type ResourceRef struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// ContentMeta is what a workflow learns of a page's content: never the
// content itself.
type ContentMeta struct {
	Title string `json:"title,omitempty"`
	// Bytes is the size of the page's HTML and InkML together.
	Bytes int `json:"bytes"`
	// SHA256 identifies the page's content, its ink included (see
	// contentHash): a page whose only change is in its ink has a new one.
	SHA256    string          `json:"sha256"`
	Resources []ResourceRef   `json:"resources,omitempty"`
	Links     int             `json:"links,omitempty"`
	Outcome   limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed.
func (m ContentMeta) LimiterOutcome() limiter.Outcome { return m.Outcome }

// FetchContent downloads a page's HTML with its ink (the same one Graph
// request, includeInkML=true; the HTML alone with Options.SkipInk), stages
// both on this worker and returns its metadata: title, size, hash and the
// resources it refers to (never the drawings, which are rendered here).
func (a *Activities) FetchContent(ctx context.Context, in FetchContentInput) (ContentMeta, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return ContentMeta{}, err
	}
	pc, obs, err := c.GetPageContent(ctx, in.PageID, onenote.ContentOptions{IncludeInkML: !in.Options.SkipInk})
	if err != nil {
		return ContentMeta{}, graphError(err, obs)
	}
	meta := ContentMeta{Bytes: len(pc.HTML) + len(pc.InkML), SHA256: contentHash(pc), Outcome: outcome(obs)}
	if err := a.stageContent(in.Key, pc); err != nil {
		return ContentMeta{}, temporal.NewNonRetryableApplicationError("staging page content: "+err.Error(), failure.Staging, err, meta.Outcome)
	}
	res, err := convert.Page(pc.HTML, in.Options.Convert(pc.InkML))
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

// contentHash is the hex SHA-256 of a page's HTML and InkML. The HTML's
// length goes first, so no split of the same bytes between the two parts
// hashes alike; a page without ink hashes its HTML alone, as before ink
// was fetched.
func contentHash(pc onenote.PageContent) string {
	if pc.InkML == nil {
		sum := sha256.Sum256(pc.HTML)
		return hex.EncodeToString(sum[:])
	}
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(pc.HTML)))
	h.Write(n[:])
	h.Write(pc.HTML)
	h.Write(pc.InkML)
	return hex.EncodeToString(h.Sum(nil))
}

// FetchResourcesInput asks for some of a page's resources.
type FetchResourcesInput struct {
	User      string        `json:"user"`
	Key       StageKey      `json:"key"`
	Resources []ResourceRef `json:"resources"`
}

// FetchResourcesResult says which resources were staged. The activity
// does not fail on an upstream error: a resource that can never be had
// (gone from OneNote, over a size limit) is reported in Lost and the
// others are still fetched; any other error stops the sequence there and
// is reported, so the workflow knows what is still missing and asks a
// permit for only those.
type FetchResourcesResult struct {
	Fetched []string `json:"fetched,omitempty"`
	// Lost are resources that cannot be migrated, with the reason; the
	// page is written without them and the loss is reported.
	Lost []LostResource `json:"lost,omitempty"`
	// Error is the upstream error that stopped the sequence, if any, and
	// ErrorType its type (a failure type); Fatal means retrying will
	// not help (failure.Retryable).
	Error     string `json:"error,omitempty"`
	ErrorType string `json:"errorType,omitempty"`
	Fatal     bool   `json:"fatal,omitempty"`
	// Requests counts the Graph requests actually sent (at most the
	// permit's cost: fewer when an error stopped the sequence).
	Requests int             `json:"requests"`
	Outcome  limiter.Outcome `json:"outcome"`
}

// LostResource is a resource a page refers to that cannot be migrated.
type LostResource struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// LimiterOutcome implements entity.Observed: the outcome of the request
// that stopped the sequence if one did, else of the last request.
func (r FetchResourcesResult) LimiterOutcome() limiter.Outcome { return r.Outcome }

// FetchResources downloads resources one after another into the page's
// staging directory: one Graph request each, all under one permit of cost
// len(Resources). A resource gone from OneNote (404, 410) or over the size
// limit (the worker's cap, or the Notion workspace's upload limit, checked
// against Content-Length before the body is read) is reported in Lost and
// the sequence goes on; any other failure stops it.
func (a *Activities) FetchResources(ctx context.Context, in FetchResourcesInput) (FetchResourcesResult, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return FetchResourcesResult{}, err
	}
	defer a.heartbeat(ctx, nil)()
	limit, byNotion := a.resourceLimit(ctx)
	var res FetchResourcesResult
	for _, r := range in.Resources {
		var buf bytes.Buffer
		var obs onenote.Observation
		// The download's Content-Type is not kept: Graph says
		// application/octet-stream for every file (the opener decides).
		_, obs, err = c.DownloadResource(ctx, r.URL, &buf, limit)
		res.Requests += obs.Cost
		o := outcome(obs)
		// Units of the permit this sequence will not send, if it stops
		// here: the limiter gives them back.
		o.Unsent = len(in.Resources) - res.Requests
		if err == nil {
			res.Outcome = o
			path := a.resourcePath(in.Key, r.ID)
			err = writeWith(path, func(w io.Writer) error { _, err := buf.WriteTo(w); return err })
			if err != nil {
				return res, temporal.NewNonRetryableApplicationError("staging resource: "+err.Error(), failure.Staging, err, res.Outcome)
			}
			res.Fetched = append(res.Fetched, r.ID)
			activity.RecordHeartbeat(ctx, len(res.Fetched))
			continue
		}
		switch onenote.KindOf(err) {
		case onenote.KindNotFound:
			res.Outcome = o
			res.Lost = append(res.Lost, LostResource{ID: r.ID, Reason: fmt.Sprintf("it is gone from OneNote (HTTP %d)", obs.Status)})
			continue
		case onenote.KindTooLarge:
			res.Outcome = o
			reason := fmt.Sprintf("it is larger than the %d-byte limit of this worker (-max-resource-bytes)", limit)
			if byNotion {
				reason = fmt.Sprintf("it is larger than the Notion workspace allows for one file (%d bytes)", limit)
			}
			res.Lost = append(res.Lost, LostResource{ID: r.ID, Reason: reason})
			continue
		}
		res.Outcome = o
		ge := graphError(err, obs)
		var app *temporal.ApplicationError
		res.Error, res.Fatal = ge.Error(), true
		if asApp(ge, &app) {
			res.ErrorType, res.Fatal = app.Type(), app.NonRetryable()
		}
		return res, nil
	}
	return res, nil
}

// resourceLimit is the largest resource worth downloading: the worker's
// cap, or the Notion workspace's upload limit when that is lower (a file
// Notion refuses is not downloaded at all).
func (a *Activities) resourceLimit(ctx context.Context) (limit int64, byNotion bool) {
	limit = a.cfg.MaxResourceBytes
	if a.cfg.Notion == nil {
		return limit, false
	}
	n, err := a.cfg.Notion.MaxUploadBytes(ctx)
	if err != nil {
		activity.GetLogger(ctx).Warn("Notion upload limit unknown; using the worker's cap", "error", err)
		return limit, false
	}
	if n > 0 && n < limit {
		return n, true
	}
	return limit, false
}
