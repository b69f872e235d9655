package activities

import (
	"context"
	"strings"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/onenote"
)

// Registered names of the Graph activities.
const (
	ListNotebooksName  = "ListNotebooks"
	ListSectionsName   = "ListSections"
	ListGroupsName     = "ListSectionGroups"
	ListPagesName      = "ListPages"
	FetchContentName   = "FetchContent"
	FetchResourcesName = "FetchResources"
)

// ListNotebooksInput asks for one page of a user's notebooks.
type ListNotebooksInput struct {
	User string `json:"user"`
	// Next is the NextLink of the previous page, "" for the first.
	Next string `json:"next,omitempty"`
	// Match, if set, is a notebook ID or display name; only that
	// notebook's tree is returned in full (names of all are returned).
	Match string `json:"match,omitempty"`
	// Plain lists the notebooks without $expand: the fallback when Graph
	// fails the expanded call (500/19999). Their trees come back
	// Unlisted.
	Plain bool `json:"plain,omitempty"`
}

// NotebookTree is a notebook's containers: small, plain data. A tree call
// reads only part of it; the Unlisted flags say what is left to list, one
// Graph request each (ListSections, ListSectionGroups). The zero flags
// mean the tree is complete.
type NotebookTree struct {
	ID            string      `json:"id"`
	Name          string      `json:"name"`
	Sections      []TreeNode  `json:"sections,omitempty"`
	SectionGroups []GroupNode `json:"sectionGroups,omitempty"`
	// Unlisted is set when the notebook's sections and section groups
	// are not listed yet (a plain listing).
	Unlisted bool `json:"unlisted,omitempty"`
}

// GroupNode is a section group with its contents.
type GroupNode struct {
	ID            string      `json:"id"`
	Name          string      `json:"name"`
	Sections      []TreeNode  `json:"sections,omitempty"`
	SectionGroups []GroupNode `json:"sectionGroups,omitempty"`
	// SectionsUnlisted is set when the group's sections are not listed
	// yet, GroupsUnlisted when the groups inside it are not: Graph's
	// $expand reaches two levels at most.
	SectionsUnlisted bool `json:"sectionsUnlisted,omitempty"`
	GroupsUnlisted   bool `json:"groupsUnlisted,omitempty"`
}

// TreeNode is a section.
type TreeNode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// GUID is the section's GUID (lower case, no braces) from Graph's
	// links.oneNoteClientUrl (section-id), the key a file import gave the
	// section's database; "" when Graph's link carries none.
	GUID string `json:"guid,omitempty"`
}

// NotebookInfo names a notebook and, when listed for a scan, its tree.
type NotebookInfo struct {
	ID   string        `json:"id"`
	Name string        `json:"name"`
	Tree *NotebookTree `json:"tree,omitempty"`
}

// ListNotebooksResult is one page of notebooks.
type ListNotebooksResult struct {
	Notebooks []NotebookInfo `json:"notebooks"`
	// Match is the tree of the notebook matching the input's Match, if
	// it is on this page.
	Match *NotebookTree `json:"match,omitempty"`
	// Next is the next page's link, "" on the last page.
	Next    string          `json:"next,omitempty"`
	Outcome limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed.
func (r ListNotebooksResult) LimiterOutcome() limiter.Outcome { return r.Outcome }

// ListNotebooks lists one page of the user's notebooks with their trees as
// deep as one call reads them (two levels; deeper groups are marked
// GroupsUnlisted), or with In.Plain without trees: one Graph request.
func (a *Activities) ListNotebooks(ctx context.Context, in ListNotebooksInput) (ListNotebooksResult, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return ListNotebooksResult{}, err
	}
	list := c.ListNotebooks
	if in.Plain {
		list = c.ListNotebookNames
	}
	page, obs, err := list(ctx, in.Next)
	if err != nil {
		return ListNotebooksResult{}, graphError(err, obs)
	}
	res := ListNotebooksResult{Next: page.NextLink, Outcome: outcome(obs)}
	for _, nb := range page.Notebooks {
		tree := treeOf(nb)
		tree.Unlisted = in.Plain
		for i := range tree.SectionGroups {
			// The expand lists the first level of groups with their
			// sections, not the groups inside them.
			tree.SectionGroups[i].GroupsUnlisted = true
		}
		info := NotebookInfo{ID: nb.ID, Name: nb.DisplayName}
		if in.Match == "" {
			info.Tree = &tree
		} else if res.Match == nil && (nb.ID == in.Match || strings.EqualFold(strings.TrimSpace(nb.DisplayName), strings.TrimSpace(in.Match))) {
			res.Match = &tree
		}
		res.Notebooks = append(res.Notebooks, info)
	}
	return res, nil
}

func treeOf(nb onenote.Notebook) NotebookTree {
	t := NotebookTree{ID: nb.ID, Name: nb.DisplayName, Sections: sectionNodes(nb.Sections)}
	for _, g := range nb.SectionGroups {
		t.SectionGroups = append(t.SectionGroups, groupNode(g))
	}
	return t
}

func groupNode(g onenote.SectionGroup) GroupNode {
	n := GroupNode{ID: g.ID, Name: g.DisplayName, Sections: sectionNodes(g.Sections)}
	for _, sg := range g.SectionGroups {
		n.SectionGroups = append(n.SectionGroups, groupNode(sg))
	}
	return n
}

// ListChildrenInput asks for one page of the sections or section groups
// directly inside a notebook or section group.
type ListChildrenInput struct {
	User   string            `json:"user"`
	Parent onenote.Container `json:"parent"`
	// Next is the NextLink of the previous page, "" for the first.
	Next string `json:"next,omitempty"`
}

// ListSectionsResult is one page of a container's sections.
type ListSectionsResult struct {
	Sections []TreeNode      `json:"sections"`
	Next     string          `json:"next,omitempty"`
	Outcome  limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed.
func (r ListSectionsResult) LimiterOutcome() limiter.Outcome { return r.Outcome }

// ListGroupsResult is one page of a container's section groups, each
// with its sections and groups unlisted.
type ListGroupsResult struct {
	Groups  []GroupNode     `json:"groups"`
	Next    string          `json:"next,omitempty"`
	Outcome limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed.
func (r ListGroupsResult) LimiterOutcome() limiter.Outcome { return r.Outcome }

// ListSections lists one page of the sections directly inside a notebook
// or section group: one Graph request.
func (a *Activities) ListSections(ctx context.Context, in ListChildrenInput) (ListSectionsResult, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return ListSectionsResult{}, err
	}
	list, obs, err := c.ListSections(ctx, in.Parent, in.Next)
	if err != nil {
		return ListSectionsResult{}, graphError(err, obs)
	}
	return ListSectionsResult{Sections: sectionNodes(list.Sections), Next: list.NextLink, Outcome: outcome(obs)}, nil
}

// ListSectionGroups lists one page of the section groups directly inside
// a notebook or section group: one Graph request. Their own sections and
// groups are left for later calls.
func (a *Activities) ListSectionGroups(ctx context.Context, in ListChildrenInput) (ListGroupsResult, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return ListGroupsResult{}, err
	}
	list, obs, err := c.ListSectionGroups(ctx, in.Parent, in.Next)
	if err != nil {
		return ListGroupsResult{}, graphError(err, obs)
	}
	res := ListGroupsResult{Groups: []GroupNode{}, Next: list.NextLink, Outcome: outcome(obs)}
	for _, g := range list.SectionGroups {
		res.Groups = append(res.Groups, GroupNode{ID: g.ID, Name: g.DisplayName, SectionsUnlisted: true, GroupsUnlisted: true})
	}
	return res, nil
}

func sectionNodes(ss []onenote.Section) []TreeNode {
	out := make([]TreeNode, 0, len(ss))
	for _, s := range ss {
		n := TreeNode{ID: s.ID, Name: s.DisplayName}
		if g, ok := onenote.SectionIDFromClientURL(s.Links.OneNoteClientURL.Href); ok {
			n.GUID = strings.ToLower(g)
		}
		out = append(out, n)
	}
	return out
}

// ListPagesInput asks for the next batch of a section's pages.
type ListPagesInput struct {
	User   string             `json:"user"`
	Cursor onenote.PageCursor `json:"cursor"`
}

// PageMeta is what a workflow keeps of a listed page.
type PageMeta struct {
	ID           string `json:"id"`
	Title        string `json:"title,omitempty"`
	Level        int    `json:"level,omitempty"`
	Order        int    `json:"order"`
	Created      string `json:"created,omitempty"`
	LastModified string `json:"lastModified"`
	// LinkID is the page-id GUID of its OneNote client link: how
	// internal links name it.
	LinkID string `json:"linkID,omitempty"`
	// WebURL is its OneNote web link.
	WebURL string `json:"webURL,omitempty"`
}

// ListPagesResult is one listing request's pages.
type ListPagesResult struct {
	Pages []PageMeta         `json:"pages"`
	Next  onenote.PageCursor `json:"next"`
	Done  bool               `json:"done"`
	// Repeated is set when Graph sent the previous batch again (it
	// ignored $skip): pages after it may be missing, so list again
	// following @odata.nextLink (a cursor with UseNextLink).
	Repeated bool            `json:"repeated,omitempty"`
	Outcome  limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed.
func (r ListPagesResult) LimiterOutcome() limiter.Outcome { return r.Outcome }

// timeFormat is how times travel in activity data.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// ListPages makes one listing request (up to 100 pages).
func (a *Activities) ListPages(ctx context.Context, in ListPagesInput) (ListPagesResult, error) {
	c, err := a.graph(in.User)
	if err != nil {
		return ListPagesResult{}, err
	}
	cur := in.Cursor
	if h := a.cfg.Hooks.ListPagesSection; h != nil {
		cur.SectionID = h(cur.SectionID)
	}
	b, obs, err := c.ListPagesPage(ctx, cur)
	if err != nil {
		return ListPagesResult{}, graphError(err, obs)
	}
	next := b.Next
	next.SectionID = in.Cursor.SectionID
	res := ListPagesResult{Next: next, Done: b.Done, Repeated: b.Repeated, Outcome: outcome(obs)}
	for _, p := range b.Pages {
		m := PageMeta{ID: p.ID, Title: p.Title, Level: p.Level, Order: p.Order,
			LastModified: p.LastModifiedDateTime.UTC().Format(timeFormat), WebURL: p.Links.OneNoteWebURL.Href}
		if !p.CreatedDateTime.IsZero() {
			m.Created = p.CreatedDateTime.UTC().Format(timeFormat)
		}
		if id, ok := onenote.PageIDFromClientURL(p.Links.OneNoteClientURL.Href); ok {
			m.LinkID = id
		}
		res.Pages = append(res.Pages, m)
	}
	return res, nil
}
