package notion

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func paras(ss ...string) []any {
	var out []any
	for _, s := range ss {
		out = append(out, para(s))
	}
	return out
}

// TestPartialWrite checks each cut the partial-write fault makes: the
// answer is 200, the workspace keeps only part of the write, and the cut
// is recorded exactly, naming the request the client was answered for.
func TestPartialWrite(t *testing.T) {
	tests := []struct {
		name string
		// cut is Faults.PartialWriteCut.
		cut string
		// write sends one faulted write under target (a page "Target")
		// and returns the ID of the page it wrote to, and its answer.
		write func(e *env, target string) (page string, answer map[string]any)
		// kept is the text of the page's children after the write.
		kept []string
		// want is the record (request ID, time and page ID are checked
		// apart); zero when nothing may be cut.
		want PartialWrite
		// cutBlock is the index among the page's children of the block
		// whose run was cut (CutText).
		cutBlock int
	}{
		{"append: the last half of the children dropped", "",
			func(e *env, target string) (string, map[string]any) {
				return target, e.ok("PATCH", "/v1/blocks/"+target+"/children", map[string]any{"children": paras("one", "two", "three", "four", "five")})
			},
			[]string{"one", "two"},
			PartialWrite{Method: "PATCH", Cut: CutChildren, Sent: 5, Kept: 2, PageTitle: "Target",
				DroppedTypes: []string{"paragraph", "paragraph", "paragraph"}}, 0},
		{"append of one child: its last run cut short", "",
			func(e *env, target string) (string, map[string]any) {
				return target, e.ok("PATCH", "/v1/blocks/"+target+"/children", map[string]any{"children": []any{
					block("paragraph", map[string]any{"rich_text": rt(text("Bold start "), text("and the end"))})}})
			},
			[]string{"Bold start and t"},
			PartialWrite{Method: "PATCH", Cut: CutText, Sent: 11, Kept: 5, PageTitle: "Target"}, 0},
		{"page create: the last children dropped, the new page named", "",
			func(e *env, target string) (string, map[string]any) {
				body := map[string]any{
					"parent":     map[string]any{"page_id": target},
					"properties": map[string]any{"title": map[string]any{"title": []any{text("Created")}}},
					"children":   append(paras("a", "b", "c"), block("divider", map[string]any{})),
				}
				a := e.ok("POST", "/v1/pages", body)
				return a["id"].(string), a
			},
			[]string{"a", "b"},
			PartialWrite{Method: "POST", Cut: CutChildren, Sent: 4, Kept: 2, PageTitle: "Created",
				DroppedTypes: []string{"paragraph", "divider"}}, 0},
		{"cut text: the last child with text loses half its last run", CutText,
			func(e *env, target string) (string, map[string]any) {
				return target, e.ok("PATCH", "/v1/blocks/"+target+"/children", map[string]any{"children": append(paras("one", "two", "three"), block("divider", map[string]any{}))})
			},
			[]string{"one", "two", "th", ""},
			PartialWrite{Method: "PATCH", Cut: CutText, Sent: 5, Kept: 2, PageTitle: "Target"}, 2},
		{"cut children: one child is written whole", CutChildren,
			func(e *env, target string) (string, map[string]any) {
				return target, e.ok("PATCH", "/v1/blocks/"+target+"/children", map[string]any{"children": paras("alone")})
			},
			[]string{"alone"},
			PartialWrite{}, 0},
		{"nothing to cut: one child without text is written whole", "",
			func(e *env, target string) (string, map[string]any) {
				return target, e.ok("PATCH", "/v1/blocks/"+target+"/children", map[string]any{"children": []any{block("divider", map[string]any{})}})
			},
			[]string{""},
			PartialWrite{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Config{})
			target := e.createPage(e.srv.RootPageID(), "Target")
			e.srv.SetFaults(Faults{PartialWriteCut: tt.cut})
			e.srv.InjectFault(FaultPartialWrite, 1)
			// Neither a read nor a page update can be cut: the fault waits.
			e.ok("GET", "/v1/pages/"+target, nil)
			e.ok("PATCH", "/v1/pages/"+target, map[string]any{"icon": map[string]any{"type": "emoji", "emoji": "📝"}})
			page, answer := tt.write(e, target)
			var kept []string
			for _, b := range e.listAll(page, 100) {
				kept = append(kept, blockText(b))
			}
			if !reflect.DeepEqual(kept, tt.kept) {
				t.Errorf("page holds %q, want %q", kept, tt.kept)
			}
			got := e.srv.PartialWrites()
			if tt.want.Cut == "" {
				if len(got) != 0 {
					t.Errorf("recorded %+v, want nothing", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("recorded %d partial writes, want 1: %+v", len(got), got)
			}
			w := got[0]
			if w.RequestID == "" || w.RequestID != answer["request_id"] {
				t.Errorf("request ID %q, the answer's %q", w.RequestID, answer["request_id"])
			}
			if w.PageID != page || !strings.HasPrefix(w.Path, "/v1/") {
				t.Errorf("page %q path %q, want page %q", w.PageID, w.Path, page)
			}
			if w.Cut == CutText && (w.BlockID == "" || w.BlockID != e.listAll(page, 100)[tt.cutBlock]["id"]) {
				t.Errorf("cut block %q is not the page's block", w.BlockID)
			}
			if !w.Time.Equal(e.clock.Now().UTC()) {
				t.Errorf("time %v, want the server clock %v", w.Time, e.clock.Now())
			}
			w.RequestID, w.Time, w.PageID, w.Path, w.BlockID = "", tt.want.Time, "", "", ""
			if !reflect.DeepEqual(w, tt.want) {
				t.Errorf("recorded %+v\nwant     %+v", w, tt.want)
			}
		})
	}
}

// TestPartialWritePages checks that the fault cuts only writes to the
// pages it names, by title or by ID (dashes or not), an append to a block
// nested in a page counting as a write to that page.
func TestPartialWritePages(t *testing.T) {
	e := newEnv(t, Config{})
	root := e.srv.RootPageID()
	kept := e.createPage(root, "Kept")
	cutByTitle := e.createPage(root, "Cut by title")
	cutByID := e.createPage(root, "Cut by ID")
	toggle := e.append(cutByID, withChildren("toggle", map[string]any{"rich_text": rt(text("More"))}, para("inside")))[0].(map[string]any)["id"].(string)
	e.srv.SetFaults(Faults{PartialWrite: 1, PartialWritePages: []string{"Cut by title", compactID(cutByID)}})

	e.append(kept, paras("k1", "k2")...)
	e.append(cutByTitle, paras("t1", "t2")...)
	e.append(toggle, paras("n1", "n2", "n3", "n4")...)
	e.srv.SetFaults(Faults{})

	got := e.srv.PartialWrites()
	var pages []string
	var sent []int
	for _, w := range got {
		pages = append(pages, w.PageTitle)
		sent = append(sent, w.Sent)
	}
	if want := []string{"Cut by title", "Cut by ID"}; !reflect.DeepEqual(pages, want) {
		t.Errorf("cut pages %q, want %q", pages, want)
	}
	if !reflect.DeepEqual(sent, []int{2, 4}) {
		t.Errorf("sent %v, want [2 4]", sent)
	}
	if n := len(e.listAll(kept, 100)); n != 2 {
		t.Errorf("the page not named kept %d of 2 children", n)
	}
	if n := len(e.listAll(toggle, 100)); n != 1+2 {
		t.Errorf("the nested block holds %d children, want its own 1 and 2 of the 4 appended", n)
	}
}

// TestPartialWriteAPI switches the fault through the control API, reads
// back what it cut, and clears the record.
func TestPartialWriteAPI(t *testing.T) {
	e := newEnv(t, Config{})
	target := e.createPage(e.srv.RootPageID(), "Trip notes")
	ctl := func(method, path, body string) map[string]any {
		t.Helper()
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, httptest.NewRequest(method, "http://notion.test"+path, strings.NewReader(body)))
		if rec.Code != 200 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, httptest.NewRequest("PUT", "http://notion.test/_emulator/faults", strings.NewReader(`{"partial_write":1,"partial_write_cut":"half"}`)))
	if rec.Code != 400 {
		t.Errorf("an unknown cut: %d %s, want 400", rec.Code, rec.Body)
	}
	f := ctl("PUT", "/_emulator/faults", `{"partial_write":1,"partial_write_pages":["Trip notes"],"partial_write_cut":"children"}`)
	if f["partial_write"] != 1.0 || !reflect.DeepEqual(f["partial_write_pages"], []any{"Trip notes"}) || f["partial_write_cut"] != "children" {
		t.Fatalf("faults answer %v", f)
	}
	answer := e.ok("PATCH", "/v1/blocks/"+target+"/children", map[string]any{"children": paras("x", "y")})
	ws := ctl("GET", "/_emulator/partial-writes", "")["partial_writes"].([]any)
	if len(ws) != 1 {
		t.Fatalf("partial writes %v, want 1", ws)
	}
	w := ws[0].(map[string]any)
	if w["request_id"] != answer["request_id"] || w["page_title"] != "Trip notes" || w["cut"] != "children" || w["sent"] != 2.0 || w["kept"] != 1.0 {
		t.Errorf("partial write %v", w)
	}
	if ws := ctl("DELETE", "/_emulator/partial-writes", "")["partial_writes"].([]any); len(ws) != 0 {
		t.Errorf("after DELETE: %v", ws)
	}
	ctl("PUT", "/_emulator/faults", `{}`)
	e.append(target, paras("z1", "z2")...)
	if got := len(e.srv.PartialWrites()); got != 0 {
		t.Errorf("%d writes cut with the fault off", got)
	}
}
