package notion_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
)

// person sends one request as a person's edit would make it (through the
// API, with the integration's token), and decodes the answer into out.
func (e *env) person(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, e.baseURL()+path, rd)
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Notion-Version", "2022-06-28")
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.transport().RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b.String())
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

func richTitle(s string) []map[string]any {
	return []map[string]any{{"type": "text", "text": map[string]any{"content": s}}}
}

// identitySpec is a notebook with two sections at the top and a group
// holding a third.
func identitySpec() notion.NotebookSpec {
	return notion.NotebookSpec{ID: "nb-1", Name: "Work",
		Sections: []notion.SectionSpec{{ID: "s1", Name: "Inbox"}, {ID: "s2", Name: "Plans"}},
		SectionGroups: []notion.SectionGroupSpec{{ID: "g1", Name: "Projects",
			Sections: []notion.SectionSpec{{ID: "s3", Name: "Alpha"}}}}}
}

// TestContainersAreFoundByIdentity: whatever a person does to the
// containers in Notion, or OneNote to their names, the next layout finds
// the same containers (never a second copy), gives them OneNote's titles,
// and names a container that is gone instead of making it again.
func TestContainersAreFoundByIdentity(t *testing.T) {
	cases := []struct {
		name string
		// act changes things between the two runs; it may change spec.
		act func(t *testing.T, e *env, first notion.Layout, spec *notion.NotebookSpec)
		// gone names the sections reported gone.
		gone    []string
		renamed int
		// elsewhere counts the databases named as not where OneNote
		// places them.
		elsewhere int
	}{
		{name: "nothing changed"},
		{name: "section database renamed in Notion", renamed: 1,
			act: func(t *testing.T, e *env, l notion.Layout, _ *notion.NotebookSpec) {
				e.person(t, "PATCH", "/v1/databases/"+l.SectionDatabaseIDs["s1"], map[string]any{"title": richTitle("My inbox")}, nil)
			}},
		{name: "section renamed in OneNote", renamed: 1,
			act: func(t *testing.T, e *env, l notion.Layout, spec *notion.NotebookSpec) {
				spec.Sections[0].Name = "Incoming"
			}},
		{name: "two sections swap names in OneNote", renamed: 2,
			act: func(t *testing.T, e *env, l notion.Layout, spec *notion.NotebookSpec) {
				spec.Sections[0].Name, spec.Sections[1].Name = spec.Sections[1].Name, spec.Sections[0].Name
			}},
		{name: "section group renamed in Notion and in OneNote", renamed: 1,
			act: func(t *testing.T, e *env, l notion.Layout, spec *notion.NotebookSpec) {
				e.person(t, "PATCH", "/v1/pages/"+l.GroupPageIDs["g1"],
					map[string]any{"properties": map[string]any{"title": map[string]any{"title": richTitle("Mine")}}}, nil)
				spec.SectionGroups[0].Name = "Current projects"
			}},
		{name: "section database moved elsewhere by a person", elsewhere: 1,
			act: func(t *testing.T, e *env, l notion.Layout, _ *notion.NotebookSpec) {
				if err := e.srv.PersonMove(l.SectionDatabaseIDs["s3"], e.srv.RootPageID()); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "notebook page renamed and moved by a person", renamed: 1,
			act: func(t *testing.T, e *env, l notion.Layout, _ *notion.NotebookSpec) {
				var other struct{ ID string }
				e.person(t, "POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()},
					"properties": map[string]any{"title": map[string]any{"title": richTitle("Elsewhere")}}}, &other)
				if err := e.srv.PersonMove(l.NotebookPageID, other.ID); err != nil {
					t.Fatal(err)
				}
				e.person(t, "PATCH", "/v1/pages/"+l.NotebookPageID,
					map[string]any{"properties": map[string]any{"title": map[string]any{"title": richTitle("Old work")}}}, nil)
			}},
		{name: "the record deleted by a person, a database renamed", renamed: 1,
			act: func(t *testing.T, e *env, l notion.Layout, _ *notion.NotebookSpec) {
				e.deleteStamp(t, l.NotebookPageID)
				e.person(t, "PATCH", "/v1/databases/"+l.SectionDatabaseIDs["s3"], map[string]any{"title": richTitle("Other")}, nil)
			}},
		{name: "section database in the trash", gone: []string{"s2"},
			act: func(t *testing.T, e *env, l notion.Layout, _ *notion.NotebookSpec) {
				e.person(t, "PATCH", "/v1/databases/"+l.SectionDatabaseIDs["s2"], map[string]any{"archived": true}, nil)
			}},
		{name: "section group page in the trash", gone: []string{"s3"},
			act: func(t *testing.T, e *env, l notion.Layout, _ *notion.NotebookSpec) {
				e.person(t, "PATCH", "/v1/pages/"+l.GroupPageIDs["g1"], map[string]any{"archived": true}, nil)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, emu.Config{})
			c := e.client(t, nil)
			ctx := context.Background()
			spec := identitySpec()
			first, err := c.EnsureLayout(ctx, e.srv.RootPageID(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if tc.act != nil {
				tc.act(t, e, first, &spec)
			}
			second, err := c.EnsureLayout(ctx, e.srv.RootPageID(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if second.Created != 0 {
				t.Errorf("the second layout created %d containers", second.Created)
			}
			if len(second.Elsewhere) != tc.elsewhere {
				t.Errorf("named %q as elsewhere, want %d", second.Elsewhere, tc.elsewhere)
			}
			if second.Renamed != tc.renamed {
				t.Errorf("renamed %d containers, want %d", second.Renamed, tc.renamed)
			}
			if second.NotebookPageID != first.NotebookPageID {
				t.Errorf("notebook page %s, was %s", second.NotebookPageID, first.NotebookPageID)
			}
			for id, db := range first.SectionDatabaseIDs {
				gone := strings.Contains(strings.Join(tc.gone, " "), id)
				switch {
				case gone && second.Gone[id] == "":
					t.Errorf("section %s is not reported gone", id)
				case gone && second.SectionDatabaseIDs[id] != "":
					t.Errorf("gone section %s was given database %s", id, second.SectionDatabaseIDs[id])
				case !gone && second.SectionDatabaseIDs[id] != db:
					t.Errorf("section %s: database %s, was %s", id, second.SectionDatabaseIDs[id], db)
				}
			}
			for id, msg := range second.Gone {
				if !strings.Contains(msg, "trash") || !strings.Contains(msg, "restore") {
					t.Errorf("gone %s: %q does not say where it is and what to do", id, msg)
				}
			}
			// Titles are OneNote's, wherever the containers are.
			ws := e.srv.Export()
			for _, s := range []struct{ id, name string }{{"s1", spec.Sections[0].Name}, {"s2", spec.Sections[1].Name},
				{"s3", spec.SectionGroups[0].Sections[0].Name}} {
				if db := second.SectionDatabaseIDs[s.id]; db != "" {
					if d := findDatabase(ws.Pages, db); d == nil || d.Title != s.name {
						t.Errorf("section %s: database %+v, want title %q", s.id, d, s.name)
					}
				}
			}
			// A third run finds everything again at once.
			third, err := c.EnsureLayout(ctx, e.srv.RootPageID(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if third.Created+third.Renamed != 0 || len(third.SectionDatabaseIDs) != len(second.SectionDatabaseIDs) {
				t.Errorf("third layout %+v after %+v", third, second)
			}
		})
	}
}

// deleteStamp deletes the stamp (and with it the record) on a page, as a
// person tidying the page might.
func (e *env) deleteStamp(t *testing.T, pageID string) {
	t.Helper()
	var kids struct {
		Results []struct {
			ID        string `json:"id"`
			Type      string `json:"type"`
			Paragraph *struct {
				RichText []struct {
					PlainText string `json:"plain_text"`
				} `json:"rich_text"`
			} `json:"paragraph"`
		} `json:"results"`
	}
	e.person(t, "GET", "/v1/blocks/"+pageID+"/children", nil, &kids)
	for _, k := range kids.Results {
		if k.Type == "paragraph" && k.Paragraph != nil && len(k.Paragraph.RichText) > 0 &&
			strings.Contains(k.Paragraph.RichText[0].PlainText, "Note Bridge") {
			e.person(t, "DELETE", "/v1/blocks/"+k.ID, nil, nil)
			return
		}
	}
	t.Fatalf("no stamp on page %s", pageID)
}

// TestLayoutAdoptsContainersMadeByTitle: a notebook migrated before
// containers carried stamps is found by its titles once, stamped, and
// from then on found by identity: renaming a database then changes
// nothing.
func TestLayoutAdoptsContainersMadeByTitle(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	ctx := context.Background()
	var nb, db struct{ ID string }
	e.person(t, "POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()},
		"properties": map[string]any{"title": map[string]any{"title": richTitle("Work")}}}, &nb)
	e.person(t, "POST", "/v1/databases", map[string]any{"parent": map[string]any{"page_id": nb.ID}, "title": richTitle("Inbox"),
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}}, &db)
	spec := notion.NotebookSpec{ID: "nb-1", Name: "Work", Sections: []notion.SectionSpec{{ID: "s1", Name: "Inbox"}}}
	l, err := c.EnsureLayout(ctx, e.srv.RootPageID(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if l.NotebookPageID != nb.ID || l.SectionDatabaseIDs["s1"] != db.ID || l.Created != 0 {
		t.Fatalf("layout %+v: did not adopt page %s and database %s", l, nb.ID, db.ID)
	}
	e.person(t, "PATCH", "/v1/databases/"+db.ID, map[string]any{"title": richTitle("Renamed")}, nil)
	l2, err := c.EnsureLayout(ctx, e.srv.RootPageID(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if l2.SectionDatabaseIDs["s1"] != db.ID || l2.Created != 0 || l2.Renamed != 1 {
		t.Errorf("after a rename in Notion: %+v", l2)
	}
	var got struct {
		Description []struct {
			PlainText string `json:"plain_text"`
		} `json:"description"`
	}
	e.person(t, "GET", "/v1/databases/"+db.ID, nil, &got)
	if len(got.Description) == 0 || !strings.Contains(got.Description[len(got.Description)-1].PlainText, "section ID s1") {
		t.Errorf("database description %+v carries no stamp", got.Description)
	}
}

// TestLayoutNeverTakesAnotherSectionsDatabase: a new section titled as a
// database that belongs to another section (stamped) gets its own.
func TestLayoutNeverTakesAnotherSectionsDatabase(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	ctx := context.Background()
	spec := notion.NotebookSpec{ID: "nb-1", Name: "Work", Sections: []notion.SectionSpec{{ID: "s1", Name: "Inbox"}}}
	first, err := c.EnsureLayout(ctx, e.srv.RootPageID(), spec)
	if err != nil {
		t.Fatal(err)
	}
	// s1 is deleted in OneNote and a new section takes its name.
	spec.Sections = []notion.SectionSpec{{ID: "s9", Name: "Inbox"}}
	second, err := c.EnsureLayout(ctx, e.srv.RootPageID(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if second.SectionDatabaseIDs["s9"] == first.SectionDatabaseIDs["s1"] || second.Created != 1 {
		t.Errorf("the new section took the old one's database: %+v", second)
	}
	if len(second.Former) != 1 || second.Former[0] != (notion.FormerSection{ID: "s1", DatabaseID: first.SectionDatabaseIDs["s1"]}) {
		t.Errorf("the deleted section's database is not among the former ones: %+v", second.Former)
	}
}

// TestLayoutCreatesOnceWhenAnswersAreLost: every create is applied and
// its answer lost (a gateway time-out); the client finds what it made by
// its stamp and makes nothing twice.
func TestLayoutCreatesOnceWhenAnswersAreLost(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	e.srv.SetFaults(emu.Faults{AppliedThenGatewayTimeout: 0.4})
	l, err := c.EnsureLayout(context.Background(), e.srv.RootPageID(), identitySpec())
	if err != nil {
		t.Fatal(err)
	}
	e.srv.SetFaults(emu.Faults{})
	if lost := e.srv.Stats().Tokens[e.token].ByStatus[504]; lost == 0 {
		t.Fatal("no answer was lost: the test tests nothing")
	} else {
		t.Logf("%d answers lost", lost)
	}
	ws := e.srv.Export()
	book := 0
	var count func(ps []emu.Page)
	dbs := map[string]int{}
	count = func(ps []emu.Page) {
		for _, p := range ps {
			if p.Archived {
				continue
			}
			if p.Title == "Work" {
				book++
			}
			for _, d := range p.Databases {
				if !d.Archived {
					dbs[d.Title]++
				}
			}
			count(p.Pages)
		}
	}
	count(ws.Pages)
	if book != 1 || len(dbs) != 3 || dbs["Inbox"] != 1 || dbs["Plans"] != 1 || dbs["Alpha"] != 1 {
		t.Errorf("after lost answers: %d notebook pages, databases %v; layout %+v", book, dbs, l)
	}
}

// TestLayoutUnderAnotherParentIsAnotherCopy: the same notebook migrated
// under a second parent page gets containers of its own; the first copy's
// are neither taken nor changed, whatever their stamps say.
func TestLayoutUnderAnotherParentIsAnotherCopy(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	ctx := context.Background()
	var other struct{ ID string }
	e.person(t, "POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()},
		"properties": map[string]any{"title": map[string]any{"title": richTitle("Second copy")}}}, &other)
	first, err := c.EnsureLayout(ctx, e.srv.RootPageID(), identitySpec())
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.EnsureLayout(ctx, other.ID, identitySpec())
	if err != nil {
		t.Fatal(err)
	}
	if second.NotebookPageID == first.NotebookPageID || second.Created != 5 {
		t.Fatalf("the second copy took the first's containers: %+v", second)
	}
	for id, db := range first.SectionDatabaseIDs {
		if second.SectionDatabaseIDs[id] == db {
			t.Errorf("section %s: both copies use database %s", id, db)
		}
	}
	again, err := c.EnsureLayout(ctx, e.srv.RootPageID(), identitySpec())
	if err != nil {
		t.Fatal(err)
	}
	if again.NotebookPageID != first.NotebookPageID || again.Created != 0 || again.SectionDatabaseIDs["s1"] != first.SectionDatabaseIDs["s1"] {
		t.Errorf("the first copy after the second was made: %+v, was %+v", again, first)
	}
}
