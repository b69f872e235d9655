package onenote_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/syncplan"
)

// These tests run the client against the Graph OneNote emulator.

const user = "alice"

type env struct {
	srv    *graph.Server
	client *onenote.Client
	token  string
	base   string
	cost   int // sum of Observation.Cost over the calls made through add
}

func (e *env) add(obs onenote.Observation) { e.cost += obs.Cost }

func newEnv(t *testing.T, cfg graph.Config, nbs ...*graph.Notebook) *env {
	t.Helper()
	srv := graph.NewServer(cfg)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	srv.SetBaseURL(ts.URL)
	srv.AddNotebooks(user, nbs...)
	tok := srv.IssueToken(user, []string{"Notes.Read"}, time.Hour)
	c, err := onenote.New(onenote.Config{BaseURL: ts.URL + "/v1.0", Tokens: onenote.StaticToken(tok)})
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, client: c, token: tok, base: ts.URL}
}

func onlySection(t *testing.T, e *env) onenote.SectionRef {
	t.Helper()
	list, obs, err := e.client.ListNotebooks(context.Background(), "")
	e.add(obs)
	if err != nil || len(list.Notebooks) != 1 {
		t.Fatalf("notebooks: %v (%d)", err, len(list.Notebooks))
	}
	refs := onenote.FlattenSections(list.Notebooks[0])
	if len(refs) != 1 {
		t.Fatalf("%d sections, want 1", len(refs))
	}
	return refs[0]
}

func TestEmulatorNotebookTree(t *testing.T) {
	nbs := graph.Generate(graph.SmallSpec(7, user))
	e := newEnv(t, graph.Config{Seed: 7}, nbs...)
	list, obs, err := e.client.ListNotebooks(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if obs.Cost != 1 || len(list.Notebooks) != len(nbs) {
		t.Fatalf("cost %d, %d notebooks", obs.Cost, len(list.Notebooks))
	}
	// The expanded call holds the first level of groups with their
	// sections; the deeper ones are listed one request each.
	expanded := len(onenote.FlattenSections(list.Notebooks[0]))
	deep := list.Notebooks[0]
	deep.SectionGroups = deeperGroups(t, e, deep.SectionGroups, true)
	// Every generated section is in the tree, with its group path.
	var want []string
	var walk func(prefix string, secs []*graph.Section, groups []*graph.SectionGroup)
	walk = func(prefix string, secs []*graph.Section, groups []*graph.SectionGroup) {
		for _, s := range secs {
			want = append(want, prefix+"/"+s.DisplayName+"#"+s.ID)
		}
		for _, g := range groups {
			walk(prefix+"/"+g.DisplayName, g.Sections, g.SectionGroups)
		}
	}
	walk(nbs[0].DisplayName, nbs[0].Sections, nbs[0].SectionGroups)
	var got []string
	for _, r := range onenote.FlattenSections(deep) {
		got = append(got, strings.Join(r.Path, "/")+"#"+r.Section.ID)
	}
	// Child lists come sorted by name (as Graph sorts them), not in the
	// generated order.
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	nb, _, err := e.client.GetNotebook(context.Background(), nbs[0].ID)
	if err != nil || nb.ID != nbs[0].ID || len(onenote.FlattenSections(nb)) != expanded {
		t.Fatalf("GetNotebook: %v: %d sections, want the %d of the expanded listing", err, len(onenote.FlattenSections(nb)), expanded)
	}
}

// deeperGroups fills in the groups inside groups (and, unless
// sectionsKnown, their sections), one request per listing.
func deeperGroups(t *testing.T, e *env, groups []onenote.SectionGroup, sectionsKnown bool) []onenote.SectionGroup {
	t.Helper()
	for i := range groups {
		in := onenote.Container{Kind: onenote.InSectionGroup, ID: groups[i].ID}
		if !sectionsKnown {
			ss, obs, err := e.client.ListSections(context.Background(), in, "")
			e.add(obs)
			if err != nil {
				t.Fatal(err)
			}
			groups[i].Sections = ss.Sections
		}
		gs, obs, err := e.client.ListSectionGroups(context.Background(), in, "")
		e.add(obs)
		if err != nil {
			t.Fatal(err)
		}
		groups[i].SectionGroups = deeperGroups(t, e, gs.SectionGroups, false)
	}
	return groups
}

func TestEmulatorPagesAll250(t *testing.T) {
	spec := graph.GenSpec{Seed: 3, Owner: user, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 250, SubpageLevels: 2}
	nbs := graph.Generate(spec)
	gen := nbs[0].Sections[0].Pages
	for _, mode := range []struct {
		name        string
		useNextLink bool
		wantCalls   int
	}{{"top 100 and skip", false, 3}, {"nextLink", true, 13}} {
		t.Run(mode.name, func(t *testing.T) {
			e := newEnv(t, graph.Config{Seed: 3}, nbs...)
			sec := onlySection(t, e)
			cur := onenote.PageCursor{SectionID: sec.Section.ID, UseNextLink: mode.useNextLink}
			var pages []onenote.Page
			seen := map[string]bool{}
			calls := 0
			for {
				b, obs, err := e.client.ListPagesPage(context.Background(), cur)
				e.add(obs)
				calls++
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range b.Pages {
					if !seen[p.ID] {
						seen[p.ID] = true
						pages = append(pages, p)
					}
				}
				if b.Done {
					break
				}
				cur = b.Next
			}
			if len(pages) != 250 || calls != mode.wantCalls {
				t.Fatalf("%d pages in %d calls, want 250 in %d", len(pages), calls, mode.wantCalls)
			}
			byID := map[string]*graph.Page{}
			for _, p := range gen {
				byID[p.ID] = p
			}
			for i, p := range pages {
				g := byID[p.ID]
				if g == nil || g.Level != p.Level || g.Order != p.Order || g.Title != p.Title {
					t.Fatalf("page %d = %+v does not match the generated page", i, p)
				}
				if guid, ok := onenote.PageIDFromClientURL(p.Links.OneNoteClientURL.Href); !ok || !strings.EqualFold(guid, g.GUID) {
					t.Fatalf("page-id %q from %q, want %q", guid, p.Links.OneNoteClientURL.Href, g.GUID)
				}
			}
			checkTree(t, onenote.BuildPageTree(pages), -1)
			assertCounted(t, e)
		})
	}
}

// checkTree checks every page sits deeper than its parent.
func checkTree(t *testing.T, nodes []*onenote.PageNode, parentLevel int) {
	t.Helper()
	for _, n := range nodes {
		if n.Page.Level <= parentLevel {
			t.Fatalf("page %s level %d under a level-%d parent", n.Page.ID, n.Page.Level, parentLevel)
		}
		checkTree(t, n.Children, n.Page.Level)
	}
}

// assertCounted checks the emulator counted exactly the Graph requests the
// client's observations said it cost: nothing was sent behind the
// limiter's back.
func assertCounted(t *testing.T, e *env) {
	t.Helper()
	if got := e.srv.Stats().Users[user].Requests; got != int64(e.cost) {
		t.Fatalf("emulator counted %d requests, observations cost %d", got, e.cost)
	}
}

var resourceRE = regexp.MustCompile(`(?:data-fullres-src|data|src)="([^"]*/resources/[^"]*)"`)

func TestEmulatorContentInkAndResources(t *testing.T) {
	spec := graph.GenSpec{Seed: 5, Owner: user, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 8,
		ImagesPerPage: 1, AttachmentsPerPage: 1, InkEvery: 2, ImageBytes: 3000}
	e := newEnv(t, graph.Config{Seed: 5}, graph.Generate(spec)...)
	sec := onlySection(t, e)
	ctx := context.Background()
	inked := 0
	batch, obs, err := e.client.ListPagesPage(ctx, onenote.PageCursor{SectionID: sec.Section.ID})
	e.add(obs)
	if err != nil || !batch.Done || len(batch.Pages) != 8 {
		t.Fatalf("pages: %v, %d", err, len(batch.Pages))
	}
	for _, p := range batch.Pages {
		pc, obs, err := e.client.GetPageContent(ctx, p.ID, onenote.ContentOptions{IncludeInkML: true})
		e.add(obs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(pc.HTML, []byte("<html")) || bytes.Contains(pc.HTML, []byte("inkml:ink")) {
			t.Fatalf("page %s: HTML part wrong: %.200s", p.ID, pc.HTML)
		}
		if pc.InkML != nil {
			inked++
			if !bytes.Contains(pc.InkML, []byte("<inkml:trace")) {
				t.Fatalf("InkML part wrong: %.200s", pc.InkML)
			}
		}
		for _, m := range resourceRE.FindAllSubmatch(pc.HTML, -1) {
			ref := string(m[1])
			var buf bytes.Buffer
			res, obs, err := e.client.DownloadResource(ctx, ref, &buf, 1<<20)
			e.add(obs)
			if err != nil || res.Bytes == 0 || int64(buf.Len()) != res.Bytes {
				t.Fatalf("resource %s: %+v %v", ref, res, err)
			}
			_, obs, err = e.client.DownloadResource(ctx, ref, discard{}, 100)
			e.add(obs)
			if !errors.Is(err, onenote.ErrTooLarge) {
				t.Fatalf("resource %s over a 100-byte cap: %v", ref, err)
			}
		}
	}
	if inked != 4 {
		t.Errorf("%d pages had ink, want 4", inked)
	}
	assertCounted(t, e)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestEmulatorThrottling(t *testing.T) {
	limits := graph.Limits{User: graph.ScopeLimits{Windows: []graph.Window{{N: 5, Duration: time.Hour}}}}
	tests := []struct {
		name      string
		mode      graph.ScopeHeaderMode
		wantKind  onenote.ScopeKind
		wantScope string
	}{
		{"no scope header", graph.ScopeHeaderNone, onenote.ScopeUnknown, ""},
		{"simple", graph.ScopeHeaderSimple, onenote.ScopeUser, "User"},
		{"full", graph.ScopeHeaderFull, onenote.ScopeUser, "User"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := graph.GenSpec{Seed: 1, Owner: user, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 3}
			e := newEnv(t, graph.Config{Seed: 1, Limits: limits, ScopeHeader: tt.mode, PercentageHeader: true}, graph.Generate(spec)...)
			var last onenote.Observation
			var err error
			for i := 0; i < 6; i++ {
				_, last, err = e.client.ListNotebooks(context.Background(), "")
				if i == 4 && last.ThrottlePercentage < 0.8 {
					t.Errorf("5th of 5 allowed requests: throttle percentage %v, want >= 0.8", last.ThrottlePercentage)
				}
				if i < 5 && err != nil {
					t.Fatalf("request %d: %v", i+1, err)
				}
			}
			var oe *onenote.Error
			if !errors.As(err, &oe) || oe.Kind != onenote.KindThrottled || !oe.IsRetryable() || oe.Code != "20166" {
				t.Fatalf("6th request: %v", err)
			}
			if last.Status != 429 || !last.Throttled() || last.HasRetryAfter || last.ThrottleScope.Kind != tt.wantKind || last.ThrottleScope.Scope != tt.wantScope {
				t.Fatalf("observation %+v", last)
			}
			if tt.mode == graph.ScopeHeaderFull && (last.ThrottleScope.AppID != e.srv.AppID() || last.ThrottleScope.ID != graph.UserGUID(user)) {
				t.Fatalf("full scope parts: %+v", last.ThrottleScope)
			}
		})
	}
}

func TestEmulatorErrorKinds(t *testing.T) {
	spec := graph.GenSpec{Seed: 2, Owner: user, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 3}
	ctx := context.Background()
	tests := []struct {
		name   string
		setup  func(t *testing.T, e *env) *onenote.Client
		call   func(c *onenote.Client, pageID, sectionID string) error
		want   onenote.Kind
		code   string
		status int
	}{
		{"expired token", func(t *testing.T, e *env) *onenote.Client { e.srv.ExpireTokens(user); return e.client },
			func(c *onenote.Client, p, s string) error { _, _, err := c.GetPage(ctx, p); return err },
			onenote.KindAuth, "InvalidAuthenticationToken", 401},
		{"missing Notes.Read scope", func(t *testing.T, e *env) *onenote.Client {
			tok := e.srv.IssueToken(user, []string{"User.Read"}, time.Hour)
			c, _ := onenote.New(onenote.Config{BaseURL: e.base + "/v1.0", Tokens: onenote.StaticToken(tok)})
			return c
		}, func(c *onenote.Client, p, s string) error { _, _, err := c.ListNotebooks(ctx, ""); return err },
			onenote.KindPermission, "40004", 403},
		{"library limit", func(t *testing.T, e *env) *onenote.Client {
			e.srv.SetFaults(graph.Faults{LibraryLimitUsers: []string{user}})
			return e.client
		}, func(c *onenote.Client, p, s string) error { _, _, err := c.ListNotebooks(ctx, ""); return err },
			onenote.KindConfiguration, "10008", 403},
		{"deleted page", func(t *testing.T, e *env) *onenote.Client {
			if err := e.srv.DeletePage(e.srv.PageIDs(user)[0]); err != nil {
				t.Fatal(err)
			}
			return e.client
		}, func(c *onenote.Client, p, s string) error {
			_, _, err := c.GetPageContent(ctx, p, onenote.ContentOptions{})
			return err
		},
			onenote.KindNotFound, "", 404},
		{"bare 400 on content", func(t *testing.T, e *env) *onenote.Client {
			e.srv.SetFaults(graph.Faults{BadRequestRate: 1})
			return e.client
		},
			func(c *onenote.Client, p, s string) error {
				_, _, err := c.GetPageContent(ctx, p, onenote.ContentOptions{})
				return err
			},
			onenote.KindTransient, "", 400},
		{"server errors", func(t *testing.T, e *env) *onenote.Client {
			e.srv.SetFaults(graph.Faults{ServerErrorRate: 1})
			return e.client
		},
			func(c *onenote.Client, p, s string) error {
				_, _, err := c.ListPagesPage(ctx, onenote.PageCursor{SectionID: s})
				return err
			},
			onenote.KindTransient, "", 0},
		{"truncated body", func(t *testing.T, e *env) *onenote.Client {
			e.srv.SetFaults(graph.Faults{TruncateRate: 1})
			return e.client
		},
			func(c *onenote.Client, p, s string) error {
				_, _, err := c.ListPagesPage(ctx, onenote.PageCursor{SectionID: s})
				return err
			},
			onenote.KindTransient, "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, graph.Config{Seed: 2}, graph.Generate(spec)...)
			sec := onlySection(t, e)
			pageID := e.srv.PageIDs(user)[0]
			c := tt.setup(t, e)
			err := tt.call(c, pageID, sec.Section.ID)
			var oe *onenote.Error
			if !errors.As(err, &oe) || oe.Kind != tt.want {
				t.Fatalf("err = %v, want kind %v", err, tt.want)
			}
			if tt.code != "" && oe.Code != tt.code {
				t.Errorf("code = %q, want %q", oe.Code, tt.code)
			}
			if tt.status != 0 && oe.Status != tt.status {
				t.Errorf("status = %d, want %d", oe.Status, tt.status)
			}
			if strings.Contains(err.Error(), e.token) {
				t.Errorf("error leaks the token: %v", err)
			}
			if (oe.Kind == onenote.KindPermission || oe.Kind == onenote.KindConfiguration) && oe.Hint == "" {
				t.Errorf("fatal error without a hint: %v", err)
			}
		})
	}
}

var _ http.Handler = (*graph.Server)(nil)

// TestEmulatorPageTitles: GetPage and the listing never hand out an empty
// title. A page created seconds before reads "" on GET /pages/{id} while
// its section's listing has the title (graph-reality.md fact 25): GetPage
// reads it from the listing, one request more. A page the listing has no
// title for (fact 36) is named onenote.UntitledPage.
func TestEmulatorPageTitles(t *testing.T) {
	t0 := time.Date(2026, 8, 19, 14, 38, 36, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		cfg      graph.Config
		untitled bool   // generate untitled pages
		add      string // add a page with this title now ("-": none)
		want     string
		requests int // Graph requests GetPage made
	}{
		{name: "old page", add: "-", want: "", requests: 1},
		{name: "fresh page reads the listed title", add: "Fresh", want: "Fresh", requests: 2},
		{name: "fresh page without the quirk", cfg: graph.Config{FreshTitleLag: -1}, add: "Fresh", want: "Fresh", requests: 1},
		{name: "fresh untitled page", add: "", want: onenote.UntitledPage, requests: 2},
		{name: "untitled page", untitled: true, add: "-", want: onenote.UntitledPage, requests: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Limits, cfg.Now = graph.UnlimitedLimits(), func() time.Time { return t0 }
			spec := graph.GenSpec{Seed: 4, Owner: user, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 3}
			if tc.untitled {
				spec.UntitledEvery = 1
			}
			nbs := graph.Generate(spec)
			e := newEnv(t, cfg, nbs...)
			sec := onlySection(t, e)
			id := e.srv.PageIDs(user)[0]
			if tc.add != "-" {
				var err error
				if id, err = e.srv.AddPage(sec.Section.ID, tc.add, "text"); err != nil {
					t.Fatal(err)
				}
			}
			want := tc.want
			if want == "" {
				want = nbs[0].Sections[0].Pages[0].Title
				if nbs[0].Sections[0].Pages[0].ID != id || want == "" {
					t.Fatalf("first generated page %+v is not page %s", nbs[0].Sections[0].Pages[0], id)
				}
			}
			before := len(e.srv.Log())
			p, obs, err := e.client.GetPage(context.Background(), id)
			if err != nil {
				t.Fatalf("GetPage: %v", err)
			}
			if obs.Cost != tc.requests {
				t.Errorf("GetPage cost %d, want %d", obs.Cost, tc.requests)
			}
			if p.Title != want || p.ID != id {
				t.Errorf("GetPage(%s) title %q, want %q", id, p.Title, want)
			}
			if n := len(e.srv.Log()) - before; n != tc.requests {
				t.Errorf("GetPage made %d requests, want %d", n, tc.requests)
			}
			// The listing names untitled pages too.
			b, _, err := e.client.ListPagesPage(context.Background(), onenote.PageCursor{SectionID: sec.Section.ID})
			if err != nil {
				t.Fatal(err)
			}
			for _, lp := range b.Pages {
				if lp.Title == "" || (tc.untitled && lp.ID != id && lp.Title != onenote.UntitledPage) {
					t.Errorf("listed page %s titled %q", lp.ID, lp.Title)
				}
				if lp.ID == id && lp.Title != want {
					t.Errorf("listed title %q, GetPage's %q", lp.Title, want)
				}
			}
		})
	}
}

// TestEmulatorInkMultipartSubtypes: a real account answers includeInkML
// with multipart/mixed (graph-reality.md fact 35), the documentation says
// multipart/related; the client splits both into the HTML and the InkML.
func TestEmulatorInkMultipartSubtypes(t *testing.T) {
	spec := graph.GenSpec{Seed: 5, Owner: user, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 2, InkEvery: 1}
	for _, tc := range []struct {
		name string
		cfg  graph.Config
		want string
	}{
		{"measured multipart/mixed", graph.Config{}, "multipart/mixed"},
		{"documented multipart/related", graph.Config{InkMultipartRelated: true}, "multipart/related"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nbs := graph.Generate(spec)
			e := newEnv(t, tc.cfg, nbs...)
			for _, id := range e.srv.PageIDs(user) {
				pc, _, err := e.client.GetPageContent(context.Background(), id, onenote.ContentOptions{IncludeInkML: true})
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(pc.ContentType, tc.want+";") {
					t.Errorf("Content-Type %q, want %s", pc.ContentType, tc.want)
				}
				wantHTML, wantInk, err := e.srv.PageContent(id)
				if err != nil {
					t.Fatal(err)
				}
				if string(pc.HTML) != wantHTML || string(pc.InkML) != wantInk || wantInk == "" || len(pc.Other) != 0 {
					t.Errorf("page %s: HTML %d bytes (want %d), InkML %d bytes (want %d), %d other parts",
						id, len(pc.HTML), len(wantHTML), len(pc.InkML), len(wantInk), len(pc.Other))
				}
			}
		})
	}
}

// TestEmulatorSectionMoveKeepsPageGUIDs: a section moved into a section
// group of its notebook keeps its id and its pages theirs; moved to
// another notebook it gets a new id and its pages new ids that keep their
// GUID with the new section's suffix (graph-reality.md fact 21). The sync
// plan finds each page again: unchanged, or moved by its page GUID (the
// link GUID left out, so the ID alone decides).
func TestEmulatorSectionMoveKeepsPageGUIDs(t *testing.T) {
	spec := graph.GenSpec{Seed: 6, Owner: user, Notebooks: 2, GroupDepth: 1, GroupsPerLevel: 1, SectionsPerContainer: 1, PagesPerSection: 4}
	for _, tc := range []struct {
		name   string
		to     func(nbs []*graph.Notebook) string
		sameID bool
		want   syncplan.Kind
	}{
		{"into a section group of its notebook", func(nbs []*graph.Notebook) string { return nbs[0].SectionGroups[0].ID }, true, syncplan.Unchanged},
		{"to another notebook", func(nbs []*graph.Notebook) string { return nbs[1].ID }, false, syncplan.Moved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nbs := graph.Generate(spec)
			e := newEnv(t, graph.Config{Limits: graph.UnlimitedLimits()}, nbs...)
			ctx := context.Background()
			secID := nbs[0].Sections[0].ID
			list := func(sectionID string) []syncplan.Listed {
				t.Helper()
				b, _, err := e.client.ListPagesPage(ctx, onenote.PageCursor{SectionID: sectionID})
				if err != nil || !b.Done || len(b.Pages) != 4 {
					t.Fatalf("pages of %s: %v, %d", sectionID, err, len(b.Pages))
				}
				var out []syncplan.Listed
				for _, p := range b.Pages {
					out = append(out, syncplan.Listed{PageID: p.ID, Title: p.Title, LastModified: p.LastModifiedDateTime, SectionID: sectionID})
				}
				return out
			}
			before := list(secID)
			var record []syncplan.Recorded
			for i, l := range before {
				record = append(record, syncplan.Recorded{PageID: l.PageID, Title: l.Title, LastModified: l.LastModified,
					SectionID: l.SectionID, Row: fmt.Sprint("row-", i), Done: true, ContentHash: "h"})
			}
			mv, err := e.srv.MoveSection(secID, tc.to(nbs))
			if err != nil {
				t.Fatal(err)
			}
			if (mv.ID == secID) != tc.sameID {
				t.Fatalf("moved section id %s (was %s): same id %v, want %v", mv.ID, secID, mv.ID == secID, tc.sameID)
			}
			after := list(mv.ID)
			plan := syncplan.Classify(record, after)
			if len(plan.Changes) != len(record) || len(plan.Undecided) != 0 {
				t.Fatalf("plan %+v: want one change a page, none undecided", plan)
			}
			for _, c := range plan.Changes {
				if c.Kind != tc.want || (tc.want == syncplan.Moved && c.By != "page GUID") {
					t.Errorf("page %s: %s by %q, want %s", c.Now.PageID, c.Kind, c.By, tc.want)
				}
				if tc.want == syncplan.Moved && (c.Now.PageID == c.Was.PageID || syncplan.PageGUID(c.Now.PageID) != syncplan.PageGUID(c.Was.PageID)) {
					t.Errorf("moved page %s -> %s: want a new id with the same GUID", c.Was.PageID, c.Now.PageID)
				}
			}
		})
	}
}
