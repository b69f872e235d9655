package graph

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// outlineFixture is alice with two notebooks. Notebook "Work" holds
// section "Plans" (pages A..G at levels 0 1 2 1 0 1 0), section "Notes"
// (pages N, O at level 0) and a section group "Archive" with section
// "Old" (page Q); notebook "Home" holds section "Garden" (page H).
func outlineFixture(t *testing.T) *fixture {
	t.Helper()
	clock := newFakeClock()
	srv := NewServer(Config{Now: clock.Now, Limits: UnlimitedLimits()})
	pages := func(spec string) []*Page {
		var out []*Page
		for i, f := range strings.Fields(spec) {
			title, level, _ := strings.Cut(f, ":")
			var l int
			fmt.Sscan(level, &l)
			out = append(out, &Page{Title: title, Level: l, Order: i,
				HTML: "<html><head><title>" + title + "</title></head><body><p>" + title + "</p></body></html>"})
		}
		return out
	}
	srv.AddNotebooks("alice",
		&Notebook{DisplayName: "Work", Sections: []*Section{
			{DisplayName: "Plans", Pages: pages("A:0 B:1 C:2 D:1 E:0 F:1 G:0")},
			{DisplayName: "Notes", Pages: pages("N:0 O:0")},
		}, SectionGroups: []*SectionGroup{{DisplayName: "Archive", Sections: []*Section{{DisplayName: "Old", Pages: pages("Q:0")}}}}},
		&Notebook{DisplayName: "Home", Sections: []*Section{{DisplayName: "Garden", Pages: pages("H:0")}}},
	)
	clock.Advance(24 * time.Hour)
	return &fixture{srv: srv, clock: clock, tokens: map[string]string{"alice": srv.IssueToken("alice", []string{"Notes.Read"}, 48*time.Hour)}}
}

// sectionID finds alice's section named name through the API.
func (f *fixture) sectionID(t *testing.T, name string) string {
	t.Helper()
	rec := f.get(t, "alice", "/v1.0/me/onenote/sections?$filter=displayName eq '"+name+"'")
	secs := decode[struct{ Value []container }](t, rec.Body.Bytes()).Value
	if len(secs) != 1 {
		t.Fatalf("sections named %q: %s", name, rec.Body)
	}
	return secs[0].ID
}

// outline lists section id's pages in order as "title:level" and checks
// that the orders are 0..n-1.
func (f *fixture) outline(t *testing.T, id string) (string, map[string]string) {
	t.Helper()
	rec := f.get(t, "alice", "/v1.0/me/onenote/sections/"+id+"/pages?pagelevel=true&$orderby=order&$top=100")
	if rec.Code != http.StatusOK {
		t.Fatalf("pages of %s: %d %s", id, rec.Code, rec.Body)
	}
	var parts []string
	ids := map[string]string{}
	for i, p := range decode[pageList](t, rec.Body.Bytes()).Value {
		if *p.Order != i {
			t.Errorf("section %s: page %q has order %d at position %d", id, p.Title, *p.Order, i)
		}
		parts = append(parts, fmt.Sprintf("%s:%d", p.Title, *p.Level))
		ids[p.Title] = p.ID
	}
	return strings.Join(parts, " "), ids
}

func (f *fixture) post(t *testing.T, path string, q url.Values) *http.Response {
	t.Helper()
	rec := f.do(t, "", http.MethodPost, path+"?"+q.Encode(), "")
	return rec.Result()
}

// TestPageLevelRule: a level change and a subpage added at a place keep
// OneNote's rule (a page at most one level deeper than the one before it,
// the first at level 0, none deeper than 2); requests that break it are
// refused with 409 and change nothing.
func TestPageLevelRule(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(f *fixture, ids map[string]string) url.Values
		path    func(sec string, ids map[string]string) string
		status  int
		outline string
	}{
		{name: "demote a page under the one before",
			path:   func(_ string, ids map[string]string) string { return "/_emulator/pages/" + ids["E"] + "/level" },
			edit:   func(*fixture, map[string]string) url.Values { return url.Values{"to": {"1"}} },
			status: http.StatusNoContent, outline: "A:0 B:1 C:2 D:1 E:1 F:1 G:0"},
		{name: "promote a subpage with a deeper one after it",
			path:   func(_ string, ids map[string]string) string { return "/_emulator/pages/" + ids["B"] + "/level" },
			edit:   func(*fixture, map[string]string) url.Values { return url.Values{"to": {"0"}} },
			status: http.StatusConflict, outline: "A:0 B:1 C:2 D:1 E:0 F:1 G:0"},
		{name: "two levels deeper than the page before",
			path:   func(_ string, ids map[string]string) string { return "/_emulator/pages/" + ids["B"] + "/level" },
			edit:   func(*fixture, map[string]string) url.Values { return url.Values{"to": {"2"}} },
			status: http.StatusConflict, outline: "A:0 B:1 C:2 D:1 E:0 F:1 G:0"},
		{name: "the first page as a subpage",
			path:   func(_ string, ids map[string]string) string { return "/_emulator/pages/" + ids["A"] + "/level" },
			edit:   func(*fixture, map[string]string) url.Values { return url.Values{"to": {"1"}} },
			status: http.StatusConflict, outline: "A:0 B:1 C:2 D:1 E:0 F:1 G:0"},
		{name: "level 3",
			path:   func(_ string, ids map[string]string) string { return "/_emulator/pages/" + ids["D"] + "/level" },
			edit:   func(*fixture, map[string]string) url.Values { return url.Values{"to": {"3"}} },
			status: http.StatusConflict, outline: "A:0 B:1 C:2 D:1 E:0 F:1 G:0"},
		{name: "a sub-subpage after C",
			path: func(sec string, _ map[string]string) string { return "/_emulator/sections/" + sec + "/add" },
			edit: func(_ *fixture, ids map[string]string) url.Values {
				return url.Values{"title": {"X"}, "after": {ids["C"]}, "level": {"2"}}
			},
			status: http.StatusOK, outline: "A:0 B:1 C:2 X:2 D:1 E:0 F:1 G:0"},
		{name: "a page between E and its subpage",
			path: func(sec string, _ map[string]string) string { return "/_emulator/sections/" + sec + "/add" },
			edit: func(_ *fixture, ids map[string]string) url.Values {
				return url.Values{"title": {"X"}, "after": {ids["E"]}, "level": {"0"}}
			},
			status: http.StatusOK, outline: "A:0 B:1 C:2 D:1 E:0 X:0 F:1 G:0"},
		{name: "a page that would leave C two levels under it",
			path: func(sec string, _ map[string]string) string { return "/_emulator/sections/" + sec + "/add" },
			edit: func(_ *fixture, ids map[string]string) url.Values {
				return url.Values{"title": {"X"}, "after": {ids["B"]}, "level": {"0"}}
			},
			status: http.StatusConflict, outline: "A:0 B:1 C:2 D:1 E:0 F:1 G:0"},
		{name: "a page first",
			path: func(sec string, _ map[string]string) string { return "/_emulator/sections/" + sec + "/add" },
			edit: func(*fixture, map[string]string) url.Values {
				return url.Values{"title": {"X"}, "first": {"1"}}
			},
			status: http.StatusOK, outline: "X:0 A:0 B:1 C:2 D:1 E:0 F:1 G:0"},
		{name: "a subpage first",
			path: func(sec string, _ map[string]string) string { return "/_emulator/sections/" + sec + "/add" },
			edit: func(*fixture, map[string]string) url.Values {
				return url.Values{"title": {"X"}, "first": {"1"}, "level": {"1"}}
			},
			status: http.StatusConflict, outline: "A:0 B:1 C:2 D:1 E:0 F:1 G:0"},
		{name: "a group moved first, one level up",
			path: func(_ string, ids map[string]string) string { return "/_emulator/pages/" + ids["D"] + "/move" },
			edit: func(*fixture, map[string]string) url.Values {
				return url.Values{"group": {"1"}, "first": {"1"}}
			},
			status: http.StatusOK, outline: "D:0 A:0 B:1 C:2 E:0 F:1 G:0"},
		{name: "a subpage at the end",
			path: func(sec string, _ map[string]string) string { return "/_emulator/sections/" + sec + "/add" },
			edit: func(*fixture, map[string]string) url.Values {
				return url.Values{"title": {"X"}, "level": {"1"}}
			},
			status: http.StatusOK, outline: "A:0 B:1 C:2 D:1 E:0 F:1 G:0 X:1"},
		{name: "after a page of another section",
			path: func(sec string, _ map[string]string) string { return "/_emulator/sections/" + sec + "/add" },
			edit: func(f *fixture, _ map[string]string) url.Values {
				_, other := f.outline(t, f.sectionID(t, "Notes"))
				return url.Values{"title": {"X"}, "after": {other["N"]}}
			},
			status: http.StatusBadRequest, outline: "A:0 B:1 C:2 D:1 E:0 F:1 G:0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := outlineFixture(t)
			sec := f.sectionID(t, "Plans")
			_, ids := f.outline(t, sec)
			res := f.post(t, tc.path(sec, ids), tc.edit(f, ids))
			if res.StatusCode != tc.status {
				t.Errorf("answer %d %s, want %d", res.StatusCode, readAll(t, res.Body), tc.status)
			}
			if got, _ := f.outline(t, sec); got != tc.outline {
				t.Errorf("outline %q, want %q", got, tc.outline)
			}
		})
	}
	f := outlineFixture(t)
	_, ids := f.outline(t, f.sectionID(t, "Plans"))
	if err := f.srv.SetPageLevel(ids["B"], 0); !errors.Is(err, ErrBreaksOutline) {
		t.Errorf("SetPageLevel breaking the rule: %v, want ErrBreaksOutline", err)
	}
}

// TestMovePageGroup: a page moves with its subpages, to another section
// (new ids, same GUIDs and timestamps, both sections modified now) or to
// another place in its own (same ids); orders stay 0..n-1; the single-page
// move still leaves the subpages behind, raised under the page before.
func TestMovePageGroup(t *testing.T) {
	f := outlineFixture(t)
	plans, notes := f.sectionID(t, "Plans"), f.sectionID(t, "Notes")
	_, ids := f.outline(t, plans)
	before := f.pageMeta(t, ids["A"])

	// A's group (A B C D) at level 1 would put C at level 3.
	if _, err := f.srv.MovePageGroup(ids["A"], notes, Place{Level: 1}); !errors.Is(err, ErrBreaksOutline) {
		t.Errorf("a group moved too deep: %v", err)
	}
	res := f.post(t, "/_emulator/pages/"+ids["A"]+"/move", url.Values{"group": {"1"}, "to": {notes}})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("group move: %d %s", res.StatusCode, readAll(t, res.Body))
	}
	moved := decode[struct {
		ID  string
		IDs []string
	}](t, []byte(readAll(t, res.Body)))
	if got, _ := f.outline(t, plans); got != "E:0 F:1 G:0" {
		t.Errorf("source after the group move: %q", got)
	}
	got, after := f.outline(t, notes)
	if got != "N:0 O:0 A:0 B:1 C:2 D:1" {
		t.Errorf("target after the group move: %q", got)
	}
	if want := []string{after["A"], after["B"], after["C"], after["D"]}; !slices.Equal(moved.IDs, want) || moved.ID != after["A"] {
		t.Errorf("answer %+v, want ids %v", moved, want)
	}
	for _, old := range []string{ids["A"], ids["B"], ids["C"], ids["D"]} {
		if rec := f.get(t, "alice", "/v1.0/me/onenote/pages/"+old); rec.Code != http.StatusNotFound {
			t.Errorf("old id %s answers %d", old, rec.Code)
		}
	}
	now := f.pageMeta(t, after["A"])
	if now.LastModifiedDateTime != before.LastModifiedDateTime || pageGUID(now.Links.OneNoteClientURL.Href) != pageGUID(before.Links.OneNoteClientURL.Href) {
		t.Errorf("moved page: modified %s guid %s, want %s %s", now.LastModifiedDateTime, pageGUID(now.Links.OneNoteClientURL.Href),
			before.LastModifiedDateTime, pageGUID(before.Links.OneNoteClientURL.Href))
	}
	if !strings.HasSuffix(after["A"], "!s"+strings.ReplaceAll(f.sectionGUID(t, notes), "-", "")) {
		t.Errorf("moved id %s lacks the target section's suffix", after["A"])
	}
	for _, sec := range []string{plans, notes} {
		if m := f.sectionMeta(t, sec); m.LastModifiedDateTime != graphTime(f.clock.Now()) {
			t.Errorf("section %s modified %s, want now", sec, m.LastModifiedDateTime)
		}
	}

	// Within a section: E and F go after G, ids kept; a place inside the
	// group is refused.
	_, ids = f.outline(t, plans)
	if _, err := f.srv.MovePageGroup(ids["E"], "", Place{After: ids["F"]}); !errors.Is(err, ErrBreaksOutline) {
		t.Errorf("a group after its own page: %v", err)
	}
	got2, err := f.srv.MovePageGroup(ids["E"], plans, Place{After: ids["G"]})
	if err != nil || !slices.Equal(got2, []string{ids["E"], ids["F"]}) {
		t.Errorf("reorder: %v %v", got2, err)
	}
	if got, _ := f.outline(t, plans); got != "G:0 E:0 F:1" {
		t.Errorf("after the reorder: %q", got)
	}

	// The single-page move leaves F behind, under G.
	if _, err := f.srv.MovePage(ids["E"], notes); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.outline(t, plans); got != "G:0 F:1" {
		t.Errorf("after the single move: %q", got)
	}
	if got, _ := f.outline(t, notes); got != "N:0 O:0 A:0 B:1 C:2 D:1 E:0" {
		t.Errorf("target after the single move: %q", got)
	}
	// A deleted parent's subpage rises under the page before it.
	_, ids = f.outline(t, notes)
	for _, p := range []string{ids["O"], ids["B"]} {
		if err := f.srv.DeletePage(p); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := f.outline(t, notes); got != "N:0 A:0 C:1 D:1 E:0" {
		t.Errorf("after deleting O and B: %q", got)
	}
}

type entityMeta struct {
	ID                   string `json:"id"`
	DisplayName          string `json:"displayName"`
	Title                string `json:"title"`
	LastModifiedDateTime string `json:"lastModifiedDateTime"`
	Links                struct {
		OneNoteClientURL struct {
			Href string `json:"href"`
		} `json:"oneNoteClientUrl"`
	} `json:"links"`
	ParentSection      *entityMeta `json:"parentSection"`
	ParentNotebook     *entityMeta `json:"parentNotebook"`
	ParentSectionGroup *entityMeta `json:"parentSectionGroup"`
	Self               string      `json:"self"`
}

func (f *fixture) pageMeta(t *testing.T, id string) entityMeta {
	t.Helper()
	rec := f.get(t, "alice", "/v1.0/me/onenote/pages/"+id)
	if rec.Code != http.StatusOK {
		t.Fatalf("page %s: %d %s", id, rec.Code, rec.Body)
	}
	return decode[entityMeta](t, rec.Body.Bytes())
}

func (f *fixture) sectionMeta(t *testing.T, id string) entityMeta {
	t.Helper()
	rec := f.get(t, "alice", "/v1.0/me/onenote/sections/"+id)
	if rec.Code != http.StatusOK {
		t.Fatalf("section %s: %d %s", id, rec.Code, rec.Body)
	}
	return decode[entityMeta](t, rec.Body.Bytes())
}

// sectionGUID reads section id's section-id GUID from its onenote: link.
func (f *fixture) sectionGUID(t *testing.T, id string) string {
	t.Helper()
	href := f.sectionMeta(t, id).Links.OneNoteClientURL.Href
	_, rest, _ := strings.Cut(href, "section-id={")
	guid, _, _ := strings.Cut(rest, "}")
	return guid
}

// pageGUID reads the page-id GUID of a page's onenote: link.
func pageGUID(href string) string {
	_, rest, _ := strings.Cut(href, "page-id={")
	guid, _, _ := strings.Cut(rest, "}")
	return guid
}
