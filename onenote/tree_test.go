package onenote

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// strictGraph is a small stand-in for what real Graph does with tree
// calls (graph-reality.md #1-#6): a two-level $expand with $select works,
// a deeper one or levels=max answers 400, the account-wide listings answer
// 500/19999, and during an expand outage any $expand on /notebooks answers
// 500/19999 while plain calls work. Its tree is four section groups deep.
type strictGraph struct {
	t            *testing.T
	mu           sync.Mutex
	expandOutage bool
	requests     []string // method and path of every request, in order
}

// strictTree: notebook nb1 with section s0 and group g1 > g2 > g3 > g4,
// each group holding one section.
var strictTree = struct {
	notebook string
	groups   []string // g1 holds g2 holds g3 holds g4
}{"nb1", []string{"g1", "g2", "g3", "g4"}}

func (g *strictGraph) count(r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, r.URL.Path)
}

func (g *strictGraph) requestCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.requests)
}

func (g *strictGraph) serve(w http.ResponseWriter, r *http.Request) {
	g.count(r)
	path := strings.TrimPrefix(r.URL.Path, "/v1.0/me/onenote/")
	q := r.URL.Query()
	expand := q.Get("$expand")
	switch path {
	case "sections", "sectionGroups":
		writeGraphError(w, 500, "19999", "Something failed, the API cannot share any more information at the time of the request.")
		return
	case "pages":
		writeGraphError(w, 400, "20266", "The maximum number of sections is exceeded for this request.")
		return
	}
	wantSelect := TreeSelect
	if strings.HasSuffix(path, "/sections") {
		wantSelect = SectionSelect
	}
	if q.Get("$select") != wantSelect && expand == "" {
		g.t.Errorf("%s: $select = %q, want %q", r.URL.Path, q.Get("$select"), wantSelect)
	}
	section := func(id string) map[string]any { return map[string]any{"id": id, "displayName": "Section " + id} }
	group := func(id string) map[string]any { return map[string]any{"id": id, "displayName": "Group " + id} }
	list := func(v ...map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"value": v})
	}
	switch {
	case path == "notebooks" && expand != "":
		if g.expandOutage {
			writeGraphError(w, 500, "19999", "Er is iets misgegaan.")
			return
		}
		if strings.Contains(expand, "levels") || strings.Count(expand, "sectionGroups") > 1 {
			writeGraphError(w, 400, "BadRequest", "Too many levels of $expand.")
			return
		}
		// Every clause must carry its own $select, joined to a nested
		// $expand by ";" (graph-reality.md #2, #3).
		for _, clause := range []string{"sections($select=" + SectionSelect + ")", "sectionGroups($select=" + TreeSelect + ";$expand=sections($select=" + SectionSelect + "))"} {
			if !strings.Contains(expand, clause) {
				writeGraphError(w, 400, "BadRequest", "Parsing OData Select and Expand failed.")
				g.t.Errorf("$expand %q lacks %q", expand, clause)
				return
			}
		}
		g1 := group("g1")
		g1["sections"] = []map[string]any{section("s1")}
		nb := map[string]any{"id": "nb1", "displayName": "Deep", "sections": []map[string]any{section("s0")},
			"sectionGroups": []map[string]any{g1}}
		list(nb)
	case path == "notebooks":
		list(map[string]any{"id": "nb1", "displayName": "Deep"})
	case path == "notebooks/nb1/sections":
		list(section("s0"))
	case path == "notebooks/nb1/sectionGroups":
		list(group("g1"))
	case strings.HasPrefix(path, "sectionGroups/"):
		id, kind, _ := strings.Cut(strings.TrimPrefix(path, "sectionGroups/"), "/")
		i := slices.Index(strictTree.groups, id)
		if i < 0 || expand != "" {
			writeGraphError(w, 404, "20102", "The requested resource does not exist.")
			return
		}
		switch kind {
		case "sections":
			list(section(fmt.Sprintf("s%d", i+1)))
		case "sectionGroups":
			if i+1 < len(strictTree.groups) {
				list(group(strictTree.groups[i+1]))
			} else {
				list()
			}
		default:
			writeGraphError(w, 404, "20102", "The requested resource does not exist.")
		}
	default:
		writeGraphError(w, 404, "20102", "The requested resource does not exist.")
	}
}

// walkDeeper lists, one request each, the groups inside every group of
// groups and, when sectionsKnown is false, the groups' sections: the
// calls the notebook workflow makes under one permit each.
func walkDeeper(t *testing.T, c *Client, groups []SectionGroup, sectionsKnown bool) []SectionGroup {
	t.Helper()
	ctx := context.Background()
	for i := range groups {
		g := &groups[i]
		in := Container{Kind: InSectionGroup, ID: g.ID}
		if !sectionsKnown {
			ss, obs, err := c.ListSections(ctx, in, "")
			if err != nil || obs.Cost != 1 {
				t.Fatalf("sections of %s: %v (cost %d)", g.ID, err, obs.Cost)
			}
			g.Sections = ss.Sections
		}
		gs, obs, err := c.ListSectionGroups(ctx, in, "")
		if err != nil || obs.Cost != 1 {
			t.Fatalf("groups of %s: %v (cost %d)", g.ID, err, obs.Cost)
		}
		g.SectionGroups = walkDeeper(t, c, gs.SectionGroups, false)
	}
	return groups
}

func sectionPaths(nb Notebook) []string {
	var out []string
	for _, r := range FlattenSections(nb) {
		out = append(out, strings.Join(r.Path, "/"))
	}
	return out
}

var wantDeepPaths = []string{
	"Deep/Section s0",
	"Deep/Group g1/Section s1",
	"Deep/Group g1/Group g2/Section s2",
	"Deep/Group g1/Group g2/Group g3/Section s3",
	"Deep/Group g1/Group g2/Group g3/Group g4/Section s4",
}

// TestTreeTwoLevelExpandWithSelect: the tree call is the two-level
// $expand with $select in every clause, which strict Graph answers; the
// groups it returns hold their sections but not their own groups.
func TestTreeTwoLevelExpandWithSelect(t *testing.T) {
	want := "sections($select=id,displayName,links),sectionGroups($select=id,displayName;$expand=sections($select=id,displayName,links))"
	if ExpandNotebookTree != want {
		t.Fatalf("ExpandNotebookTree = %q, want %q", ExpandNotebookTree, want)
	}
	g := &strictGraph{t: t}
	c, _, _ := newTestClient(t, g.serve)
	list, obs, err := c.ListNotebooks(context.Background(), "")
	if err != nil || obs.Status != 200 || obs.Cost != 1 {
		t.Fatalf("ListNotebooks: %v (%+v)", err, obs)
	}
	nb := list.Notebooks[0]
	if got := sectionPaths(nb); !slices.Equal(got, wantDeepPaths[:2]) {
		t.Errorf("expanded tree sections = %q, want %q", got, wantDeepPaths[:2])
	}
	if len(nb.SectionGroups) != 1 || nb.SectionGroups[0].SectionGroups != nil {
		t.Errorf("the expanded call cannot hold groups inside groups: %+v", nb.SectionGroups)
	}
	if _, _, err := c.GetNotebook(context.Background(), "nb1"); err == nil {
		t.Log("GetNotebook is not served by the fake; only its query matters")
	}
	// The old levels=max form is what strict Graph refuses.
	old := c.url("notebooks", url.Values{"$expand": {"sections,sectionGroups($expand=sections,sectionGroups(levels=max;expand=sections))"}})
	if _, err := c.getJSON(context.Background(), call{op: "old", method: http.MethodGet, url: old, cost: 1}, new(any)); KindOf(err) != KindConfiguration {
		t.Errorf("the fake must refuse levels=max with a 400 (configuration), got %v", err)
	}
}

// TestTreeDeepWalk: groups nested four deep are read with one
// /sectionGroups/{id}/sectionGroups and /sectionGroups/{id}/sections
// request per group below the first level, each costing one permit.
func TestTreeDeepWalk(t *testing.T) {
	g := &strictGraph{t: t}
	c, _, _ := newTestClient(t, g.serve)
	list, _, err := c.ListNotebooks(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	nb := list.Notebooks[0]
	nb.SectionGroups = walkDeeper(t, c, nb.SectionGroups, true)
	if got := sectionPaths(nb); !slices.Equal(got, wantDeepPaths) {
		t.Errorf("walked tree = %q, want %q", got, wantDeepPaths)
	}
	// 1 expanded call; g1: its groups; g2, g3, g4: sections and groups.
	if n := g.requestCount(); n != 1+1+3*2 {
		t.Errorf("%d requests, want 8: %q", n, g.requests)
	}
	for _, bad := range []Container{{Kind: InSectionGroup}, {Kind: InNotebook}, {Kind: "site", ID: "x"}} {
		before := g.requestCount()
		if _, _, err := c.ListSectionGroups(context.Background(), bad, ""); KindOf(err) != KindInvalidArgument {
			t.Errorf("container %+v: %v, want invalid argument", bad, err)
		}
		if _, _, err := c.ListSections(context.Background(), bad, ""); KindOf(err) != KindInvalidArgument {
			t.Errorf("container %+v: %v, want invalid argument", bad, err)
		}
		if g.requestCount() != before {
			t.Errorf("container %+v: a request was sent", bad)
		}
	}
}

// TestTreeFallbackWithoutExpand: while Graph fails every $expand on
// /notebooks with 500/19999 (a transient, retryable error), the plain
// calls read the same tree; account-wide listings are refused before
// anything is sent.
func TestTreeFallbackWithoutExpand(t *testing.T) {
	g := &strictGraph{t: t, expandOutage: true}
	c, _, _ := newTestClient(t, g.serve)
	ctx := context.Background()
	_, obs, err := c.ListNotebooks(ctx, "")
	var e *Error
	if !asError(err, &e) || e.Kind != KindTransient || !e.IsRetryable() || obs.Status != 500 || obs.Code != "19999" || obs.Cost != 1 {
		t.Fatalf("expanded call during the outage: %v (%+v), want a retryable transient 500/19999", err, obs)
	}
	names, _, err := c.ListNotebookNames(ctx, "")
	if err != nil || len(names.Notebooks) != 1 {
		t.Fatalf("ListNotebookNames: %v %+v", err, names)
	}
	nb := names.Notebooks[0]
	root := Container{Kind: InNotebook, ID: nb.ID}
	ss, _, err := c.ListSections(ctx, root, "")
	if err != nil {
		t.Fatal(err)
	}
	gs, _, err := c.ListSectionGroups(ctx, root, "")
	if err != nil {
		t.Fatal(err)
	}
	nb.Sections = ss.Sections
	nb.SectionGroups = walkDeeper(t, c, gs.SectionGroups, false)
	if got := sectionPaths(nb); !slices.Equal(got, wantDeepPaths) {
		t.Errorf("fallback tree = %q, want %q", got, wantDeepPaths)
	}
	// 1 failed expanded call, names, notebook sections and groups, then
	// sections and groups of each of the four groups.
	if n := g.requestCount(); n != 1+1+2+4*2 {
		t.Errorf("%d requests, want 12: %q", n, g.requests)
	}
	for _, p := range g.requests {
		if strings.HasSuffix(p, "/onenote/sections") || strings.HasSuffix(p, "/onenote/sectionGroups") || strings.HasSuffix(p, "/onenote/pages") {
			t.Errorf("account-wide request sent: %s", p)
		}
	}
}

// TestNeverAccountWide: the client refuses the account-wide collections
// whatever way they are reached (a next link included), sending nothing.
func TestNeverAccountWide(t *testing.T) {
	g := &strictGraph{t: t}
	c, n, srv := newTestClient(t, g.serve)
	for _, u := range []string{
		srv.URL + "/v1.0/me/onenote/sections", srv.URL + "/v1.0/me/onenote/sectionGroups/",
		srv.URL + "/v1.0/me/onenote/pages?$top=100", srv.URL + "/v1.0/users/x/onenote/SECTIONS",
	} {
		if _, _, err := c.ListSections(context.Background(), Container{Kind: InNotebook, ID: "nb1"}, u); KindOf(err) != KindInvalidArgument {
			t.Errorf("%s: %v, want invalid argument", u, err)
		}
		if _, _, err := c.ListPagesPage(context.Background(), PageCursor{SectionID: "s1", UseNextLink: true, NextLink: u}); KindOf(err) != KindInvalidArgument {
			t.Errorf("pages via %s: %v, want invalid argument", u, err)
		}
	}
	if n.Load() != 0 {
		t.Errorf("%d requests sent", n.Load())
	}
	// Per-container listings that end like an account-wide one are fine.
	for _, u := range []string{"/v1.0/me/onenote/sections/s1/pages", "/v1.0/me/onenote/notebooks/nb1/sections", "/v1.0/me/onenote/sectionGroups/g1/sectionGroups"} {
		if accountWide(srv.URL + u) {
			t.Errorf("%s is not account-wide", u)
		}
	}
}
