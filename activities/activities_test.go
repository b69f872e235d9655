package activities_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/notebridge/notebridge/activities"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
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
	acts   *activities.Activities
	env    *testsuite.TestActivityEnvironment
	graph  *graph.Server
	nb     *graph.Notebook
	notion *notionemu.Server
	root   string
	dir    string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{graph: graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})}
	nbs := graph.Generate(graph.SmallSpec(3, "alice"))
	f.nb = nbs[0]
	f.graph.AddNotebooks("alice", nbs...)
	gts := httptest.NewServer(f.graph)
	t.Cleanup(gts.Close)
	f.notion = notionemu.NewServer(notionemu.Config{Seed: 1, Rate: -1})
	nts := httptest.NewServer(f.notion)
	t.Cleanup(nts.Close)
	ntok := notion.StaticToken(f.notion.IssueToken())
	f.root = f.notion.RootPageID()
	nc, err := notion.NewClient(notion.Config{BaseURL: nts.URL, Token: ntok,
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 1000, Burst: 100}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	f.dir = t.TempDir()
	f.acts, err = activities.New(activities.Config{GraphBaseURL: gts.URL + "/v1.0",
		Tokens: tokens{"alice": f.graph.IssueToken("alice", []string{"Notes.Read"}, time.Hour)},
		Notion: nc, NotionBaseURL: nts.URL, NotionToken: ntok, StagingDir: f.dir})
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	f.env = s.NewTestActivityEnvironment()
	f.acts.Register(f.env)
	return f
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
	ex, err := run[activities.ExistingRowsResult](t, f, activities.ExistingRowsName,
		activities.ExistingRowsInput{DatabaseID: db, Pages: map[string]string{p.ID: p.LastModified, pages.Pages[1].ID: pages.Pages[1].LastModified}})
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
	if ents, _ := os.ReadDir(f.dir); len(ents) != 0 {
		t.Errorf("staging dir not clean: %d entries", len(ents))
	}
	if _, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: db, Page: p}); appType(err) != activities.ErrTypeStaging {
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
	if !errors.As(err, &app) || app.Type() != activities.ErrTypeGraphNotFound || !app.NonRetryable() {
		t.Fatalf("missing section: %v", err)
	}
	var o limiter.Outcome
	if err := app.Details(&o); err != nil || o.Status != 404 {
		t.Errorf("outcome %+v (%v), want status 404", o, err)
	}
	_, err = run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName, activities.ListNotebooksInput{User: "bob"})
	if appType(err) != activities.ErrTypeNotSignedIn {
		t.Errorf("unknown user: %v", err)
	}

	f.graph.SetFaults(graph.Faults{LibraryLimitUsers: []string{"alice"}})
	_, err = run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName, activities.ListNotebooksInput{User: "alice"})
	if appType(err) != activities.ErrTypeGraphLibraryLimit {
		t.Errorf("library limit: %v", err)
	}
	f.graph.SetFaults(graph.Faults{ServerErrorRate: 1})
	_, err = run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName, activities.ListNotebooksInput{User: "alice"})
	if !errors.As(err, &app) || app.Type() != activities.ErrTypeGraphTransient || app.NonRetryable() {
		t.Errorf("server error: %v", err)
	}
}

func TestResourceFailureStopsAndReports(t *testing.T) {
	f := newFixture(t)
	refs := []activities.ResourceRef{{ID: "x1", URL: "resources/does-not-exist/$value"}, {ID: "x2", URL: "resources/nor-this/$value"}}
	res, err := run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
		activities.FetchResourcesInput{User: "alice", Key: "k", Resources: refs})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fetched) != 0 || res.Requests != 1 || res.Error == "" || !res.Fatal || res.Outcome.Status != 404 {
		t.Errorf("result: %+v", res)
	}
}
