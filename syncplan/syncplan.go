// Package syncplan decides what a sync run of a migrated notebook must do:
// given what Notion holds of every page after the previous run (the
// record) and what Graph lists now, it classifies each page as unchanged,
// edited, renamed, moved, deleted or new, and names the pages whose content
// must be fetched before that can be told (a one-second timestamp wobble,
// a page that may have moved). It is pure Go with no clock and no
// Temporal import: a workflow calls it.
//
// Real Graph (shared/reference/graph-reality.md) shapes the rules:
//   - a title rename does not move lastModifiedDateTime (fact 22), so
//     titles are compared as well as timestamps;
//   - a page moved to another section gets a new ID and keeps its
//     lastModifiedDateTime (fact 20), and a section moved to another
//     notebook keeps its pages' GUIDs with a new section suffix (fact 21),
//     so a page whose ID disappeared is matched with an unknown one by the
//     page GUID (the ID before its section suffix), by its onenote:
//     page-id GUID, or by its content, before it is called deleted;
//   - timestamps have whole-second resolution, and a section once
//     reported +1 s on every page with no edit (fact 24), so a one-second
//     difference with the same title is checked against the content hash
//     before anything is written.
package syncplan

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Recorded is what the Notion side holds of one page after the previous
// run.
type Recorded struct {
	// PageID is the Graph page ID the row was written from.
	PageID string `json:"pageID"`
	// LinkID is the page-id GUID of its onenote: client link ("" if the
	// row predates it).
	LinkID       string    `json:"linkID,omitempty"`
	Title        string    `json:"title"`
	LastModified time.Time `json:"lastModified"`
	// ContentHash identifies the content the row was written from (""
	// if the row predates it: such a page is never matched by content).
	ContentHash string `json:"contentHash,omitempty"`
	SectionID   string `json:"sectionID"`
	// Row is the Notion page (database row) that holds it.
	Row string `json:"row"`
	// Done is false for a row left half-written: it is written again.
	Done bool `json:"done"`
	// Reported is set on the row of a page deleted in OneNote and kept,
	// once a run has reported it: later runs count it and name it no
	// more.
	Reported bool `json:"reported,omitempty"`
}

// Listed is a page as the current listings show it.
type Listed struct {
	PageID       string    `json:"pageID"`
	LinkID       string    `json:"linkID,omitempty"`
	Title        string    `json:"title"`
	LastModified time.Time `json:"lastModified"`
	SectionID    string    `json:"sectionID"`
}

// Kind is what happened to a page since the previous run.
type Kind string

// The kinds of change.
const (
	Unchanged Kind = "unchanged"
	// Edited: its content changed; the page is written again in place.
	Edited Kind = "edited"
	// Renamed: only its title changed; the row's title is set.
	Renamed Kind = "renamed"
	// Moved: it has a new ID (another section, usually); its row moves
	// to the section's database and keeps its Notion page.
	Moved Kind = "moved"
	// Deleted: gone from OneNote; its row is archived or kept, as the
	// operator chose.
	Deleted Kind = "deleted"
	// New: not in Notion yet; it is written.
	New Kind = "new"
	// WobbleAgreed: its timestamp moved by a second with the same
	// content; the new timestamp is recorded, nothing is written.
	WobbleAgreed Kind = "wobble-agreed"
)

// Change is one page's outcome.
type Change struct {
	Kind Kind `json:"kind"`
	// Now is the page as listed (zero for Deleted); Was is its record
	// (zero for New).
	Now Listed   `json:"now,omitzero"`
	Was Recorded `json:"was,omitzero"`
	// For Moved: Retitled is set when its title changed as well, and
	// Rewrite when its content did (its row moves, then it is written
	// again). By says what matched it: "page GUID", "link GUID" or
	// "content".
	Retitled bool   `json:"retitled,omitempty"`
	Rewrite  bool   `json:"rewrite,omitempty"`
	By       string `json:"by,omitempty"`
}

// Check is a page whose content hash decides its kind.
type Check struct {
	// PageID is the listed page to fetch.
	PageID string `json:"pageID"`
	// Wobble: it is a recorded page whose timestamp moved by one
	// second; otherwise it is an unknown page that may be a recorded one
	// moved (Candidates, by Row).
	Wobble     bool     `json:"wobble,omitempty"`
	Candidates []string `json:"candidates,omitempty"`
}

// Plan is what Classify decided, and what is left for the content
// hashes to decide (Checks).
type Plan struct {
	// Changes hold every page whose kind is known, unchanged ones
	// included, listed pages first in listing order, then the deleted.
	Changes []Change `json:"changes"`
	// Checks name the pages to fetch before Resolve can decide them.
	Checks []Check `json:"checks,omitempty"`
	// Undecided hold, for each check, what it is decided between.
	Undecided []Undecided `json:"undecided,omitempty"`
}

// Undecided is a page waiting for its content hash: a wobble of record
// Was, or a page that may be one of Candidates moved.
type Undecided struct {
	Now        Listed     `json:"now"`
	Was        *Recorded  `json:"was,omitempty"`
	Candidates []Recorded `json:"candidates,omitempty"`
}

// Wobble is the largest timestamp difference taken for a wobble.
const Wobble = time.Second

// PageGUID is the part of a Graph page ID before its section suffix
// ("0-<32 hex>!<n>-<owner>" of "0-<32 hex>!<n>-<owner>!s<32 hex>"), or
// the whole ID when it has no suffix.
func PageGUID(id string) string {
	if i := strings.LastIndex(id, "!s"); i > 0 {
		return id[:i]
	}
	return id
}

// LinkKey is how a link GUID is matched: in any case, since OneNote writes
// it in upper case in its links and a file import keys rows by it in
// lower case.
func LinkKey(guid string) string { return strings.ToLower(guid) }

// Classify compares the record with the listings. Recorded rows of the
// same page ID (there should be one) are taken once, the first in
// record order.
func Classify(record []Recorded, listed []Listed) Plan {
	var plan Plan
	byID := map[string]int{}
	for i, r := range record {
		if _, ok := byID[r.PageID]; !ok {
			byID[r.PageID] = i
		}
	}
	seen := make([]bool, len(record))
	var unknown []Listed
	for _, l := range listed {
		i, ok := byID[l.PageID]
		if !ok {
			unknown = append(unknown, l)
			continue
		}
		seen[i] = true
		r := record[i]
		switch k := compare(r, l); k {
		case "wobble":
			rc := r
			plan.Checks = append(plan.Checks, Check{PageID: l.PageID, Wobble: true})
			plan.Undecided = append(plan.Undecided, Undecided{Now: l, Was: &rc})
		default:
			plan.Changes = append(plan.Changes, Change{Kind: Kind(k), Now: l, Was: r})
		}
	}
	// The records whose ID is gone, in record order.
	var gone []int
	for i := range record {
		if seen[i] {
			continue
		}
		if j := byID[record[i].PageID]; j != i {
			continue // a duplicate record of the same page
		}
		gone = append(gone, i)
	}
	matched := map[int]bool{}
	take := func(key func(Recorded) string, lkey func(Listed) string, by string) {
		idx := map[string]int{}
		for _, i := range gone {
			if k := key(record[i]); k != "" && !matched[i] {
				if _, dup := idx[k]; !dup {
					idx[k] = i
				}
			}
		}
		rest := unknown[:0:0]
		for _, l := range unknown {
			i, ok := idx[lkey(l)]
			if lkey(l) == "" || !ok || matched[i] {
				rest = append(rest, l)
				continue
			}
			matched[i] = true
			plan.Changes = append(plan.Changes, moved(record[i], l, by))
		}
		unknown = rest
	}
	take(func(r Recorded) string { return PageGUID(r.PageID) }, func(l Listed) string { return PageGUID(l.PageID) }, "page GUID")
	// A link GUID is matched in any case: OneNote writes it in upper case
	// in its links, a file import keys rows by it in lower case.
	take(func(r Recorded) string { return LinkKey(r.LinkID) }, func(l Listed) string { return LinkKey(l.LinkID) }, "link GUID")
	// The rest may have moved and be known only by content: a moved page
	// keeps its timestamp, so only records of the same second (with a
	// hash) are candidates, and only those cost a content fetch.
	for _, l := range unknown {
		var cands []Recorded
		var rows []string
		for _, i := range gone {
			r := record[i]
			if !matched[i] && r.ContentHash != "" && r.Done && sameSecond(r.LastModified, l.LastModified) {
				cands = append(cands, r)
				rows = append(rows, r.Row)
			}
		}
		if len(cands) == 0 {
			plan.Changes = append(plan.Changes, Change{Kind: New, Now: l})
			continue
		}
		plan.Checks = append(plan.Checks, Check{PageID: l.PageID, Candidates: rows})
		plan.Undecided = append(plan.Undecided, Undecided{Now: l, Candidates: cands})
	}
	// Records that are content candidates stay undecided until Resolve.
	candidate := map[string]bool{}
	for _, p := range plan.Undecided {
		for _, c := range p.Candidates {
			candidate[c.Row] = true
		}
	}
	for _, i := range gone {
		if !matched[i] && !candidate[record[i].Row] {
			plan.Changes = append(plan.Changes, Change{Kind: Deleted, Was: record[i]})
		}
	}
	return plan
}

// Resolve decides the pages Classify left for their content: hashes maps
// a check's page ID to the hash of its content now (a page missing from
// hashes could not be fetched: a wobble is then written again, and a
// possible move is taken as new). It returns every change.
func Resolve(plan Plan, hashes map[string]string) []Change {
	out := slices.Clone(plan.Changes)
	used := map[string]bool{}
	var deleted []Recorded
	for _, p := range plan.Undecided {
		h, ok := hashes[p.Now.PageID]
		if p.Was != nil {
			switch {
			case ok && h != "" && h == p.Was.ContentHash && p.Was.Done && p.Now.Title == p.Was.Title:
				out = append(out, Change{Kind: WobbleAgreed, Now: p.Now, Was: *p.Was})
			case ok && h != "" && h == p.Was.ContentHash && p.Was.Done:
				out = append(out, Change{Kind: Renamed, Now: p.Now, Was: *p.Was})
			default:
				out = append(out, Change{Kind: Edited, Now: p.Now, Was: *p.Was})
			}
			continue
		}
		found := false
		for _, c := range p.Candidates {
			if ok && h != "" && !used[c.Row] && c.ContentHash == h {
				used[c.Row] = true
				ch := moved(c, p.Now, "content")
				out = append(out, ch)
				found = true
				break
			}
		}
		if !found {
			out = append(out, Change{Kind: New, Now: p.Now})
		}
	}
	// Candidates no page claimed are deleted, once each, in order.
	for _, p := range plan.Undecided {
		for _, c := range p.Candidates {
			if !used[c.Row] {
				used[c.Row] = true
				deleted = append(deleted, c)
			}
		}
	}
	for _, r := range deleted {
		out = append(out, Change{Kind: Deleted, Was: r})
	}
	return out
}

// compare tells a page listed under its recorded ID: unchanged, renamed,
// edited, or "wobble" (one second off, same title: its content decides).
func compare(r Recorded, l Listed) string {
	if !r.Done {
		return string(Edited)
	}
	d := l.LastModified.Truncate(time.Second).Sub(r.LastModified.Truncate(time.Second))
	switch {
	case d == 0 && l.Title == r.Title:
		return string(Unchanged)
	case d == 0:
		return string(Renamed)
	case d.Abs() <= Wobble && l.Title == r.Title && r.ContentHash != "":
		return "wobble"
	default:
		return string(Edited)
	}
}

// moved is the change of record r found again as listed page l.
func moved(r Recorded, l Listed, by string) Change {
	return Change{Kind: Moved, Now: l, Was: r, By: by, Retitled: l.Title != r.Title,
		Rewrite: !r.Done || !sameSecond(r.LastModified, l.LastModified)}
}

func sameSecond(a, b time.Time) bool { return a.Truncate(time.Second).Equal(b.Truncate(time.Second)) }

// Counts sums changes by kind.
type Counts struct {
	Unchanged    int `json:"unchanged"`
	Added        int `json:"added"`
	Updated      int `json:"updated"`
	Renamed      int `json:"renamed"`
	Moved        int `json:"moved"`
	Archived     int `json:"archived"`
	KeptDeleted  int `json:"keptDeleted"`
	WobbleAgreed int `json:"wobbleAgreed"`
	// KeptBefore counts the kept deletions that an earlier run reported
	// (among KeptDeleted).
	KeptBefore int `json:"keptBefore,omitempty"`
}

// Count sums changes; archive says whether deleted pages are archived
// (else kept).
func Count(changes []Change, archive bool) Counts {
	var c Counts
	for _, ch := range changes {
		switch ch.Kind {
		case Unchanged:
			c.Unchanged++
		case New:
			c.Added++
		case Edited:
			c.Updated++
		case Renamed:
			c.Renamed++
		case Moved:
			c.Moved++
		case WobbleAgreed:
			c.WobbleAgreed++
		case Deleted:
			if archive {
				c.Archived++
			} else {
				c.KeptDeleted++
				if ch.Was.Reported {
					c.KeptBefore++
				}
			}
		}
	}
	return c
}

// Sorted returns changes ordered by kind then page, for stable reports.
func Sorted(changes []Change) []Change {
	out := slices.Clone(changes)
	slices.SortStableFunc(out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Now.PageID+a.Was.PageID, b.Now.PageID+b.Was.PageID))
	})
	return out
}
