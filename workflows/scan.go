package workflows

import (
	"fmt"
	"math"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
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
	// means 1.
	ResourcesPerPage float64 `json:"resourcesPerPage,omitempty"`
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
	// ETA is how long those requests take under the limits (the binding
	// window), ignoring everything else.
	ETA     time.Duration `json:"eta"`
	ETAText string        `json:"etaText"`
}

// ScanResult is what ScanNotebooks found.
type ScanResult struct {
	User      string         `json:"user"`
	Notebooks []NotebookScan `json:"notebooks"`
	// Requests counts the Graph requests the scan made.
	Requests int    `json:"requests"`
	Limits   string `json:"limits"`
}

// ScanNotebooks lists a user's notebooks, sections and page counts in the
// foreground lane, and estimates each notebook's migration time.
func (w *Workflows) ScanNotebooks(ctx workflow.Context, in ScanInput) (ScanResult, error) {
	if err := validUser(in.User); err != nil {
		return ScanResult{}, err
	}
	if in.Limits == "" {
		in.Limits = w.Limits
	}
	spec, err := limiter.Profile(in.Limits)
	if err != nil {
		return ScanResult{}, invalid("limits", "%v", err)
	}
	if in.ResourcesPerPage <= 0 {
		in.ResourcesPerPage = 1
	}
	res := ScanResult{User: in.User, Limits: spec.Name}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Scanning the notebooks of **%s**", in.User))
	if err := workflow.SetQueryHandler(ctx, QueryProgress, func() (ScanResult, error) { return res, nil }); err != nil {
		return res, err
	}
	lim := w.caller(ctx, spec)
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
		nbScan.Requests = treeCalls + listCalls + nbScan.Pages + int(math.Ceil(float64(nbScan.Pages)*in.ResourcesPerPage))
		nbScan.ETA = EstimateDuration(spec, nbScan.Requests)
		nbScan.ETAText = fmt.Sprintf("about %s for %d Graph requests under %q", nbScan.ETA.Round(time.Second), nbScan.Requests, spec.Name)
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Scanned **%s**: %d notebooks", in.User, len(res.Notebooks)))
	return res, lim.Flush(ctx)
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
