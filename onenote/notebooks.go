package onenote

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// TreeSelect is the $select of every notebook, section group and section
// a tree call reads: only what the migration uses. Graph sends every
// property otherwise, about 5.7 times the bytes (graph-reality.md #3).
const TreeSelect = "id,displayName"

// SectionSelect is the $select of every section a tree call reads:
// TreeSelect and the section's links, whose oneNoteClientUrl names the
// section's GUID (section-id={…}), the GUID a file import keys the
// section's database by (SectionIDFromClientURL; docs/file-import.md).
const SectionSelect = TreeSelect + ",links"

// ExpandNotebookTree is the $expand of ListNotebooks and GetNotebook: a
// notebook's sections and section groups, and the sections of those
// groups, each with TreeSelect. Two levels is the most Graph serves: a
// deeper sectionGroups level or levels=max answers 400 (graph-reality.md
// #1). Inside a clause $select and $expand are joined by ";", each keeping
// its "$" (#2). Groups nested deeper are listed with ListSectionGroups and
// ListSections, one request each.
const ExpandNotebookTree = "sections($select=" + SectionSelect + "),sectionGroups($select=" + TreeSelect +
	";$expand=sections($select=" + SectionSelect + "))"

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
// groups when listed with ExpandNotebookTree (the groups then hold their
// sections, but not their own groups).
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

// SectionGroup is a Graph sectionGroup. Section groups nest to any depth;
// a tree call fills Sections and SectionGroups only as deep as its
// $expand reached.
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

// ListNotebooks returns one page of the user's notebooks (every property:
// a top-level $select would drop the expanded ones on some servers) with
// their sections, section groups and those groups' sections (ExpandNotebookTree),
// in one request. Groups inside groups are not in it: list them with
// ListSectionGroups. With next == "" it gets the first page; otherwise
// next must be a NextLink from a previous call.
//
// Graph has been seen answering any $expand on /notebooks with 500 and
// code 19999 for minutes while un-expanded calls worked
// (graph-reality.md #6): fall back to ListNotebookNames, ListSections and
// ListSectionGroups then.
func (c *Client) ListNotebooks(ctx context.Context, next string) (NotebookList, Observation, error) {
	return c.listNotebooks(ctx, "list notebooks", next, url.Values{"$expand": {ExpandNotebookTree}})
}

// ListNotebookNames returns one page of the user's notebooks without
// their trees (no $expand): the fallback when Graph fails the expanded
// call. next is as for ListNotebooks.
func (c *Client) ListNotebookNames(ctx context.Context, next string) (NotebookList, Observation, error) {
	return c.listNotebooks(ctx, "list notebook names", next, url.Values{"$select": {TreeSelect}})
}

func (c *Client) listNotebooks(ctx context.Context, op, next string, q url.Values) (NotebookList, Observation, error) {
	u := c.url("notebooks", q)
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

// GetNotebook returns one notebook with its tree as deep as
// ExpandNotebookTree reaches, in one request.
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

// ContainerKind says what holds sections and section groups.
type ContainerKind string

// The two containers of sections and section groups.
const (
	InNotebook     ContainerKind = "notebook"
	InSectionGroup ContainerKind = "sectionGroup"
)

// Container names a notebook or a section group. It is plain data, so a
// workflow can carry it to an activity.
type Container struct {
	Kind ContainerKind `json:"kind"`
	ID   string        `json:"id"`
}

// path is the container's path below the user's onenote root, or an
// error for an empty ID or unknown kind: never an account-wide listing.
func (ct Container) path(op string) (string, error) {
	if ct.ID == "" {
		return "", &Error{Kind: KindInvalidArgument, Op: op, Message: "container ID is empty (the account-wide listings are never used)"}
	}
	switch ct.Kind {
	case InNotebook:
		return "notebooks/" + url.PathEscape(ct.ID), nil
	case InSectionGroup:
		return "sectionGroups/" + url.PathEscape(ct.ID), nil
	}
	return "", &Error{Kind: KindInvalidArgument, Op: op, Message: fmt.Sprintf("container kind %q is not %q or %q", ct.Kind, InNotebook, InSectionGroup)}
}

// SectionList is one page of a container's sections.
type SectionList struct {
	Sections []Section
	// NextLink is Graph's @odata.nextLink, or "" on the last page.
	NextLink string
}

// SectionGroupList is one page of a container's section groups.
type SectionGroupList struct {
	SectionGroups []SectionGroup
	// NextLink is Graph's @odata.nextLink, or "" on the last page.
	NextLink string
}

// ListSections lists one page of the sections directly in a notebook or
// section group, in one request (GET .../notebooks/{id}/sections or
// .../sectionGroups/{id}/sections, with SectionSelect). next is "" or a
// NextLink from a previous call.
func (c *Client) ListSections(ctx context.Context, parent Container, next string) (SectionList, Observation, error) {
	var body struct {
		Value    []Section `json:"value"`
		NextLink string    `json:"@odata.nextLink"`
	}
	obs, err := c.listChildren(ctx, "list sections", parent, "sections", next, &body)
	return SectionList{Sections: body.Value, NextLink: body.NextLink}, obs, err
}

// ListSectionGroups lists one page of the section groups directly in a
// notebook or section group, in one request (GET
// .../notebooks/{id}/sectionGroups or .../sectionGroups/{id}/sectionGroups,
// with TreeSelect): how a tree deeper than ExpandNotebookTree is read.
func (c *Client) ListSectionGroups(ctx context.Context, parent Container, next string) (SectionGroupList, Observation, error) {
	var body struct {
		Value    []SectionGroup `json:"value"`
		NextLink string         `json:"@odata.nextLink"`
	}
	obs, err := c.listChildren(ctx, "list section groups", parent, "sectionGroups", next, &body)
	return SectionGroupList{SectionGroups: body.Value, NextLink: body.NextLink}, obs, err
}

func (c *Client) listChildren(ctx context.Context, op string, parent Container, kind, next string, v any) (Observation, error) {
	p, err := parent.path(op)
	if err != nil {
		return Observation{}, err
	}
	sel := TreeSelect
	if kind == "sections" {
		sel = SectionSelect
	}
	u := c.url(p+"/"+kind, url.Values{"$select": {sel}})
	if next != "" {
		if u, err = c.checkNextLink(op, next); err != nil {
			return Observation{}, err
		}
	}
	return c.getJSON(ctx, call{op: op, method: http.MethodGet, url: u, cost: 1}, v)
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
	resp, obs, tok, err := c.send(ctx, cl)
	if err != nil {
		return obs, err
	}
	b, err := c.readBody(resp, cl.op, maxJSONBytes, tok)
	obs.Duration = c.now().Sub(obs.Sent)
	if err != nil {
		return obs, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return obs, malformed(cl.op, obs.Status, err)
	}
	return obs, nil
}
