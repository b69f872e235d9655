package onenote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PageListTop is the $top the client pages a section's listing with, the
// most Graph allows.
const PageListTop = 100

// PageSelect is the $select used when listing and getting pages.
const PageSelect = "id,title,createdDateTime,lastModifiedDateTime,level,order,contentUrl,links"

// UntitledPage is the title the client gives a page Graph lists with an
// empty title ("title": "", graph-reality.md fact 36): what OneNote's
// page list shows for it. Rows are keyed by page ID, never by title, so
// any number of untitled pages can carry it.
const UntitledPage = "Untitled page"

// nameUntitled gives every page without a title (empty or blank) the
// title UntitledPage.
func nameUntitled(pages []Page) {
	for i := range pages {
		pages[i].Title = titleOrUntitled(pages[i].Title)
	}
}

// titleOrUntitled returns title, or UntitledPage for an empty or blank one.
func titleOrUntitled(title string) string {
	if strings.TrimSpace(title) == "" {
		return UntitledPage
	}
	return title
}

// Page is a Graph onenotePage's metadata, as listed with pagelevel=true.
type Page struct {
	ID string `json:"id"`
	// Title is never empty: an untitled page is named UntitledPage.
	Title                string    `json:"title"`
	CreatedDateTime      time.Time `json:"createdDateTime"`
	LastModifiedDateTime time.Time `json:"lastModifiedDateTime"`
	// Level is the indent level: 0 for a page, 1 and 2 for subpages.
	Level int `json:"level"`
	// Order is the page's position in its section.
	Order      int    `json:"order"`
	ContentURL string `json:"contentUrl"`
	Self       string `json:"self,omitempty"`
	Links      Links  `json:"links"`
	// ParentSection is set by GetPage only.
	ParentSection *ParentRef `json:"parentSection,omitempty"`
}

// ParentRef is the id of a page's section (parentSection).
type ParentRef struct {
	ID string `json:"id"`
}

// PageCursor says where a section's page listing stands. It is plain data
// (it marshals to JSON) so a workflow can carry it between activities. The
// zero value with SectionID set starts at the beginning.
type PageCursor struct {
	SectionID string `json:"sectionId"`
	// Skip is the $skip of the next request.
	Skip int `json:"skip,omitempty"`
	// UseNextLink lists without $top, following @odata.nextLink (Graph
	// sends it only when $top is absent; pages are then 20 at a time).
	UseNextLink bool `json:"useNextLink,omitempty"`
	// NextLink is the link to follow next in UseNextLink mode.
	NextLink string `json:"nextLink,omitempty"`
	// PrevFingerprint identifies the IDs of the previous batch, to notice
	// Graph returning the same batch again (ignoring $skip).
	PrevFingerprint string `json:"prevFingerprint,omitempty"`
}

// PageBatch is one request's worth of a section's pages.
type PageBatch struct {
	// Pages are the pages of this batch, without duplicates within it.
	Pages []Page
	// Next is the cursor for the next call; meaningless when Done.
	Next PageCursor
	// Done is true when the listing is complete: a short batch, no next
	// link, or a repeated batch.
	Done bool
	// Repeated is true when Graph returned exactly the batch it returned
	// before (it ignored $skip). Pages is empty then. If it happens after a
	// full first batch, later pages may not have been listed: list the
	// section again with UseNextLink.
	Repeated bool
}

// ListPagesPage makes one request for the next batch of a section's pages,
// ordered by their position in the section:
//
//	GET .../sections/{id}/pages?pagelevel=true&$top=100&$skip=N&$select=...&$orderby=order
//
// It never uses the account-wide /onenote/pages listing. Call it again with
// batch.Next until batch.Done; pages can repeat across batches (Graph's
// paging is not stable), so deduplicate by ID, as Pages does.
func (c *Client) ListPagesPage(ctx context.Context, cur PageCursor) (PageBatch, Observation, error) {
	const op = "list pages"
	if cur.SectionID == "" {
		return PageBatch{}, Observation{}, &Error{Kind: KindInvalidArgument, Op: op, Message: "section ID is empty"}
	}
	u, err := c.pagesURL(op, cur)
	if err != nil {
		return PageBatch{}, Observation{}, err
	}
	var body struct {
		Value    []Page `json:"value"`
		NextLink string `json:"@odata.nextLink"`
	}
	obs, err := c.getJSON(ctx, call{op: op, method: http.MethodGet, url: u, cost: 1, class: requestClass{pageGET: true}}, &body)
	if err != nil {
		return PageBatch{}, obs, err
	}
	nameUntitled(body.Value)
	return nextPageBatch(cur, body.Value, body.NextLink), obs, nil
}

func (c *Client) pagesURL(op string, cur PageCursor) (string, error) {
	if cur.UseNextLink && cur.NextLink != "" {
		return c.checkNextLink(op, cur.NextLink)
	}
	q := url.Values{
		"pagelevel": {"true"},
		"$select":   {PageSelect},
		"$orderby":  {"order"},
	}
	if !cur.UseNextLink {
		q.Set("$top", strconv.Itoa(PageListTop))
		q.Set("$skip", strconv.Itoa(cur.Skip))
	}
	return c.url("sections/"+url.PathEscape(cur.SectionID)+"/pages", q), nil
}

// nextPageBatch decides what a listing response means for the cursor.
func nextPageBatch(cur PageCursor, got []Page, nextLink string) PageBatch {
	fp := fingerprint(got)
	if len(got) > 0 && fp == cur.PrevFingerprint {
		return PageBatch{Done: true, Repeated: true, Next: cur}
	}
	b := PageBatch{Pages: dedupeWithin(got)}
	next := cur
	next.PrevFingerprint = fp
	if cur.UseNextLink {
		next.NextLink = nextLink
		b.Done = nextLink == "" || len(got) == 0
	} else {
		next.Skip = cur.Skip + len(got)
		b.Done = len(got) < PageListTop
	}
	b.Next = next
	return b
}

// fingerprint identifies a set of page IDs, in any order.
func fingerprint(pages []Page) string {
	if len(pages) == 0 {
		return ""
	}
	ids := make([]string, len(pages))
	for i, p := range pages {
		ids[i] = p.ID
	}
	slices.Sort(ids)
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func dedupeWithin(pages []Page) []Page {
	seen := make(map[string]bool, len(pages))
	out := pages[:0:0]
	for _, p := range pages {
		if seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		out = append(out, p)
	}
	return out
}

// Pages iterates over all pages of a section by calling ListPagesPage until
// the listing is done, yielding each page once (deduplicated by ID). On an
// error it yields it once and stops. It does not go through a limiter and
// does not retry: it is for tests and tools; workflows call ListPagesPage
// once per permit.
func (c *Client) Pages(ctx context.Context, cur PageCursor) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		seen := make(map[string]bool)
		for {
			b, _, err := c.ListPagesPage(ctx, cur)
			if err != nil {
				yield(Page{}, err)
				return
			}
			for _, p := range b.Pages {
				if seen[p.ID] {
					continue
				}
				seen[p.ID] = true
				if !yield(p, nil) {
					return
				}
			}
			if b.Done {
				return
			}
			cur = b.Next
		}
	}
}

// GetPage returns one page's metadata, with level and order. Graph
// answers the title of a page created seconds before as "" while its
// section's listing already has it (graph-reality.md fact 25), so an
// empty title is read again from the listing, with one more request:
// the section's pages modified since this one (the unquoted datetime
// comparison fact 34 saw accepted); the Observation is then the second
// request's, with the Cost of both. A page the listing has no title for
// either is untitled and named UntitledPage.
func (c *Client) GetPage(ctx context.Context, pageID string) (Page, Observation, error) {
	const op = "get page"
	if pageID == "" {
		return Page{}, Observation{}, &Error{Kind: KindInvalidArgument, Op: op, Message: "page ID is empty"}
	}
	u := c.url("pages/"+url.PathEscape(pageID), url.Values{"pagelevel": {"true"}, "$select": {PageSelect + ",parentSection"}})
	var p Page
	obs, err := c.getJSON(ctx, call{op: op, method: http.MethodGet, url: u, cost: 1, class: requestClass{pageGET: true}}, &p)
	if err != nil {
		return p, obs, err
	}
	if strings.TrimSpace(p.Title) == "" && p.ParentSection != nil && p.ParentSection.ID != "" {
		title, lobs, err := c.listedTitle(ctx, p)
		lobs.Cost += obs.Cost // both requests count
		if err != nil {
			return Page{}, lobs, err
		}
		p.Title, obs = title, lobs
	}
	p.Title = titleOrUntitled(p.Title)
	return p, obs, nil
}

// listedTitle returns page p's title as its section's listing has it, ""
// if the listing has none or does not list p.
func (c *Client) listedTitle(ctx context.Context, p Page) (string, Observation, error) {
	const op = "get page title from the listing"
	q := url.Values{"$select": {"id,title"}, "$top": {strconv.Itoa(PageListTop)}}
	if !p.LastModifiedDateTime.IsZero() {
		// Unquoted, as measured (fact 34).
		q.Set("$filter", "lastModifiedDateTime ge "+p.LastModifiedDateTime.UTC().Format(time.RFC3339))
	}
	u := c.url("sections/"+url.PathEscape(p.ParentSection.ID)+"/pages", q)
	var body struct {
		Value []Page `json:"value"`
	}
	obs, err := c.getJSON(ctx, call{op: op, method: http.MethodGet, url: u, cost: 1, class: requestClass{pageGET: true}}, &body)
	if err != nil {
		return "", obs, err
	}
	for _, lp := range body.Value {
		if lp.ID == p.ID {
			return lp.Title, obs, nil
		}
	}
	return "", obs, nil
}
