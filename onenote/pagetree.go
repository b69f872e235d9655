package onenote

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
)

// PageNode is a page with its subpages.
type PageNode struct {
	Page     Page
	Children []*PageNode
}

// BuildPageTree rebuilds the subpage tree of a section's pages from their
// level and order: pages are taken in order, and each page's parent is the
// nearest earlier page with a smaller level. Pages with no such page are
// roots. The input is not modified.
func BuildPageTree(pages []Page) []*PageNode {
	sorted := slices.Clone(pages)
	slices.SortStableFunc(sorted, func(a, b Page) int { return cmp.Compare(a.Order, b.Order) })
	var roots []*PageNode
	var stack []*PageNode // the current chain of ancestors, levels increasing
	for _, p := range sorted {
		n := &PageNode{Page: p}
		for len(stack) > 0 && stack[len(stack)-1].Page.Level >= p.Level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, n)
		} else {
			parent := stack[len(stack)-1]
			parent.Children = append(parent.Children, n)
		}
		stack = append(stack, n)
	}
	return roots
}

// PageIDFromClientURL extracts the page GUID from a page's
// links.oneNoteClientUrl.href, which ends like
// "...#Title&section-id={…}&page-id={B7B1…}&end". The GUID is returned
// without braces, in the case it has in the URL (compare with
// strings.EqualFold). It reports false if there is no page-id.
//
// Internal onenote: links between pages carry the same page-id, so this is
// how they are matched to migrated pages.
func PageIDFromClientURL(href string) (string, bool) {
	return clientURLParam(href, "page-id=")
}

// SectionIDFromClientURL extracts the section GUID from a section's or a
// page's links.oneNoteClientUrl.href ("...#section-id={…}&end"), as
// PageIDFromClientURL does the page GUID. It reports false if there is no
// section-id.
func SectionIDFromClientURL(href string) (string, bool) {
	return clientURLParam(href, "section-id=")
}

// clientURLParam reads parameter key ("page-id=") of a onenote: link,
// without braces.
func clientURLParam(href, key string) (string, bool) {
	s := href
	if u, err := url.PathUnescape(href); err == nil {
		s = u
	}
	lower := strings.ToLower(s)
	i := strings.Index(lower, key)
	if i < 0 {
		return "", false
	}
	v := s[i+len(key):]
	if j := strings.IndexAny(v, "&#"); j >= 0 {
		v = v[:j]
	}
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(v, "{")
	v = strings.TrimSuffix(v, "}")
	if v == "" {
		return "", false
	}
	return v, true
}
