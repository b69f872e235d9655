package graph

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	editSeed  = flag.Uint64("graph.edit-seed", 0, "TestRandomEditsKeepTheTree: run this seed only (default: seeds 1-3)")
	editSteps = flag.Int("graph.edit-steps", 100, "TestRandomEditsKeepTheTree: edits per seed")
)

// TestRandomEditsKeepTheTree applies seeded random sequences of every
// kind of edit (RandomEdit, Apply), with some levels drawn at random so
// that OneNote's outline rule refuses a few, and checks after each edit
// what a client sees: every section listed once in the notebooks' $expand
// answer, where its parent links say; in each section the orders 0..n-1,
// the first page at level 0 and none more than one deeper than the page
// before; each page's id ending with its section's suffix and its links
// pointing at it; page GUIDs unique and exactly the expected pages with
// the expected titles; section names as expected; a moved page's old id
// gone; a refused edit changing nothing. A failure names its seed and how
// to run it alone.
func TestRandomEditsKeepTheTree(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if *editSeed != 0 {
		seeds = []uint64{*editSeed}
	}
	applied := map[EditKind]int{}
	refused := 0
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := newEditRun(t, seed)
			for step := range *editSteps {
				r.step = step
				kind, refusedNow := r.apply()
				if kind != "" {
					applied[kind]++
				}
				if refusedNow {
					refused++
				}
			}
		})
	}
	if *editSeed == 0 && !t.Failed() {
		for _, k := range EditKinds() {
			if applied[k] == 0 {
				t.Errorf("no %s edit was applied in %d seeds (applied %v)", k, len(seeds), applied)
			}
		}
		if refused == 0 {
			t.Error("no edit was refused: the refusal path went untested")
		}
		t.Logf("applied %v, refused %d", applied, refused)
	}
}

// editRun is one seeded sequence of edits and what a client should see.
type editRun struct {
	t    *testing.T
	f    *fixture
	rng  *rand.Rand
	seed uint64
	step int
	edit Edit
	// titles is the expected title of every live page, by page-id GUID;
	// sections the expected name of every section, by id.
	titles   map[string]string
	sections map[string]string
	// seen is the last check's view: page GUID by page id, and the whole
	// tree as text.
	guidOf map[string]string
	tree   string
}

func newEditRun(t *testing.T, seed uint64) *editRun {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: seed, Notebooks: 2, GroupDepth: 1,
		GroupsPerLevel: 1, SectionsPerContainer: 2, PagesPerSection: 6, SubpageLevels: 2})
	r := &editRun{t: t, f: f, rng: rand.New(rand.NewPCG(seed, 30)), seed: seed}
	r.check()
	r.titles = map[string]string{}
	for id, guid := range r.guidOf {
		r.titles[guid] = f.pageMeta(t, id).Title
	}
	r.sections = map[string]string{}
	for _, s := range r.listSections() {
		r.sections[s.id] = s.name
	}
	r.check()
	return r
}

// fatalf stops the run, naming the seed, the step, the edit and the
// command that replays it.
func (r *editRun) fatalf(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("seed %d, step %d, edit %s: %s\nreplay: go test ./emulator/graph -run TestRandomEditsKeepTheTree -graph.edit-seed=%d",
		r.seed, r.step, r.edit, fmt.Sprintf(format, args...), r.seed)
}

// apply draws and applies one edit, updates the expectations and checks
// the tree. It returns the kind applied ("" when none) and whether the
// edit was refused.
func (r *editRun) apply() (EditKind, bool) {
	r.t.Helper()
	e, ok := r.f.srv.RandomEdit("alice", r.rng)
	if !ok {
		return "", false
	}
	if r.rng.IntN(2) == 0 && (e.Kind == EditSetLevel || e.Kind == EditAddPage || e.Kind == EditMoveGroup) {
		e.Place.Level = r.rng.IntN(MaxPageLevel + 2)
	}
	r.edit = e
	r.f.clock.Advance(time.Minute)
	before := r.tree
	oldGUID := r.guidOf[e.Page]
	ids, err := r.f.srv.Apply(e)
	if errors.Is(err, ErrBreaksOutline) {
		r.check()
		if r.tree != before {
			r.fatalf("a refused edit (%v) changed the tree:\n%s\nwas:\n%s", err, r.tree, before)
		}
		return "", true
	}
	if err != nil {
		r.fatalf("%v", err)
	}
	switch e.Kind {
	case EditRenamePage:
		r.titles[oldGUID] = e.Name
	case EditDeletePage:
		delete(r.titles, oldGUID)
	case EditAddPage:
		r.titles[pageGUID(r.f.pageMeta(r.t, ids[0]).Links.OneNoteClientURL.Href)] = e.Name
		if m := r.f.sectionMeta(r.t, e.Section); m.LastModifiedDateTime != graphTime(r.f.clock.Now()) {
			r.fatalf("the section of an added page was modified %s, not now", m.LastModifiedDateTime)
		}
	case EditMovePageGUID:
		title := r.titles[oldGUID]
		delete(r.titles, oldGUID)
		r.titles[pageGUID(r.f.pageMeta(r.t, ids[0]).Links.OneNoteClientURL.Href)] = title
	case EditRenameSection:
		r.sections[e.Section] = e.Name
	case EditMoveSection:
		name := r.sections[e.Section]
		delete(r.sections, e.Section)
		r.sections[ids[0]] = name
	}
	if (e.Kind == EditMovePage || e.Kind == EditMovePageGUID || e.Kind == EditMoveGroup) && ids[0] != e.Page {
		if rec := r.f.get(r.t, "alice", "/v1.0/me/onenote/pages/"+e.Page); rec.Code != http.StatusNotFound {
			r.fatalf("the moved page's old id answers %d", rec.Code)
		}
	}
	r.check()
	return e.Kind, false
}

type listedSection struct{ id, name, notebook, group string }

// listSections lists alice's sections from one $expand answer.
func (r *editRun) listSections() []listedSection {
	r.t.Helper()
	rec := r.f.get(r.t, "alice", "/v1.0/me/onenote/notebooks?$expand=sections,sectionGroups($expand=sections)")
	if rec.Code != http.StatusOK {
		r.fatalf("notebooks: %d %s", rec.Code, rec.Body)
	}
	var out []listedSection
	for _, nb := range decode[struct{ Value []container }](r.t, rec.Body.Bytes()).Value {
		for _, s := range nb.Sections {
			out = append(out, listedSection{s.ID, s.DisplayName, nb.ID, ""})
		}
		for _, g := range nb.SectionGroups {
			for _, s := range g.Sections {
				out = append(out, listedSection{s.ID, s.DisplayName, nb.ID, g.ID})
			}
		}
	}
	return out
}

// check reads the whole tree as a client and checks it (see the test's
// doc comment); it records the page GUIDs and the tree text.
func (r *editRun) check() {
	r.t.Helper()
	var tree strings.Builder
	r.guidOf = map[string]string{}
	titles := map[string]string{}
	sections := map[string]string{}
	for _, s := range r.listSections() {
		if _, dup := sections[s.id]; dup {
			r.fatalf("section %s listed twice", s.id)
		}
		sections[s.id] = s.name
		meta := r.f.sectionMeta(r.t, s.id)
		if meta.ParentNotebook == nil || meta.ParentNotebook.ID != s.notebook || parentID(meta.ParentSectionGroup) != s.group {
			r.fatalf("section %s listed under %s/%s has parents %+v %+v", s.id, s.notebook, s.group, meta.ParentNotebook, meta.ParentSectionGroup)
		}
		_, guid, _ := strings.Cut(meta.Links.OneNoteClientURL.Href, "section-id={")
		suffix := "!s" + strings.ReplaceAll(strings.TrimSuffix(guid, "}&end"), "-", "")
		fmt.Fprintf(&tree, "%s/%s %s %q:", s.notebook, s.group, s.id, s.name)
		rec := r.f.get(r.t, "alice", "/v1.0/me/onenote/sections/"+s.id+"/pages?pagelevel=true&$orderby=order&$top=100")
		if rec.Code != http.StatusOK {
			r.fatalf("pages of %s: %d %s", s.id, rec.Code, rec.Body)
		}
		prev := -1
		for i, p := range decode[pageList](r.t, rec.Body.Bytes()).Value {
			if *p.Order != i {
				r.fatalf("section %s: page %d has order %d", s.id, i, *p.Order)
			}
			if *p.Level > prev+1 || *p.Level > MaxPageLevel {
				r.fatalf("section %s: page %d at level %d after level %d", s.id, i, *p.Level, prev)
			}
			prev = *p.Level
			if !strings.HasSuffix(p.ID, suffix) || !strings.HasSuffix(p.ContentURL, "/pages/"+p.ID+"/content") {
				r.fatalf("page %s in section %s (suffix %s), content url %s", p.ID, s.id, suffix, p.ContentURL)
			}
			guid := pageGUID(p.Links.OneNoteClientURL.Href)
			if _, dup := titles[guid]; dup {
				r.fatalf("page GUID %s listed twice", guid)
			}
			titles[guid], r.guidOf[p.ID] = p.Title, guid
			fmt.Fprintf(&tree, " %s:%d", p.ID, *p.Level)
		}
		tree.WriteByte('\n')
	}
	r.tree = tree.String()
	if r.titles != nil && !maps.Equal(titles, r.titles) {
		r.fatalf("pages by GUID %v, want %v", titles, r.titles)
	}
	if r.sections != nil && !maps.Equal(sections, r.sections) {
		r.fatalf("sections %v, want %v", sections, r.sections)
	}
	for _, id := range slices.Sorted(maps.Keys(r.guidOf)) {
		guid := r.guidOf[id]
		if r.rng.IntN(8) == 0 { // a sample: each page's own answer agrees with the listing
			m := r.f.pageMeta(r.t, id)
			if m.ParentSection == nil || !strings.HasSuffix(m.Self, "/pages/"+id) || pageGUID(m.Links.OneNoteClientURL.Href) != guid ||
				sections[m.ParentSection.ID] == "" {
				r.fatalf("page %s answers %+v", id, m)
			}
		}
	}
}

func parentID(m *entityMeta) string {
	if m == nil {
		return ""
	}
	return m.ID
}

// TestContentChangesOnlyWithItsPage: renaming and moving other pages,
// sections and section groups leaves every page's content byte for byte
// as it was (its links to them read as they were written), so a client
// that fetches only what changed sees the same content as one that
// fetches everything. Moving the page itself keeps its content too.
func TestContentChangesOnlyWithItsPage(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: 9, Notebooks: 2, GroupDepth: 1, GroupsPerLevel: 1,
		SectionsPerContainer: 2, PagesPerSection: 3, LinksPerPage: 2})
	contents := func() map[string]string {
		out := map[string]string{}
		for _, id := range f.srv.PageIDs("alice") {
			out[pageGUID(f.pageMeta(t, id).Links.OneNoteClientURL.Href)] = readAll(t, f.content(t, "alice", id, "").Body)
		}
		return out
	}
	before := contents()
	if !strings.Contains(strings.Join(slices.Collect(maps.Values(before)), ""), "onenote:#") {
		t.Fatal("no page links to another: the test would prove nothing")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 40 {
		e, ok := f.srv.RandomEdit("alice", rng, EditRenameSection, EditRenameGroup, EditMoveSection, EditMovePage, EditMoveGroup)
		if !ok {
			continue
		}
		if _, err := f.srv.Apply(e); err != nil {
			t.Fatalf("%s: %v", e, err)
		}
	}
	renamed := f.srv.PageIDs("alice")[0]
	if err := f.srv.RenamePage(renamed, "Renamed"); err != nil {
		t.Fatal(err)
	}
	renamedGUID := pageGUID(f.pageMeta(t, renamed).Links.OneNoteClientURL.Href)
	after := contents()
	if len(after) != len(before) {
		t.Fatalf("%d pages, want %d", len(after), len(before))
	}
	for guid, html := range before {
		if guid != renamedGUID && after[guid] != html {
			t.Errorf("page %s changed without an edit of its own:\n%s\nwas:\n%s", guid, after[guid], html)
		}
	}
}
