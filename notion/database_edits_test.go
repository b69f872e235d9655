package notion_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
)

// personAt does what a person does in Notion, as a request on Notion-Version
// v, and decodes the answer into out.
func (e *env) personAt(t *testing.T, v, method, path string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	if body == nil {
		b = nil
	}
	req, _ := http.NewRequest(method, e.baseURL()+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Notion-Version", v)
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.transport().RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
	}
}

// dataSourceOf is database db's first data source, as a person sees it.
func (e *env) dataSourceOf(t *testing.T, db string) string {
	t.Helper()
	var d struct {
		DataSources []struct {
			ID string `json:"id"`
		} `json:"data_sources"`
	}
	e.personAt(t, notion.APIVersion, "GET", "/v1/databases/"+db, nil, &d)
	return d.DataSources[0].ID
}

func rowCount(t *testing.T, e *env, db string) int {
	t.Helper()
	d := findDatabase(e.srv.Export().Pages, db)
	if d == nil {
		t.Fatalf("database %s not in the export", db)
	}
	return len(d.Rows)
}

// TestSyncAfterASecondDataSource: a person adds a data source to a
// migrated section database; writing its pages again (a sync) from a new
// worker and from the one that knew the database both find the rows they
// wrote: no duplicate, nothing in the person's data source.
func TestSyncAfterASecondDataSource(t *testing.T) {
	e := newEnv(t, emu.Config{})
	ctx := context.Background()
	first := e.client(t, nil)
	db := e.section(t, first)
	for _, id := range []string{"p1", "p2"} {
		if _, err := first.WritePage(ctx, db, pageInput(id, []blocks.Block{{Type: blocks.Paragraph, RichText: rt("v1 " + id)}}, nil)); err != nil {
			t.Fatal(err)
		}
	}
	e.personAt(t, emu.Version20250903, "POST", "/v1/data_sources", map[string]any{
		"parent": map[string]any{"type": "database_id", "database_id": db}, "title": []any{map[string]any{"text": map[string]any{"content": "Ideas"}}},
		"properties": map[string]any{"Idea": map[string]any{"title": map[string]any{}}}}, nil)
	for name, c := range map[string]*notion.Client{"the same client": first, "a new client": e.client(t, nil)} {
		t.Run(name, func(t *testing.T) {
			if _, err := c.EnsureLayout(ctx, e.srv.RootPageID(), notion.NotebookSpec{ID: "nb", Name: "Notebook",
				Sections: []notion.SectionSpec{{ID: "s1", Name: "Section"}}}); err != nil {
				t.Fatalf("EnsureLayout after a second data source: %v", err)
			}
			for _, id := range []string{"p1", "p2"} {
				in := pageInput(id, []blocks.Block{{Type: blocks.Paragraph, RichText: rt("v2 " + id + " " + name)}}, nil)
				in.LastModified = in.LastModified.Add(1e9 * 3600)
				if _, err := c.WritePage(ctx, db, in); err != nil {
					t.Fatalf("WritePage %s: %v", id, err)
				}
				if rows := rowsOf(t, e.srv.Export(), db, id); len(rows) != 1 {
					t.Errorf("%d rows of %s, want 1", len(rows), id)
				}
			}
			if n := rowCount(t, e, db); n != 2 {
				t.Errorf("the database holds %d rows, want 2 (nothing in the person's data source)", n)
			}
		})
	}
}

// TestDatabaseChanges: what a person does to a section database's
// properties either is adapted to or stops with a DatabaseChangeError,
// before any row is written.
func TestDatabaseChanges(t *testing.T) {
	cases := []struct {
		name     string
		change   map[string]any // a data source PATCH body
		property string         // the DatabaseChangeError's property; "" when adapted to
	}{
		{"key property renamed", map[string]any{notion.PropOneNoteID: map[string]any{"name": "Source"}}, notion.PropOneNoteID},
		{"key property deleted", map[string]any{notion.PropOneNoteID: nil}, notion.PropOneNoteID},
		{"key property retyped", map[string]any{notion.PropOneNoteID: map[string]any{"number": map[string]any{}}}, notion.PropOneNoteID},
		{"title renamed", map[string]any{notion.PropName: map[string]any{"name": "Page"}}, notion.PropName},
		{"bookkeeping property deleted", map[string]any{notion.PropLossRecord: nil}, ""},
		{"shown property renamed", map[string]any{notion.PropLosses: map[string]any{"name": "What was lost"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, emu.Config{})
			ctx := context.Background()
			cl := e.client(t, nil)
			db := e.section(t, cl)
			if _, err := cl.WritePage(ctx, db, pageInput("p1", []blocks.Block{{Type: blocks.Paragraph, RichText: rt("one")}}, nil)); err != nil {
				t.Fatal(err)
			}
			e.personAt(t, notion.APIVersion, "PATCH", "/v1/data_sources/"+e.dataSourceOf(t, db), map[string]any{"properties": c.change}, nil)
			fresh := e.client(t, nil)
			_, err := fresh.EnsureLayout(ctx, e.srv.RootPageID(), notion.NotebookSpec{ID: "nb", Name: "Notebook",
				Sections: []notion.SectionSpec{{ID: "s1", Name: "Section"}}})
			var dce *notion.DatabaseChangeError
			if c.property != "" {
				if !errors.As(err, &dce) || dce.Property != c.property || !errors.Is(err, notion.ErrValidation) {
					t.Fatalf("EnsureLayout = %v, want a DatabaseChangeError on %q", err, c.property)
				}
				if !strings.Contains(err.Error(), "then run again") {
					t.Errorf("the error does not say what to do: %v", err)
				}
				if n := rowCount(t, e, db); n != 1 {
					t.Errorf("%d rows, want the 1 written before", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("EnsureLayout: %v", err)
			}
			in := pageInput("p1", []blocks.Block{{Type: blocks.Paragraph, RichText: rt("two")}}, nil)
			in.LastModified = in.LastModified.Add(1e9 * 3600)
			if _, err := fresh.WritePage(ctx, db, in); err != nil {
				t.Fatalf("WritePage: %v", err)
			}
			if n := rowCount(t, e, db); n != 1 {
				t.Errorf("%d rows, want 1", n)
			}
		})
	}
}

// TestSectionView: a new section database is shown sorted by OneNote
// order, with the writer's bookkeeping hidden.
func TestSectionView(t *testing.T) {
	e := newEnv(t, emu.Config{})
	ctx := context.Background()
	c := e.client(t, nil)
	db := e.section(t, c)
	for i, id := range []string{"third", "first", "second"} {
		in := pageInput(id, []blocks.Block{{Type: blocks.Paragraph, RichText: rt(id)}}, nil)
		in.Order = []int{3, 1, 2}[i]
		if _, err := c.WritePage(ctx, db, in); err != nil {
			t.Fatal(err)
		}
	}
	d := findDatabase(e.srv.Export().Pages, db)
	if len(d.Views) != 1 {
		t.Fatalf("%d views, want 1", len(d.Views))
	}
	v := d.Views[0]
	if v["name"] != notion.SectionViewName {
		t.Errorf("view name %v", v["name"])
	}
	sorts, _ := v["sorts"].([]any)
	if len(sorts) != 1 || sorts[0].(map[string]any)["property"] != notion.PropOrder || sorts[0].(map[string]any)["direction"] != "ascending" {
		t.Errorf("view sorts = %v, want %s ascending", v["sorts"], notion.PropOrder)
	}
	var visible, hidden []string
	for _, p := range v["configuration"].(map[string]any)["properties"].([]any) {
		pm := p.(map[string]any)
		name, _ := pm["property_name"].(string)
		if pm["visible"] == true {
			visible = append(visible, name)
		} else {
			hidden = append(hidden, name)
		}
	}
	for _, h := range []string{notion.PropInternalLinks, notion.PropLossRecord, notion.PropLinksPending, notion.PropOneNoteID, notion.PropContentHash, notion.PropWritten} {
		if !slices.Contains(hidden, h) {
			t.Errorf("%q is not hidden (visible %v)", h, visible)
		}
	}
	if !slices.Equal(visible, []string{notion.PropName, notion.PropParent, notion.PropCreated, notion.PropLastModified,
		notion.PropLink, notion.PropLosses, notion.PropVerification, notion.PropStatus}) {
		t.Errorf("visible columns %v", visible)
	}
	if len(visible)+len(hidden) != len(d.Properties) {
		t.Errorf("the view names %d of %d properties", len(visible)+len(hidden), len(d.Properties))
	}
	// The emulator's HTML view shows the rows in OneNote order.
	resp, err := (&http.Client{Transport: e.transport()}).Get(e.baseURL() + "/_emulator/view/" + db)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	html, _ := io.ReadAll(resp.Body)
	a, b, cc := bytes.Index(html, []byte("Page first")), bytes.Index(html, []byte("Page second")), bytes.Index(html, []byte("Page third"))
	if !(a >= 0 && a < b && b < cc) || bytes.Contains(html, []byte("<th>"+notion.PropInternalLinks+"</th>")) {
		t.Errorf("HTML view: first@%d second@%d third@%d, Internal links column shown: %v", a, b, cc,
			bytes.Contains(html, []byte("<th>"+notion.PropInternalLinks+"</th>")))
	}
}

// TestSectionDatabaseCost: making a section database costs four requests
// on 2026-03-11 (two on 2022-06-28): the create, the self-relation on its
// data source (whose answer gives the property IDs), the view listing and
// the view's update.
func TestSectionDatabaseCost(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	e.section(t, c)
	var got []string
	for _, r := range e.srv.Requests(e.token) {
		p := r.Path
		for _, prefix := range []string{"/v1/databases", "/v1/data_sources", "/v1/views"} {
			if strings.HasPrefix(p, prefix) {
				if i := strings.Index(p[len(prefix):], "/"); i == 0 {
					p = prefix + "/{id}"
				}
				got = append(got, r.Method+" "+p)
			}
		}
	}
	want := []string{"POST /v1/databases", "PATCH /v1/data_sources/{id}", "GET /v1/views", "PATCH /v1/views/{id}"}
	if !slices.Equal(got, want) {
		t.Errorf("database requests %v, want %v", got, want)
	}
	t.Logf("EnsureLayout of a notebook with one new section: %d requests in all", len(e.srv.Requests(e.token)))
}
