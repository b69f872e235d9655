package main

import (
	"fmt"
	"net/url"
	"strings"
)

// notionPageID reads a Notion page named by its link (as Notion's Share >
// Copy link gives it, https://www.notion.so/<workspace>/<Title>-<ID> or
// a notion.site link) or by its ID (32 hex digits, with or without
// dashes), and returns the ID in Notion's dashed form, lower case. A
// database's link (a view, ?v=…) is refused: it names no page, unless it
// holds a page opened over the database (&p=<ID>), which is taken.
func notionPageID(ref string) (string, error) {
	s := strings.TrimSpace(ref)
	if s == "" {
		return "", fmt.Errorf("empty: give the page's link (Share > Copy link) or its ID")
	}
	if id, ok := hexID(s); ok {
		return id, nil
	}
	if !strings.Contains(s, "://") && strings.Contains(s, "/") {
		s = "https://" + s // pasted without its scheme
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("%q is neither a Notion page ID (32 hex digits) nor a link to a page", ref)
	}
	q := u.Query()
	if p := q.Get("p"); p != "" {
		if id, ok := hexID(p); ok {
			return id, nil
		}
	}
	if q.Has("v") {
		return "", fmt.Errorf("%q is the link of a database view, not of a page: open the notebook page itself and copy its link (Share > Copy link)", ref)
	}
	last := u.Path[strings.LastIndex(u.Path, "/")+1:]
	// "<Title>-<ID>", or the ID alone.
	if i := strings.LastIndex(last, "-"); i >= 0 && len(last)-i-1 == 32 {
		last = last[i+1:]
	}
	if id, ok := hexID(last); ok {
		return id, nil
	}
	return "", fmt.Errorf("%q is a link without a Notion page ID: copy the page's link in Notion (Share > Copy link) or give its ID", ref)
}

// hexID reads a Notion ID, 32 hex digits with or without the dashes of
// a UUID, into the dashed form.
func hexID(s string) (string, bool) {
	h := strings.ToLower(s)
	if len(h) == 36 && h[8] == '-' && h[13] == '-' && h[18] == '-' && h[23] == '-' {
		h = strings.ReplaceAll(h, "-", "")
	}
	if len(h) != 32 || strings.ContainsFunc(h, func(r rune) bool { return !strings.ContainsRune("0123456789abcdef", r) }) {
		return "", false
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true
}

// pageFlag is a flag naming a Notion page by its link or ID (see
// notionPageID); it holds the ID, so help texts and dry runs show what is
// sent.
type pageFlag struct{ id *string }

// String is the page ID.
func (f pageFlag) String() string {
	if f.id == nil {
		return ""
	}
	return *f.id
}

// Set reads a link or an ID.
func (f pageFlag) Set(s string) error {
	id, err := notionPageID(s)
	if err != nil {
		return err
	}
	*f.id = id
	return nil
}

// Type names the value in the flag's usage.
func (f pageFlag) Type() string { return "page" }

// adoptFlagUsage is the usage of --adopt-notebook-page.
const adoptFlagUsage = "take over this Notion page, a file import's notebook page (its link or ID), with its " +
	"section databases and rows, if the run finds no notebook page of its own under --notion-parent; checked before " +
	"anything is written (\"adoptNotebookPage\"; see docs/file-import.md)"
