package onenote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// ExpandNotebookTree is the $expand value that returns a notebook's whole
// tree (sections and section groups nested to any depth) in one call.
const ExpandNotebookTree = "sections,sectionGroups($expand=sections,sectionGroups(levels=max;expand=sections))"

// Link is a Graph link object.
type Link struct {
	Href string `json:"href"`
}

// Links are the OneNote client and web links of a notebook, section or
// page.
type Links struct {
	OneNoteClientURL Link `json:"oneNoteClientUrl"`
	OneNoteWebURL    Link `json:"oneNoteWebUrl"`
}

// Notebook is a Graph onenote notebook, with its sections and section
// groups when listed with ExpandNotebookTree.
type Notebook struct {
	ID                   string         `json:"id"`
	DisplayName          string         `json:"displayName"`
	CreatedDateTime      time.Time      `json:"createdDateTime"`
	LastModifiedDateTime time.Time      `json:"lastModifiedDateTime"`
	IsDefault            bool           `json:"isDefault"`
	IsShared             bool           `json:"isShared"`
	UserRole             string         `json:"userRole,omitempty"`
	Self                 string         `json:"self"`
	SectionsURL          string         `json:"sectionsUrl"`
	SectionGroupsURL     string         `json:"sectionGroupsUrl"`
	Links                Links          `json:"links"`
	Sections             []Section      `json:"sections,omitempty"`
	SectionGroups        []SectionGroup `json:"sectionGroups,omitempty"`
}

// SectionGroup is a Graph sectionGroup. Section groups nest to any depth.
type SectionGroup struct {
	ID                   string         `json:"id"`
	DisplayName          string         `json:"displayName"`
	CreatedDateTime      time.Time      `json:"createdDateTime"`
	LastModifiedDateTime time.Time      `json:"lastModifiedDateTime"`
	Self                 string         `json:"self"`
	SectionsURL          string         `json:"sectionsUrl"`
	SectionGroupsURL     string         `json:"sectionGroupsUrl"`
	Sections             []Section      `json:"sections,omitempty"`
	SectionGroups        []SectionGroup `json:"sectionGroups,omitempty"`
}

// Section is a Graph onenoteSection.
type Section struct {
	ID                   string    `json:"id"`
	DisplayName          string    `json:"displayName"`
	CreatedDateTime      time.Time `json:"createdDateTime"`
	LastModifiedDateTime time.Time `json:"lastModifiedDateTime"`
	IsDefault            bool      `json:"isDefault"`
	Self                 string    `json:"self"`
	PagesURL             string    `json:"pagesUrl"`
	Links                Links     `json:"links"`
}

// NotebookList is one page of a notebooks listing.
type NotebookList struct {
	Notebooks []Notebook
	// NextLink is Graph's @odata.nextLink, or "" on the last page. Pass it
	// to ListNotebooks to get the next page.
	NextLink string
}

// ListNotebooks returns the user's notebooks with their whole tree of
// section groups and sections, in one request. With next == "" it gets the
// first page; otherwise next must be a NextLink from a previous call.
func (c *Client) ListNotebooks(ctx context.Context, next string) (NotebookList, Observation, error) {
	const op = "list notebooks"
	u := c.url("notebooks", url.Values{"$expand": {ExpandNotebookTree}})
	if next != "" {
		nu, err := c.checkNextLink(op, next)
		if err != nil {
			return NotebookList{}, Observation{}, err
		}
		u = nu
	}
	var body struct {
		Value    []Notebook `json:"value"`
		NextLink string     `json:"@odata.nextLink"`
	}
	obs, err := c.getJSON(ctx, call{op: op, method: http.MethodGet, url: u, cost: 1}, &body)
	if err != nil {
		return NotebookList{}, obs, err
	}
	return NotebookList{Notebooks: body.Value, NextLink: body.NextLink}, obs, nil
}

// GetNotebook returns one notebook with its whole tree, in one request.
func (c *Client) GetNotebook(ctx context.Context, notebookID string) (Notebook, Observation, error) {
	const op = "get notebook"
	if notebookID == "" {
		return Notebook{}, Observation{}, &Error{Kind: KindInvalidArgument, Op: op, Message: "notebook ID is empty"}
	}
	u := c.url("notebooks/"+url.PathEscape(notebookID), url.Values{"$expand": {ExpandNotebookTree}})
	var nb Notebook
	obs, err := c.getJSON(ctx, call{op: op, method: http.MethodGet, url: u, cost: 1}, &nb)
	return nb, obs, err
}

// checkNextLink validates an @odata.nextLink before the token is sent to
// it: it must be an absolute URL on the configured Graph host.
func (c *Client) checkNextLink(op, next string) (string, error) {
	u, err := url.Parse(next)
	if err != nil || !u.IsAbs() || !c.sameOrigin(u) {
		return "", &Error{Kind: KindInvalidArgument, Op: op,
			Message: "next link is not a URL on the Graph host; refusing to send the token to it", Err: err}
	}
	return next, nil
}

// getJSON makes one GET and decodes a 2xx JSON body into v.
func (c *Client) getJSON(ctx context.Context, cl call, v any) (Observation, error) {
	start := c.now()
	resp, obs, tok, err := c.send(ctx, cl)
	if err != nil {
		return obs, err
	}
	b, err := c.readBody(resp, cl.op, maxJSONBytes, tok)
	obs.Duration = c.now().Sub(start)
	if err != nil {
		return obs, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return obs, malformed(cl.op, obs.Status, err)
	}
	return obs, nil
}
