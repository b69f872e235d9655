package graph

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// bigSection is a fixture whose alice has one section of 250 pages, with
// limits out of the way.
func bigSection(t *testing.T) (*fixture, string) {
	t.Helper()
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: 2, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 250, SubpageLevels: 2})
	return f, "/v1.0/me/onenote/sections/" + f.firstSection("alice") + "/pages"
}

func TestPagesDefaultPagingFollowsNextLink(t *testing.T) {
	f, path := bigSection(t)
	seen := map[string]bool{}
	var sizes []int
	next := path
	for next != "" {
		rec := f.get(t, "alice", next)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", next, rec.Code, rec.Body)
		}
		pl := decode[pageList](t, rec.Body.Bytes())
		sizes = append(sizes, len(pl.Value))
		for _, p := range pl.Value {
			if seen[p.ID] {
				t.Fatalf("page %s listed twice", p.ID)
			}
			seen[p.ID] = true
		}
		next = ""
		if pl.NextLink != "" {
			u, err := url.Parse(pl.NextLink)
			if err != nil || u.Host != "graph.test" || !u.IsAbs() {
				t.Fatalf("nextLink %q: want an absolute URL on the emulator's host (%v)", pl.NextLink, err)
			}
			next = u.RequestURI()
		}
	}
	if len(seen) != 250 {
		t.Errorf("listed %d pages, want 250", len(seen))
	}
	if len(sizes) != 13 || sizes[0] != 20 || sizes[12] != 10 {
		t.Errorf("page sizes %v, want 12 x 20 then 10", sizes)
	}
}

func TestPagesTopAndSkip(t *testing.T) {
	f, path := bigSection(t)
	seen := map[string]bool{}
	for skip := 0; ; skip += 100 {
		rec := f.get(t, "alice", fmt.Sprintf("%s?$top=100&$skip=%d", path, skip))
		pl := decode[pageList](t, rec.Body.Bytes())
		if pl.NextLink != "" {
			t.Fatalf("nextLink %q with $top; Graph sends none", pl.NextLink)
		}
		for _, p := range pl.Value {
			seen[p.ID] = true
		}
		if len(pl.Value) < 100 {
			break
		}
	}
	if len(seen) != 250 {
		t.Errorf("listed %d pages, want 250", len(seen))
	}
	rec := f.get(t, "alice", path+"?$top=101")
	if rec.Code != http.StatusBadRequest || graphErrorCode(t, rec.Body.Bytes()) != "20129" {
		t.Errorf("$top=101: %d %s, want 400 20129", rec.Code, rec.Body)
	}
}

func TestPagesQueryOptions(t *testing.T) {
	f, path := bigSection(t)
	list := func(q string) pageList {
		t.Helper()
		rec := f.get(t, "alice", path+q)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", q, rec.Code, rec.Body)
		}
		return decode[pageList](t, rec.Body.Bytes())
	}
	// Default order: lastModifiedDateTime desc; no level/order.
	def := list("?$top=100")
	for i := 1; i < len(def.Value); i++ {
		if def.Value[i-1].LastModifiedDateTime < def.Value[i].LastModifiedDateTime {
			t.Fatalf("default order not lastModifiedDateTime desc at %d", i)
		}
	}
	if def.Value[0].Level != nil || def.Value[0].Order != nil {
		t.Errorf("level/order present without pagelevel=true")
	}
	// pagelevel=true with $orderby=order: orders 0..99, levels 0..2, never
	// deeper than one below the previous page.
	lv := list("?pagelevel=true&$orderby=order&$top=100")
	prev := 0
	levels := map[int]bool{}
	for i, p := range lv.Value {
		if p.Order == nil || p.Level == nil || *p.Order != i {
			t.Fatalf("page %d: order %v level %v", i, p.Order, p.Level)
		}
		if *p.Level > prev+1 || *p.Level > 2 {
			t.Fatalf("page %d: level %d after %d", i, *p.Level, prev)
		}
		prev = *p.Level
		levels[*p.Level] = true
	}
	if len(levels) != 3 {
		t.Errorf("levels seen %v, want 0, 1 and 2", levels)
	}
	desc := list("?pagelevel=true&$orderby=order%20desc&$top=5")
	if *desc.Value[0].Order != 249 {
		t.Errorf("order desc starts at %d, want 249", *desc.Value[0].Order)
	}
	for _, field := range []string{"createdDateTime", "title", "lastModifiedDateTime"} {
		asc := list("?$orderby=" + field + "%20asc&$top=100")
		var keys []string
		for _, p := range asc.Value {
			keys = append(keys, map[string]string{"createdDateTime": p.CreatedDateTime, "title": strings.ToLower(p.Title), "lastModifiedDateTime": p.LastModifiedDateTime}[field])
		}
		if !slices.IsSorted(keys) {
			t.Errorf("$orderby=%s asc not sorted", field)
		}
	}
	// $select keeps only what was asked for.
	rec := f.get(t, "alice", path+"?$select=id,title&$top=1")
	body := rec.Body.String()
	if !strings.Contains(body, `"title"`) || strings.Contains(body, "contentUrl") || strings.Contains(body, "parentSection") {
		t.Errorf("$select=id,title gave %s", body)
	}
	// Page metadata shape.
	p := def.Value[0]
	if !strings.HasPrefix(p.Links.OneNoteClientURL.Href, "onenote:") || !strings.Contains(p.Links.OneNoteClientURL.Href, "page-id={") || !strings.Contains(p.Links.OneNoteClientURL.Href, "section-id={") {
		t.Errorf("oneNoteClientUrl %q", p.Links.OneNoteClientURL.Href)
	}
	if p.ContentURL != "http://graph.test/v1.0/me/onenote/pages/"+p.ID+"/content" {
		t.Errorf("contentUrl %q", p.ContentURL)
	}
	meta := f.get(t, "alice", "/v1.0/me/onenote/pages/"+p.ID+"?pagelevel=true")
	if !strings.Contains(meta.Body.String(), `"level"`) || !strings.Contains(meta.Body.String(), `"parentSection"`) {
		t.Errorf("page metadata: %s", meta.Body)
	}
}

func TestAccountWidePagesAndPageLevelErrors(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 2, GroupDepth: 1, SectionsPerContainer: 3, PagesPerSection: 2})
	for _, tc := range []struct {
		path, code string
	}{
		{"/v1.0/me/onenote/pages", "20266"},
		{"/v1.0/me/onenote/notebooks?pagelevel=true", "20104"},
	} {
		rec := f.get(t, "alice", tc.path)
		if rec.Code != http.StatusBadRequest || graphErrorCode(t, rec.Body.Bytes()) != tc.code {
			t.Errorf("GET %s: %d %s, want 400 %s", tc.path, rec.Code, rec.Body, tc.code)
		}
	}
	small := newFixture(t, Config{}, GenSpec{Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: 3})
	if rec := small.get(t, "alice", "/v1.0/me/onenote/pages"); rec.Code != http.StatusOK || len(decode[pageList](t, rec.Body.Bytes()).Value) != 6 {
		t.Errorf("few sections: %d %s", rec.Code, rec.Body)
	}
}

// TestFreshTitleReadsEmpty: a page created seconds before reads title ""
// on GET /pages/{id} while the section's listing has the title at once
// ([M1], fact 25); after Config.FreshTitleLag (scaled) it reads the title,
// and a negative lag turns the quirk off. Pages that were there from the
// start never read "".
func TestFreshTitleReadsEmpty(t *testing.T) {
	spec := GenSpec{Seed: 2, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 2}
	for _, tc := range []struct {
		name  string
		cfg   Config
		after time.Duration // clock advance before the second read
		first string        // title on the first read
		later string        // title after the advance
	}{
		{"measured default", Config{}, 29 * time.Second, "", ""},
		{"default lag ends", Config{}, 30 * time.Second, "", "Fresh"},
		{"scaled lag", Config{FreshTitleLag: 10 * time.Second, TimeScale: 10}, time.Second, "", "Fresh"},
		{"off", Config{FreshTitleLag: -1}, 0, "Fresh", "Fresh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.cfg, spec)
			sec := f.firstSection("alice")
			old := f.srv.PageIDs("alice")[0]
			id, err := f.srv.AddPage(sec, "Fresh", "new text")
			if err != nil {
				t.Fatal(err)
			}
			title := func(id string) string {
				t.Helper()
				rec := f.get(t, "alice", "/v1.0/me/onenote/pages/"+id+"?$select=title")
				if rec.Code != http.StatusOK {
					t.Fatalf("GET page: %d %s", rec.Code, rec.Body)
				}
				return decode[struct{ Title string }](t, rec.Body.Bytes()).Title
			}
			listed := func() string {
				t.Helper()
				for _, p := range decode[pageList](t, f.get(t, "alice", "/v1.0/me/onenote/sections/"+sec+"/pages").Body.Bytes()).Value {
					if p.ID == id {
						return p.Title
					}
				}
				t.Fatalf("page %s not listed", id)
				return ""
			}
			if got := title(id); got != tc.first {
				t.Errorf("title read at once = %q, want %q", got, tc.first)
			}
			if got := listed(); got != "Fresh" {
				t.Errorf("listed title = %q, want the title at once", got)
			}
			if got := title(old); got == "" {
				t.Errorf("a page there from the start reads an empty title")
			}
			f.clock.Advance(tc.after)
			if got := title(id); got != tc.later {
				t.Errorf("title read after %v = %q, want %q", tc.after, got, tc.later)
			}
		})
	}
}

// TestUntitledPagesListEmptyTitle: with GenSpec.UntitledEvery, every n-th
// page is listed with "title": "" (the key present, as a real listing
// carries it, [M1] fact 36), and its HTML has an empty <title>.
func TestUntitledPagesListEmptyTitle(t *testing.T) {
	for _, tc := range []struct {
		every, pages, untitled int
	}{
		{0, 4, 0},
		{2, 4, 2},
		{1, 3, 3},
	} {
		t.Run(fmt.Sprint(tc.every), func(t *testing.T) {
			f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: 3, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: tc.pages, UntitledEvery: tc.every})
			rec := f.get(t, "alice", "/v1.0/me/onenote/sections/"+f.firstSection("alice")+"/pages?$select=id,title")
			list := decode[struct{ Value []map[string]any }](t, rec.Body.Bytes())
			n := 0
			for _, p := range list.Value {
				title, ok := p["title"]
				if !ok {
					t.Fatalf("listing item without a title key: %v", p)
				}
				if title != "" {
					continue
				}
				n++
				body := readAll(t, f.content(t, "alice", p["id"].(string), "").Body)
				if !strings.Contains(body, "<title></title>") {
					t.Errorf("untitled page's HTML has a title: %.200s", body)
				}
			}
			if n != tc.untitled {
				t.Errorf("%d untitled pages listed, want %d", n, tc.untitled)
			}
		})
	}
}
