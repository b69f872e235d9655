package workflows

import (
	"fmt"
	"math"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/internal/seconds"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/onenote"
)

// ScanInput asks for a user's notebooks.
type ScanInput struct {
	User string `json:"user"`
	// Limits is the limits profile the ETA is computed for (see
	// MigrateInput.Limits).
	Limits string `json:"limits,omitempty"`
	// ResourcesPerPage is the assumed number of images and attachments
	// per page, which a scan cannot see without reading every page; 0
	// means 1. Without ImagesPerPage and AttachmentsPerPage it is split
	// between them by DefaultImageShare.
	ResourcesPerPage float64 `json:"resourcesPerPage,omitempty"`
	// ImagesPerPage and AttachmentsPerPage, when either is set, are the
	// assumed images and attachments per page instead (ResourcesPerPage
	// is then their sum): what the savings of skipImages and
	// skipAttachments are computed from.
	ImagesPerPage      float64 `json:"imagesPerPage,omitempty"`
	AttachmentsPerPage float64 `json:"attachmentsPerPage,omitempty"`
}

// HighResourcesPerPage is the most images and attachments (PDF printout
// parts included) a page is assumed to hold on average, for the high end
// of a scan's range: a scan reads listings only, never page content.
// Generated notebooks hold 2.6 (TestScanRangeHoldsOnTheDemoNotebook).
const HighResourcesPerPage = 4

// DefaultImageShare is the part of ResourcesPerPage assumed to be images
// (the rest attachments) when the scan is not told: our assumption, not a
// measurement of real notebooks (the scan reads no page content).
const DefaultImageShare = 0.8

// perPage fills the per-page assumptions: images and attachments from
// ResourcesPerPage unless given, ResourcesPerPage their sum.
func (in *ScanInput) perPage() {
	in.ImagesPerPage, in.AttachmentsPerPage = max(in.ImagesPerPage, 0), max(in.AttachmentsPerPage, 0)
	if in.ImagesPerPage > 0 || in.AttachmentsPerPage > 0 {
		in.ResourcesPerPage = in.ImagesPerPage + in.AttachmentsPerPage
		return
	}
	if in.ResourcesPerPage <= 0 {
		in.ResourcesPerPage = 1
	}
	in.ImagesPerPage = in.ResourcesPerPage * DefaultImageShare
	in.AttachmentsPerPage = in.ResourcesPerPage - in.ImagesPerPage
}

// Saving is what one content option would save on a notebook's
// migration, from the scan's counts and per-page assumptions.
type Saving struct {
	// Option is the migration input's field: skipImages, skipAttachments
	// or skipInk.
	Option string `json:"option"`
	// Requests is the Graph requests the option saves.
	Requests int `json:"requests"`
	// ETA is how much shorter the migration's estimate is with it.
	ETA seconds.Duration `json:"etaSeconds"`
	// Text says it for a person.
	Text string `json:"text"`
}

// SectionScan is one section of a scan.
type SectionScan struct {
	ID    string `json:"id"`
	Path  string `json:"path"`
	Pages int    `json:"pages"`
	// Subpages counts pages of level 1 or 2.
	Subpages int `json:"subpages"`
	// Protected is set when the section is password-protected: its pages
	// cannot be read (or counted) until it is unlocked in OneNote.
	Protected bool `json:"protected,omitempty"`
}

// NotebookScan is one notebook of a scan, with the estimate of its
// migration.
type NotebookScan struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Sections []SectionScan `json:"sections"`
	Pages    int           `json:"pages"`
	// Requests is the Graph requests a migration needs: the tree (the
	// notebooks call plus one per listing of deeper section groups, or
	// the plain listings when Graph failed the expanded call), the page
	// listings, one per page's content and one per resource (assumed).
	Requests int `json:"requests"`
	// RequestsLow and RequestsHigh bound Requests over what the scan
	// cannot see: no resource on any page, and HighResourcesPerPage on
	// every page.
	RequestsLow  int `json:"requestsLow"`
	RequestsHigh int `json:"requestsHigh"`
	// ETA is how long those requests take under the limits (the binding
	// window), ignoring everything else.
	ETA     seconds.Duration `json:"etaSeconds"`
	ETAText string           `json:"etaText"`
	// Savings are what each content option would save (skipImages,
	// skipAttachments, skipInk), estimated from the page count and the
	// scan's per-page assumptions (ScanInput): the scan reads listings
	// only, never page content.
	Savings []Saving `json:"savings,omitempty"`
	// Readiness is the Notion readiness verdict for the notebook's pages
	// (package readiness): whether the workspace can hold the migration.
	Readiness string `json:"readiness,omitempty"`
}

// ScanResult is what ScanNotebooks found.
type ScanResult struct {
	User      string         `json:"user"`
	Notebooks []NotebookScan `json:"notebooks"`
	// Requests counts the Graph requests the scan made.
	Requests int    `json:"requests"`
	Limits   string `json:"limits"`
	// ImagesPerPage and AttachmentsPerPage are the assumptions the
	// estimates were made with.
	ImagesPerPage      float64 `json:"imagesPerPage"`
	AttachmentsPerPage float64 `json:"attachmentsPerPage"`
}

// ScanNotebooks lists a user's notebooks, sections and page counts in the
// foreground lane, and estimates each notebook's migration time.
func (w *Workflows) ScanNotebooks(ctx workflow.Context, in ScanInput) (ScanResult, error) {
	if err := validUser(in.User); err != nil {
		return ScanResult{}, err
	}
	dep := w.deployment(ctx)
	if in.Limits == "" {
		in.Limits = dep.Limits
	}
	spec, err := limiter.Profile(in.Limits)
	if err != nil {
		return ScanResult{}, invalid("limits", "%v", err)
	}
	in.perPage()
	res := ScanResult{User: in.User, Limits: spec.Name, ImagesPerPage: in.ImagesPerPage, AttachmentsPerPage: in.AttachmentsPerPage}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Scanning the notebooks of **%s**", in.User))
	if err := workflow.SetQueryHandler(ctx, QueryProgress, func() (ScanResult, error) { return res, nil }); err != nil {
		return res, err
	}
	lim := w.caller(ctx, spec, dep, 0)
	ask := entity.AskOptions{User: in.User, Lane: limiter.Foreground}
	tr := newTreeReader(lim, in.User, limiter.Foreground)
	trees, _, err := tr.notebooks(ctx, "")
	for _, t := range trees {
		if err == nil {
			err = tr.complete(ctx, t)
		}
	}
	res.Requests += tr.requests
	if err != nil {
		return res, flushed(err, lim.Flush(ctx))
	}
	for _, t := range trees {
		res.Notebooks = append(res.Notebooks, NotebookScan{ID: t.ID, Name: t.Name})
		nbScan := &res.Notebooks[len(res.Notebooks)-1]
		for _, sec := range flatten(*t) {
			nbScan.Sections = append(nbScan.Sections, SectionScan{ID: sec.ID, Path: sec.Path})
		}
	}
	for i := range res.Notebooks {
		nbScan := &res.Notebooks[i]
		listCalls := 0
		for j := range nbScan.Sections {
			sec := &nbScan.Sections[j]
			cur := onenote.PageCursor{SectionID: sec.ID}
			for {
				var r activities.ListPagesResult
				st, err := lim.Call(ctx, entity.Call{Ask: ask, Activity: activities.ListPagesName,
					Args:    []any{activities.ListPagesInput{User: in.User, Cursor: cur}},
					Options: graphOptions("Count pages of " + sec.Path),
				}, &r)
				res.Requests += st.Attempts
				if failure.Find(err, failure.GraphProtected) != nil {
					// Password-protected: its pages cannot be counted
					// until it is unlocked; the others still are.
					sec.Protected = true
					break
				}
				if err != nil {
					return res, flushed(fmt.Errorf("counting pages of %q: %w", sec.Path, err), lim.Flush(ctx))
				}
				listCalls++
				sec.Pages += len(r.Pages)
				for _, p := range r.Pages {
					if p.Level > 0 {
						sec.Subpages++
					}
				}
				if r.Done {
					break
				}
				cur = r.Next
			}
			nbScan.Pages += sec.Pages
			workflow.SetCurrentDetails(ctx, fmt.Sprintf("Scanning **%s**: %s has %d pages", in.User, sec.Path, sec.Pages))
		}
		// The tree: the notebooks call, and the calls that listed what it
		// did not reach (the deeper groups, or everything after a plain
		// listing), as this scan made them.
		treeCalls := 1 + tr.calls[nbScan.ID]
		// The resources are rounded up once, and split: images rounded
		// up, attachments the rest.
		resources := perPages(nbScan.Pages, in.ResourcesPerPage)
		images := min(perPages(nbScan.Pages, in.ImagesPerPage), resources)
		attachments := resources - images
		nbScan.Requests = treeCalls + listCalls + nbScan.Pages + images + attachments
		nbScan.RequestsLow, nbScan.RequestsHigh = requestRange(treeCalls+listCalls, nbScan.Pages)
		nbScan.RequestsHigh = max(nbScan.RequestsHigh, nbScan.Requests)
		nbScan.ETA = seconds.Of(EstimateDuration(spec, nbScan.Requests))
		nbScan.ETAText = fmt.Sprintf("about %s for %d Graph requests, assuming %g images and attachments a page "+
			"(%s to %s for %d to %d requests, 0 to %d a page) under %q",
			nbScan.ETA.D().Round(time.Second), nbScan.Requests, in.ResourcesPerPage,
			EstimateDuration(spec, nbScan.RequestsLow).Round(time.Second), EstimateDuration(spec, nbScan.RequestsHigh).Round(time.Second),
			nbScan.RequestsLow, nbScan.RequestsHigh, HighResourcesPerPage, spec.Name)
		nbScan.Savings = savings(spec, nbScan.Requests, images, attachments, in)
		nbScan.Readiness = readinessReport(ctx, len(nbScan.Sections), nbScan.Pages, false)
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Scanned **%s**: %d notebooks", in.User, len(res.Notebooks)))
	return res, lim.Flush(ctx)
}

// requestRange is the Graph requests of a notebook of pages whose tree
// and listings take fixed requests, with no resource on any page (low)
// and HighResourcesPerPage on each (high).
func requestRange(fixed, pages int) (low, high int) {
	return fixed + pages, fixed + pages + pages*HighResourcesPerPage
}

// requestsText is "1 Graph request" or "n Graph requests".
func requestsText(n int) string {
	if n == 1 {
		return "1 Graph request"
	}
	return fmt.Sprintf("%d Graph requests", n)
}

// perPages is pages × perPage rounded up, floating-point noise aside
// (360 × 0.2 is 72, not 73).
func perPages(pages int, perPage float64) int {
	return int(math.Ceil(float64(pages)*perPage - 1e-9))
}

// savings are what each content option saves on a migration of total
// Graph requests of which images and attachments are resource downloads.
// Ink comes with each page's content request (includeInkML), so skipping
// it saves no Graph request.
func savings(spec limiter.Spec, total, images, attachments int, in ScanInput) []Saving {
	eta := EstimateDuration(spec, total)
	out := make([]Saving, 0, 3)
	for _, s := range []struct {
		option string
		saved  int
		what   string
	}{
		{"skipImages", images, fmt.Sprintf("%d images (%.2g per page assumed)", images, in.ImagesPerPage)},
		{"skipAttachments", attachments, fmt.Sprintf("%d attachments (%.2g per page assumed)", attachments, in.AttachmentsPerPage)},
	} {
		d := eta - EstimateDuration(spec, total-s.saved)
		out = append(out, Saving{Option: s.option, Requests: s.saved, ETA: seconds.Of(d),
			Text: fmt.Sprintf("saves %s, about %s: %s not fetched", requestsText(s.saved), d.Round(time.Second), s.what)})
	}
	out = append(out, Saving{Option: "skipInk", Text: "saves no Graph request (ink comes with each page's content): " +
		"saves the InkML download, its rendering and a Notion upload per drawing"})
	return out
}

// flushed is err, noting a failure to flush the limiter too. Not
// errors.Join: a joined error crosses the workflow boundary as text, and
// the starter must still find err's type (a lost sign-in) in the chain.
func flushed(err, ferr error) error {
	if ferr == nil {
		return err
	}
	return fmt.Errorf("%w (and the limiter's releases were not flushed: %v)", err, ferr)
}

// EstimateDuration is how long n requests of one user take under spec:
// each window lets its first Limit requests go at once, then Limit per
// Per; the slowest window binds. Concurrency and latency are ignored.
func EstimateDuration(spec limiter.Spec, n int) time.Duration {
	var worst time.Duration
	for _, ws := range [][]limiter.Window{spec.User.Windows, spec.App.Windows} {
		for _, w := range ws {
			if w.Limit <= 0 || n <= w.Limit {
				continue
			}
			d := time.Duration(float64(n-w.Limit) / float64(w.Limit) * float64(time.Duration(w.Per)))
			worst = max(worst, d)
		}
	}
	return worst
}
