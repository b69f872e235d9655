package activities_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

// typeAttrs are the attributes page HTML declares a resource's type in.
var typeAttrs = regexp.MustCompile(` (data-src-type|data-fullres-src-type|type)="[^"]*"`)

// octetStreamGraph serves the Graph emulator as real Graph answers
// resource downloads: Content-Type application/octet-stream for every
// file (graph-reality.md #15). With strip, page HTML declares no types
// either, so only the bytes can tell.
func octetStreamGraph(t *testing.T, graph http.Handler, strip bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		graph.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		if strings.Contains(r.URL.Path, "/resources/") {
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		if strip && strings.HasSuffix(r.URL.Path, "/content") {
			body = typeAttrs.ReplaceAll(body, nil)
			w.Header().Del("Content-Length")
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestUploadTypesDespiteOctetStream: Graph says application/octet-stream
// for every resource; the files uploaded to the Notion emulator carry
// their real types, from the page HTML or, without it, from the bytes.
func TestUploadTypesDespiteOctetStream(t *testing.T) {
	for _, strip := range []bool{false, true} {
		name := "types in the page HTML"
		if strip {
			name = "no types in the page HTML"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.graphURL = octetStreamGraph(t, f.graph, strip).URL + "/v1.0"
			f.setActivities(t, tokens{"alice": f.graph.IssueToken("alice", []string{"Notes.Read"}, time.Hour)})
			nbs, err := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName,
				activities.ListNotebooksInput{User: "alice", Match: f.nb.DisplayName})
			if err != nil {
				t.Fatal(err)
			}
			sec := f.nb.Sections[0]
			layout, err := run[notion.Layout](t, f, activities.EnsureLayoutName,
				activities.EnsureLayoutInput{ParentPageID: f.root, Notebook: *nbs.Match})
			if err != nil {
				t.Fatal(err)
			}
			pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
				activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
			if err != nil {
				t.Fatal(err)
			}
			p := pages.Pages[0]
			want := map[string]string{} // resource ID -> real type
			for _, r := range f.graph.PageResources(p.ID) {
				want[r.ID] = r.ContentType
			}
			key := activities.StageKey("types/" + p.ID)
			meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName,
				activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key})
			if err != nil {
				t.Fatal(err)
			}
			got, err := run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
				activities.FetchResourcesInput{User: "alice", Key: key, Resources: meta.Resources})
			if err != nil || len(got.Fetched) != len(meta.Resources) {
				t.Fatalf("resources: %+v, %v", got, err)
			}
			if _, err := run[activities.WritePageResult](t, f, activities.WritePageName,
				activities.WritePageInput{Key: key, DatabaseID: layout.SectionDatabaseIDs[sec.ID], Page: p, SectionPath: "NB / S"}); err != nil {
				t.Fatal(err)
			}
			ups := f.notion.Export().Uploads
			kinds := map[string]int{}
			for _, u := range ups {
				kinds[u.ContentType]++
				if u.ContentType == "application/octet-stream" || u.ContentType == "" {
					t.Errorf("upload %s (%s) has type %q", u.UploadID, u.Filename, u.ContentType)
				}
			}
			wantKinds := map[string]int{}
			for _, r := range meta.Resources {
				wantKinds[want[r.ID]]++
			}
			if len(ups) != len(meta.Resources) || len(kinds) != len(wantKinds) {
				t.Fatalf("uploads by type %v, want %v", kinds, wantKinds)
			}
			for k, n := range wantKinds {
				if kinds[k] != n {
					t.Errorf("%d uploads of type %s, want %d (all: %v)", kinds[k], k, n, kinds)
				}
			}
		})
	}
}
