package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/auth"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

type tokens map[string]string

func (m tokens) TokenSource(user string) (onenote.TokenSource, error) {
	tok, ok := m[user]
	if !ok {
		return nil, fmt.Errorf("%s: not signed in", user)
	}
	return onenote.TokenSourceFunc(func(context.Context) (string, error) { return tok, nil }), nil
}

type fixture struct {
	acts      *activities.Activities
	env       *testsuite.TestActivityEnvironment
	graph     *graph.Server
	nb        *graph.Notebook
	notion    *notionemu.Server
	root      string
	dir       string
	graphURL  string
	notionURL string
	notionTok string
	// beat is the activities' HeartbeatEvery (the default if 0).
	beat time.Duration
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{graph: graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})}
	nbs := graph.Generate(graph.SmallSpec(3, "alice"))
	f.nb = nbs[0]
	f.graph.AddNotebooks("alice", nbs...)
	gts := httptest.NewServer(f.graph)
	t.Cleanup(gts.Close)
	f.graphURL = gts.URL + "/v1.0"
	f.notion = notionemu.NewServer(notionemu.Config{Seed: 1, Rate: -1})
	nts := httptest.NewServer(f.notion)
	t.Cleanup(nts.Close)
	f.notionURL, f.notionTok = nts.URL, f.notion.IssueToken()
	f.root = f.notion.RootPageID()
	f.dir = t.TempDir()
	f.setActivities(t, tokens{"alice": f.graph.IssueToken("alice", []string{"Notes.Read"}, time.Hour)})
	return f
}

// setActivities gives f new activities (with a new Notion client) using
// tokens, on the same emulators and staging directory.
func (f *fixture) setActivities(t *testing.T, toks activities.Tokens) {
	t.Helper()
	nc, err := notion.NewClient(notion.Config{BaseURL: f.notionURL, Token: notion.StaticToken(f.notionTok),
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 1000, Burst: 100}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	f.acts, err = activities.New(activities.Config{GraphBaseURL: f.graphURL, Tokens: toks, Notion: nc, StagingDir: f.dir,
		HeartbeatEvery: f.beat})
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	f.env = s.NewTestActivityEnvironment()
	f.acts.Register(f.env)
}

func run[T any](t *testing.T, f *fixture, name string, in any) (T, error) {
	t.Helper()
	var out T
	v, err := f.env.ExecuteActivity(name, in)
	if err != nil {
		return out, err
	}
	return out, v.Get(&out)
}

func TestPagePipelineAgainstEmulators(t *testing.T) {
	f := newFixture(t)
	nbs, err := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName,
		activities.ListNotebooksInput{User: "alice", Match: f.nb.DisplayName})
	if err != nil {
		t.Fatal(err)
	}
	if nbs.Match == nil || nbs.Match.ID != f.nb.ID || nbs.Outcome.Status != 200 {
		t.Fatalf("list notebooks: %+v", nbs)
	}
	sec := f.nb.Sections[0]
	pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if !pages.Done || len(pages.Pages) != len(sec.Pages) || pages.Pages[0].LinkID == "" || pages.Pages[0].LastModified == "" {
		t.Fatalf("list pages: %d pages, done %v, first %+v", len(pages.Pages), pages.Done, pages.Pages[0])
	}
	layout, err := run[notion.Layout](t, f, activities.EnsureLayoutName,
		activities.EnsureLayoutInput{ParentPageID: f.root, Notebook: *nbs.Match})
	if err != nil {
		t.Fatal(err)
	}
	db := layout.SectionDatabaseIDs[sec.ID]
	p := pages.Pages[0]
	key := activities.StageKey("run/" + p.ID)
	meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName,
		activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Bytes == 0 || len(meta.SHA256) != 64 || len(meta.Resources) == 0 {
		t.Fatalf("content meta: %+v", meta)
	}
	before := f.graph.Stats().Users["alice"].Requests
	res, err := run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
		activities.FetchResourcesInput{User: "alice", Key: key, Resources: meta.Resources})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fetched) != len(meta.Resources) || res.Error != "" || res.Requests != len(meta.Resources) {
		t.Fatalf("resources: %+v", res)
	}
	if got := f.graph.Stats().Users["alice"].Requests - before; got != int64(len(meta.Resources)) {
		t.Errorf("%d resources cost %d requests", len(meta.Resources), got)
	}
	w, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: db, Page: p, SectionPath: "NB / S"})
	if err != nil {
		t.Fatal(err)
	}
	if w.NotionPageID == "" || w.Unchanged || w.BlocksWritten == 0 {
		t.Fatalf("write: %+v", w)
	}
	// Read back by default: a converted page with images reads back as
	// written, at a cost counted in its requests.
	if w.Verification != "verified" || w.VerifyReads == 0 || w.Rewritten || w.Requests <= w.VerifyReads {
		t.Errorf("verification of the write: %q (%s), %d reads of %d requests, rewritten %v",
			w.Verification, w.VerifyNote, w.VerifyReads, w.Requests, w.Rewritten)
	}
	// More pages than one Notion filter names: two queries.
	ask := map[string]string{p.ID: p.LastModified, pages.Pages[1].ID: pages.Pages[1].LastModified}
	for i := range 148 {
		ask[fmt.Sprintf("0-%032x!1-NOT-LISTED", i)] = p.LastModified
	}
	ex, err := run[activities.ExistingRowsResult](t, f, activities.ExistingRowsName,
		activities.ExistingRowsInput{DatabaseID: db, Pages: ask})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Done) != 1 || ex.Done[p.ID] != w.NotionPageID {
		t.Errorf("existing rows: %v", ex.Done)
	}
	again, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: db, Page: p, SectionPath: "NB / S"})
	if err != nil || !again.Unchanged {
		t.Errorf("second write: %+v, %v", again, err)
	}
	if _, err := f.env.ExecuteActivity(activities.CleanPageName, key); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(activities.ProcessStaging(f.acts)); len(ents) != 0 {
		t.Errorf("staging dir not clean: %d entries", len(ents))
	}
	if _, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: db, Page: p}); appType(err) != failure.Staging {
		t.Errorf("write without staged content: %v", err)
	}
}

func appType(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Type()
	}
	return ""
}

func TestGraphErrorsAreTypedWithTheirOutcome(t *testing.T) {
	f := newFixture(t)
	_, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: "no-such-section"}})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != failure.GraphNotFound || !app.NonRetryable() {
		t.Fatalf("missing section: %v", err)
	}
	var o limiter.Outcome
	if err := app.Details(&o); err != nil || o.Status != 404 {
		t.Errorf("outcome %+v (%v), want status 404", o, err)
	}
	_, err = run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName, activities.ListNotebooksInput{User: "bob"})
	if appType(err) != failure.NotSignedIn {
		t.Errorf("unknown user: %v", err)
	}

	f.graph.SetFaults(graph.Faults{LibraryLimitUsers: []string{"alice"}})
	_, err = run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName, activities.ListNotebooksInput{User: "alice"})
	if appType(err) != failure.GraphLibraryLimit {
		t.Errorf("library limit: %v", err)
	}
	f.graph.SetFaults(graph.Faults{ServerErrorRate: 1})
	_, err = run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName, activities.ListNotebooksInput{User: "alice"})
	if !errors.As(err, &app) || app.Type() != failure.GraphTransient || app.NonRetryable() {
		t.Errorf("server error: %v", err)
	}
}

func TestResourceFailuresAreLostOrStop(t *testing.T) {
	f := newFixture(t)
	p := f.nb.Sections[0].Pages[0]
	res := f.graph.PageResources(p.ID)
	if len(res) < 2 {
		t.Fatalf("page has %d resources", len(res))
	}
	ref := func(id string) activities.ResourceRef {
		return activities.ResourceRef{ID: id, URL: "resources/" + id + "/$value"}
	}
	// A resource gone from OneNote is lost; the others are still fetched.
	if err := f.graph.RemoveResource(res[0].ID); err != nil {
		t.Fatal(err)
	}
	refs := []activities.ResourceRef{ref(res[0].ID), ref(res[1].ID)}
	got, err := run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
		activities.FetchResourcesInput{User: "alice", Key: "k", Resources: refs})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Lost) != 1 || got.Lost[0].ID != res[0].ID || !strings.Contains(got.Lost[0].Reason, "404") ||
		len(got.Fetched) != 1 || got.Fetched[0] != res[1].ID || got.Error != "" || got.Requests != 2 {
		t.Errorf("one resource gone: %+v", got)
	}
	if o := got.LimiterOutcome(); o.Unsent != 0 || o.Sent.IsZero() {
		t.Errorf("one resource gone: outcome %+v, want every unit sent", o)
	}
	// A transient failure stops the sequence and reports what was sent.
	f.graph.SetFaults(graph.Faults{ServerErrorRate: 1})
	got, err = run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
		activities.FetchResourcesInput{User: "alice", Key: "k", Resources: refs})
	f.graph.ClearFaults()
	if err != nil {
		t.Fatal(err)
	}
	if got.Requests != 1 || got.Fatal || got.ErrorType != failure.GraphTransient || len(got.Fetched)+len(got.Lost) != 0 {
		t.Errorf("5xx: %+v", got)
	}
	// The limiter hears when the failed request was sent and that the
	// permit's second unit was never used.
	if o := got.LimiterOutcome(); o.Status < 500 || o.Unsent != 1 || o.Sent.IsZero() {
		t.Errorf("5xx: outcome %+v, want a 5xx sent, with 1 unit unsent", o)
	}
	// A resource over the Notion workspace's upload limit is not
	// downloaded: Content-Length says it is too big.
	f.notion.SetMaxFileUploadBytes(int64(res[1].Size - 1))
	f.setActivities(t, tokens{"alice": f.graph.IssueToken("alice", []string{"Notes.Read"}, time.Hour)})
	got, err = run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
		activities.FetchResourcesInput{User: "alice", Key: "k", Resources: refs[1:]})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Lost) != 1 || !strings.Contains(got.Lost[0].Reason, "Notion workspace") {
		t.Errorf("over the Notion upload limit: %+v", got)
	}
}

// storeTokens hands out the auth store's token sources as they are: the
// token is only asked for when a request is made.
type storeTokens struct{ s *auth.Store }

func (s storeTokens) TokenSource(user string) (onenote.TokenSource, error) {
	return s.s.TokenSource(user), nil
}

// TestNoStoredSignInSaysRunLogin uses a real token store on an empty
// directory: the Graph activity fails at once, not retryably, with the
// store's message naming the login command.
func TestNoStoredSignInSaysRunLogin(t *testing.T) {
	f := newFixture(t)
	key, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tokens")
	store, err := auth.Open(auth.Config{Dir: dir, Key: key,
		Microsoft: auth.Microsoft{ClientID: "app", Authority: f.graphURL}})
	if err != nil {
		t.Fatal(err)
	}
	f.setActivities(t, storeTokens{store})
	before := f.graph.Stats().Requests
	_, err = run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName, activities.ListNotebooksInput{User: "carol"})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != failure.NotSignedIn || !app.NonRetryable() {
		t.Fatalf("error %v, want a non-retryable %s", err, failure.NotSignedIn)
	}
	if !strings.Contains(err.Error(), `run "starter login --user carol"`) {
		t.Errorf("error %q does not say to run starter login --user carol", err)
	}
	if got := f.graph.Stats().Requests - before; got != 0 {
		t.Errorf("%d Graph requests without a token", got)
	}
}

func TestPasswordProtectedSectionIsTyped(t *testing.T) {
	f := newFixture(t)
	sec := f.nb.Sections[0]
	if err := f.graph.LockSection(sec.ID, true); err != nil {
		t.Fatal(err)
	}
	_, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != failure.GraphProtected || !app.NonRetryable() ||
		!strings.Contains(err.Error(), "password") || !strings.Contains(err.Error(), "retry the section") {
		t.Errorf("protected section: %v", err)
	}
	var o limiter.Outcome
	if err := app.Details(&o); err != nil || o.Status != 403 || o.IsThrottle() {
		t.Errorf("protected section: outcome %+v (%v), want the 403 for the limiter", o, err)
	}
}

// TestLinkPassThroughStagedTargets writes every page of a section, stages
// the link targets from Notion and rewrites the links, a few pages per
// call, until none is left.
func TestLinkPassThroughStagedTargets(t *testing.T) {
	f := newFixture(t)
	layout := laidOut(t, f)
	sec := f.nb.Sections[0]
	db := layout.SectionDatabaseIDs[sec.ID]
	pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
	if err != nil {
		t.Fatal(err)
	}
	withLinks, links := 0, 0
	for _, p := range pages.Pages {
		key := activities.StageKey("links-test/" + p.ID)
		meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName, activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
			activities.FetchResourcesInput{User: "alice", Key: key, Resources: meta.Resources}); err != nil {
			t.Fatal(err)
		}
		w, err := run[activities.WritePageResult](t, f, activities.WritePageName,
			activities.WritePageInput{Key: key, DatabaseID: db, Page: p, SectionPath: "NB / S"})
		if err != nil {
			t.Fatal(err)
		}
		if w.Links > 0 {
			withLinks++
		}
		links += w.Links
	}
	if withLinks < 2 {
		t.Fatalf("only %d pages hold links", withLinks)
	}
	st, err := run[activities.StageLinkTargetsResult](t, f, activities.StageLinkTargetsName,
		activities.StageLinkTargetsInput{Key: "links", DatabaseIDs: []string{db}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Targets != len(pages.Pages) || st.Unnamed != 0 {
		t.Errorf("staged %+v, want %d targets", st, len(pages.Pages))
	}
	rewritten, calls, losses := 0, 0, 0
	for more := true; more; calls++ {
		r, err := run[activities.RewriteLinksResult](t, f, activities.RewriteLinksName,
			activities.RewriteLinksInput{DatabaseID: db, TargetsKey: "links", MaxPages: 1})
		if err != nil {
			t.Fatal(err)
		}
		rewritten += r.Pages
		losses += r.Losses
		for _, lp := range r.LossPages {
			if lp.OneNotePageID == "" || lp.Losses == 0 || len(lp.Samples) == 0 {
				t.Errorf("loss page %+v does not name the page and its losses", lp)
			}
		}
		more = r.More
		if calls > 2*withLinks {
			t.Fatal("the link pass does not end")
		}
	}
	if rewritten != withLinks {
		t.Errorf("rewrote the links of %d pages, want %d", rewritten, withLinks)
	}
	// Every internal link ends as a mention of a page of this section or
	// as a loss (its page is elsewhere); the rows' OneNote link is a web
	// link.
	mentions := 0
	rowIDs := map[string]bool{}
	var rows []notionemu.Page
	var walk func([]notionemu.Page)
	walk = func(ps []notionemu.Page) {
		for _, p := range ps {
			for _, d := range p.Databases {
				if strings.ReplaceAll(d.ID, "-", "") == strings.ReplaceAll(db, "-", "") {
					rows = append(rows, d.Rows...)
				}
			}
			walk(p.Pages)
		}
	}
	walk(f.notion.Export().Pages)
	for _, r := range rows {
		rowIDs[strings.ReplaceAll(r.ID, "-", "")] = true
	}
	for _, r := range rows {
		raw, _ := json.Marshal(r.Blocks)
		for _, m := range regexp.MustCompile(`"page":\{"id":"([0-9a-f-]+)"\}`).FindAllStringSubmatch(string(raw), -1) {
			mentions++
			if !rowIDs[strings.ReplaceAll(m[1], "-", "")] {
				t.Errorf("a mention of %s, not a page of the section", m[1])
			}
		}
		if link, _ := r.Properties[notion.PropLink].(map[string]any)["url"].(string); !strings.HasPrefix(link, "https://") {
			t.Errorf("row %s: %s is %q, want its web link", r.ID, notion.PropLink, link)
		}
	}
	t.Logf("%d internal links on %d pages: %d mentions, %d kept as text (target elsewhere)", links, withLinks, mentions, losses)
	if mentions == 0 || mentions+losses != links {
		t.Errorf("%d mentions and %d losses, want the %d internal links written", mentions, losses, links)
	}
	if _, err := run[activities.RewriteLinksResult](t, f, activities.RewriteLinksName,
		activities.RewriteLinksInput{DatabaseID: db, TargetsKey: "elsewhere"}); appType(err) != failure.Staging {
		t.Errorf("rewrite without staged targets: %v", err)
	}
}

// TestLostResourceIsWrittenAsALoss writes a page one of whose resources
// could not be had: the page is written, the loss named.
func TestLostResourceIsWrittenAsALoss(t *testing.T) {
	f := newFixture(t)
	sec := f.nb.Sections[0]
	pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
	if err != nil {
		t.Fatal(err)
	}
	nbs, _ := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName,
		activities.ListNotebooksInput{User: "alice", Match: f.nb.DisplayName})
	layout, err := run[notion.Layout](t, f, activities.EnsureLayoutName,
		activities.EnsureLayoutInput{ParentPageID: f.root, Notebook: *nbs.Match})
	if err != nil {
		t.Fatal(err)
	}
	p := pages.Pages[0]
	key := activities.StageKey("lost/" + p.ID)
	meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName, activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
		activities.FetchResourcesInput{User: "alice", Key: key, Resources: meta.Resources[1:]}); err != nil {
		t.Fatal(err)
	}
	lost := []activities.LostResource{{ID: meta.Resources[0].ID, Reason: "it is gone from OneNote (HTTP 404)"}}
	w, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: layout.SectionDatabaseIDs[sec.ID], Page: p, Lost: lost})
	if err != nil {
		t.Fatal(err)
	}
	if w.Losses < 1 || len(w.LossSamples) == 0 || !strings.Contains(w.LossSamples[0], "gone from OneNote") {
		t.Errorf("write with a lost resource: %+v", w)
	}
}
