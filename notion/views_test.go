package notion_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
)

// viewRefuser sends every Views API request with Notion-Version
// 2022-06-28, which has no views: the emulator answers it 400
// invalid_request_url, as Notion does (emulator README, "Versions, data
// sources and views").
type viewRefuser struct{ next http.RoundTripper }

func (v viewRefuser) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, "/v1/views") {
		r = r.Clone(r.Context())
		r.Header.Set("Notion-Version", "2022-06-28")
	}
	return v.next.RoundTrip(r)
}

// viewsSpec is a notebook of two sections.
func viewsSpec() notion.NotebookSpec {
	return notion.NotebookSpec{ID: "nb", Name: "Notebook",
		Sections: []notion.SectionSpec{{ID: "s1", Name: "One"}, {ID: "s2", Name: "Two"}}}
}

// oldNotebook lays out viewsSpec where the Views API is refused: each
// database keeps the view Notion made with it and the record names no
// view, which is where a database made before views stands too. The
// refusal is named, asked once, and the run goes on.
func oldNotebook(t *testing.T, e *env) notion.Layout {
	t.Helper()
	before := len(e.srv.Requests(e.token))
	c := e.client(t, func(next http.RoundTripper) http.RoundTripper { return viewRefuser{next} })
	l, err := c.EnsureLayout(context.Background(), e.srv.RootPageID(), viewsSpec())
	if err != nil {
		t.Fatalf("EnsureLayout with the Views API refused: %v", err)
	}
	for _, want := range []string{`"OneNote order" was not made for 2 section databases`, "Notebook/One", "Notebook/Two", "refused the Views API", "invalid_request_url"} {
		if !strings.Contains(l.ViewsNotMade, want) {
			t.Errorf("ViewsNotMade = %q, want it to say %q", l.ViewsNotMade, want)
		}
	}
	if n := len(viewRequests(e.srv.Requests(e.token)[before:])); n != 1 {
		t.Errorf("%d Views API requests after the refusal, want 1 (the refused one)", n)
	}
	return l
}

// viewRequests are the Views API requests among recs, as "METHOD path"
// with IDs shown as {id}.
func viewRequests(recs []emu.RequestRecord) []string {
	var out []string
	for _, r := range recs {
		if !strings.HasPrefix(r.Path, "/v1/views") {
			continue
		}
		p := r.Path
		if len(p) > len("/v1/views/") {
			p = "/v1/views/{id}"
		}
		out = append(out, r.Method+" "+p)
	}
	return out
}

// writes counts the requests among recs that change something.
func writes(recs []emu.RequestRecord) int {
	n := 0
	for _, r := range recs {
		if r.Method != http.MethodGet && !strings.HasSuffix(r.Path, "/query") && r.Path != "/v1/search" {
			n++
		}
	}
	return n
}

// viewsOf is database db's views in tab order, as the emulator holds them.
func viewsOf(t *testing.T, e *env, db string) []map[string]any {
	t.Helper()
	d := findDatabase(e.srv.Export().Pages, db)
	if d == nil {
		t.Fatalf("database %s not found", db)
	}
	return d.Views
}

// ours is the views of vs named notion.SectionViewName.
func ours(vs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, v := range vs {
		if v["name"] == notion.SectionViewName {
			out = append(out, v)
		}
	}
	return out
}

// isSectionView tells whether v is the writer's view: sorted by OneNote
// order, the bookkeeping hidden.
func isSectionView(v map[string]any) bool {
	sorts, _ := v["sorts"].([]any)
	if len(sorts) != 1 || sorts[0].(map[string]any)["property"] != notion.PropOrder {
		return false
	}
	cfg, _ := v["configuration"].(map[string]any)
	props, _ := cfg["properties"].([]any)
	for _, p := range props {
		pm := p.(map[string]any)
		if pm["property_name"] == notion.PropInternalLinks {
			return pm["visible"] == false
		}
	}
	return false
}

// TestOldSectionDatabasesGetTheirView: a section database without the
// view "OneNote order" gets it on the next run, at the start of its tabs,
// for a listing, a read of each view and a create; a view a person made
// or changed is left exactly as it was (one a person named "OneNote
// order" is taken as ours and not changed either); the run after that
// makes no Views API request and writes nothing.
func TestOldSectionDatabasesGetTheirView(t *testing.T) {
	cases := []struct {
		name string
		// person acts on section One's database db (data source ds).
		person func(t *testing.T, e *env, db, ds string)
		// wantOne is the Views API requests the second run makes for
		// section One (Two's are always list, read, create).
		wantOne []string
		created bool // a view is created for One
	}{
		{name: "Notion's view untouched",
			wantOne: []string{"GET /v1/views", "GET /v1/views/{id}", "POST /v1/views"}, created: true},
		{name: "a person changed Notion's view",
			person: func(t *testing.T, e *env, db, ds string) {
				var list struct {
					Results []struct {
						ID string `json:"id"`
					} `json:"results"`
				}
				e.personAt(t, notion.APIVersion, "GET", "/v1/views?database_id="+db, nil, &list)
				e.personAt(t, notion.APIVersion, "PATCH", "/v1/views/"+list.Results[0].ID, map[string]any{"name": "Newest first",
					"sorts": []any{map[string]any{"property": notion.PropCreated, "direction": "descending"}}}, nil)
			},
			wantOne: []string{"GET /v1/views", "GET /v1/views/{id}", "POST /v1/views"}, created: true},
		{name: "a person added a board",
			person: func(t *testing.T, e *env, db, ds string) {
				e.personAt(t, notion.APIVersion, "POST", "/v1/views", map[string]any{"data_source_id": ds, "name": "By status", "type": "board"}, nil)
			},
			wantOne: []string{"GET /v1/views", "GET /v1/views/{id}", "GET /v1/views/{id}", "POST /v1/views"}, created: true},
		{name: "a person made a view named OneNote order",
			person: func(t *testing.T, e *env, db, ds string) {
				e.personAt(t, notion.APIVersion, "POST", "/v1/views", map[string]any{"data_source_id": ds, "name": notion.SectionViewName, "type": "table",
					"sorts": []any{map[string]any{"property": notion.PropName, "direction": "descending"}}}, nil)
			},
			wantOne: []string{"GET /v1/views", "GET /v1/views/{id}", "GET /v1/views/{id}"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, emu.Config{})
			ctx := context.Background()
			old := oldNotebook(t, e)
			one, two := old.SectionDatabaseIDs["s1"], old.SectionDatabaseIDs["s2"]
			if tc.person != nil {
				tc.person(t, e, one, e.dataSourceOf(t, one))
			}
			before := map[string][]map[string]any{one: viewsOf(t, e, one), two: viewsOf(t, e, two)}

			start := len(e.srv.Requests(e.token))
			l, err := e.client(t, nil).EnsureLayout(ctx, e.srv.RootPageID(), viewsSpec())
			if err != nil {
				t.Fatalf("second run: %v", err)
			}
			if l.ViewsAdded != 2 || l.ViewsNotMade != "" {
				t.Errorf("ViewsAdded = %d, ViewsNotMade = %q; want 2 and none", l.ViewsAdded, l.ViewsNotMade)
			}
			want := append(append([]string(nil), tc.wantOne...), "GET /v1/views", "GET /v1/views/{id}", "POST /v1/views")
			if got := viewRequests(e.srv.Requests(e.token)[start:]); !reflect.DeepEqual(got, want) {
				t.Errorf("Views API requests of the second run:\n got %v\nwant %v", got, want)
			}
			for db, created := range map[string]bool{one: tc.created, two: true} {
				after := viewsOf(t, e, db)
				mine := ours(after)
				if len(mine) != 1 {
					t.Fatalf("database %s has %d views named %q, want 1", db, len(mine), notion.SectionViewName)
				}
				if created {
					if len(after) != len(before[db])+1 || after[0]["id"] != mine[0]["id"] || !isSectionView(mine[0]) {
						t.Errorf("database %s: views %v; want the section view first, then %d others", db, after, len(before[db]))
					}
				} else if len(after) != len(before[db]) {
					t.Errorf("database %s: %d views, want the %d it had", db, len(after), len(before[db]))
				}
				// Every view that was there is exactly as it was.
				for _, b := range before[db] {
					found := false
					for _, a := range after {
						if a["id"] == b["id"] {
							found = true
							if !reflect.DeepEqual(a, b) {
								t.Errorf("view %v changed:\n was %v\n now %v", b["name"], b, a)
							}
						}
					}
					if !found {
						t.Errorf("view %v is gone", b["name"])
					}
				}
			}

			// Known from the record: no Views API request, nothing written.
			start = len(e.srv.Requests(e.token))
			if _, err := e.client(t, nil).EnsureLayout(ctx, e.srv.RootPageID(), viewsSpec()); err != nil {
				t.Fatalf("third run: %v", err)
			}
			recs := e.srv.Requests(e.token)[start:]
			if got := viewRequests(recs); len(got) != 0 || writes(recs) != 0 {
				t.Errorf("third run: Views API requests %v and %d writes, want none", got, writes(recs))
			}
		})
	}
}

// TestSectionViewOfANewDatabaseIsRecorded: the view a new database is
// given is recorded, so the next run asks nothing about it; a database
// whose record does not name its view (made by the release before this
// record) costs a listing and one read once, and keeps its one view.
func TestSectionViewOfANewDatabaseIsRecorded(t *testing.T) {
	e := newEnv(t, emu.Config{})
	ctx := context.Background()
	l, err := e.client(t, nil).EnsureLayout(ctx, e.srv.RootPageID(), viewsSpec())
	if err != nil {
		t.Fatal(err)
	}
	start := len(e.srv.Requests(e.token))
	if _, err := e.client(t, nil).EnsureLayout(ctx, e.srv.RootPageID(), viewsSpec()); err != nil {
		t.Fatal(err)
	}
	if got := viewRequests(e.srv.Requests(e.token)[start:]); len(got) != 0 {
		t.Errorf("second run: Views API requests %v, want none", got)
	}

	e.forgetViews(t, l.NotebookPageID)
	start = len(e.srv.Requests(e.token))
	l2, err := e.client(t, nil).EnsureLayout(ctx, e.srv.RootPageID(), viewsSpec())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /v1/views", "GET /v1/views/{id}", "GET /v1/views", "GET /v1/views/{id}"}
	if got := viewRequests(e.srv.Requests(e.token)[start:]); !reflect.DeepEqual(got, want) || l2.ViewsAdded != 2 {
		t.Errorf("run after the record lost its views: Views API requests %v (ViewsAdded %d), want %v", got, l2.ViewsAdded, want)
	}
	for _, db := range l.SectionDatabaseIDs {
		if vs := viewsOf(t, e, db); len(vs) != 1 || !isSectionView(vs[0]) {
			t.Errorf("database %s: views %v, want the one section view", db, vs)
		}
	}
}

// forgetViews rewrites the notebook's record on page pageID without its
// views, as the release before it wrote the record.
func (e *env) forgetViews(t *testing.T, pageID string) {
	t.Helper()
	type kid struct {
		ID          string `json:"id"`
		Type        string `json:"type"`
		HasChildren bool   `json:"has_children"`
		Code        *struct {
			RichText []struct {
				PlainText string `json:"plain_text"`
			} `json:"rich_text"`
		} `json:"code"`
	}
	var kids struct{ Results []kid }
	e.personAt(t, notion.APIVersion, "GET", "/v1/blocks/"+pageID+"/children", nil, &kids)
	for _, k := range kids.Results {
		if k.Type != "paragraph" || !k.HasChildren {
			continue
		}
		var under struct{ Results []kid }
		e.personAt(t, notion.APIVersion, "GET", "/v1/blocks/"+k.ID+"/children", nil, &under)
		for _, c := range under.Results {
			if c.Type != "code" || c.Code == nil {
				continue
			}
			var text strings.Builder
			for _, r := range c.Code.RichText {
				text.WriteString(r.PlainText)
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(text.String()), &rec); err != nil {
				t.Fatal(err)
			}
			if _, ok := rec["views"]; !ok {
				t.Fatalf("the record holds no views: %s", text.String())
			}
			delete(rec, "views")
			b, _ := json.Marshal(rec)
			e.personAt(t, notion.APIVersion, "PATCH", "/v1/blocks/"+c.ID, map[string]any{"code": map[string]any{
				"language": "json", "rich_text": []any{map[string]any{"type": "text", "text": map[string]any{"content": string(b)}}}}}, nil)
			return
		}
	}
	t.Fatalf("no record on page %s", pageID)
}

// TestSectionViewAfterACrash: the run that adds the view to databases
// made without it is stopped at each of its requests (or that request's
// answer is lost); the run after it leaves each database with exactly one
// "OneNote order" view and Notion's own view as it was.
func TestSectionViewAfterACrash(t *testing.T) {
	e := newEnv(t, emu.Config{})
	oldNotebook(t, e)
	counter := &crashTransport{limit: -1}
	if _, err := e.client(t, func(next http.RoundTripper) http.RoundTripper { counter.next = next; return counter }).
		EnsureLayout(context.Background(), e.srv.RootPageID(), viewsSpec()); err != nil {
		t.Fatal(err)
	}
	calls := counter.calls
	t.Logf("the run that adds two views makes %d requests", calls)
	for _, applied := range []bool{false, true} {
		for k := 0; k < calls; k++ {
			name := fmt.Sprintf("stop after %d requests", k)
			if applied {
				name = fmt.Sprintf("request %d applied, answer lost", k+1)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, emu.Config{})
				l := oldNotebook(t, e)
				notions := map[string]map[string]any{}
				for _, db := range l.SectionDatabaseIDs {
					notions[db] = viewsOf(t, e, db)[0]
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ct := &crashTransport{limit: k, applied: applied, cancel: cancel}
				if _, err := e.client(t, func(next http.RoundTripper) http.RoundTripper { ct.next = next; return ct }).
					EnsureLayout(ctx, e.srv.RootPageID(), viewsSpec()); err == nil {
					t.Fatal("the run survived its crash")
				}
				if _, err := e.client(t, nil).EnsureLayout(context.Background(), e.srv.RootPageID(), viewsSpec()); err != nil {
					t.Fatalf("rerun: %v", err)
				}
				for db, theirs := range notions {
					vs := viewsOf(t, e, db)
					if len(vs) != 2 || len(ours(vs)) != 1 || !isSectionView(ours(vs)[0]) {
						t.Errorf("database %s: views %v, want the section view and Notion's", db, vs)
					}
					if !reflect.DeepEqual(vs[len(vs)-1], theirs) {
						t.Errorf("Notion's view changed:\n was %v\n now %v", theirs, vs[len(vs)-1])
					}
				}
				start := len(e.srv.Requests(e.token))
				if _, err := e.client(t, nil).EnsureLayout(context.Background(), e.srv.RootPageID(), viewsSpec()); err != nil {
					t.Fatal(err)
				}
				if got := viewRequests(e.srv.Requests(e.token)[start:]); len(got) != 0 {
					t.Errorf("the run after the rerun made Views API requests %v", got)
				}
			})
		}
	}
}
