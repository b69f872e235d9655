package onenote

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

const notebookTreeJSON = `{"value":[{
 "id":"nb1","displayName":"Work","createdDateTime":"2024-01-02T03:04:05Z","lastModifiedDateTime":"2024-05-06T07:08:09.1234567Z",
 "isDefault":true,"self":"https://graph.microsoft.com/v1.0/me/onenote/notebooks/nb1",
 "sectionsUrl":"https://graph.microsoft.com/v1.0/me/onenote/notebooks/nb1/sections",
 "links":{"oneNoteClientUrl":{"href":"onenote:https://x/Work"},"oneNoteWebUrl":{"href":"https://x/Work"}},
 "sections":[{"id":"s1","displayName":"Inbox","pagesUrl":"https://graph.microsoft.com/v1.0/me/onenote/sections/s1/pages"}],
 "sectionGroups":[{"id":"g1","displayName":"Projects",
   "sections":[{"id":"s2","displayName":"Alpha"}],
   "sectionGroups":[{"id":"g2","displayName":"Archive","sections":[{"id":"s3","displayName":"2023"}],"sectionGroups":[]}]}]
}],"@odata.nextLink":"NEXT"}`

func TestListNotebooksDecodesTree(t *testing.T) {
	var base string
	c, _, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1.0/me/onenote/notebooks" {
			t.Errorf("path = %q", r.URL.Path)
		}
		if got := r.URL.Query().Get("$expand"); got != ExpandNotebookTree && !r.URL.Query().Has("$skiptoken") {
			t.Errorf("$expand = %q", got)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(replaceNext(notebookTreeJSON, base+"/v1.0/me/onenote/notebooks?$skiptoken=2")))
	})
	base = srv.URL
	list, obs, err := c.ListNotebooks(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if obs.Cost != 1 || obs.Status != 200 {
		t.Errorf("obs = %+v", obs)
	}
	if len(list.Notebooks) != 1 || list.NextLink == "" {
		t.Fatalf("list = %+v", list)
	}
	nb := list.Notebooks[0]
	if nb.DisplayName != "Work" || !nb.IsDefault || nb.Links.OneNoteClientURL.Href != "onenote:https://x/Work" ||
		!nb.LastModifiedDateTime.Equal(time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)) {
		t.Errorf("notebook = %+v", nb)
	}
	refs := FlattenSections(nb)
	var paths [][]string
	var groups [][]string
	for _, r := range refs {
		paths = append(paths, r.Path)
		groups = append(groups, r.GroupIDs)
		if r.NotebookID != "nb1" || r.NotebookName != "Work" {
			t.Errorf("ref %+v lacks notebook", r)
		}
	}
	wantPaths := [][]string{{"Work", "Inbox"}, {"Work", "Projects", "Alpha"}, {"Work", "Projects", "Archive", "2023"}}
	wantGroups := [][]string{nil, {"g1"}, {"g1", "g2"}}
	if !reflect.DeepEqual(paths, wantPaths) || !reflect.DeepEqual(groups, wantGroups) {
		t.Errorf("paths = %q groups = %q", paths, groups)
	}
	// Following the nextLink is one more request to the same host.
	if _, _, err := c.ListNotebooks(context.Background(), list.NextLink); err != nil {
		t.Fatalf("next page: %v", err)
	}
	if _, _, err := c.ListNotebooks(context.Background(), "https://elsewhere.example/v1.0/me/onenote/notebooks"); KindOf(err) != KindInvalidArgument {
		t.Fatalf("foreign nextLink must be refused, got %v", err)
	}
}

func replaceNext(s, next string) string {
	return strings.Replace(s, `"NEXT"`, `"`+next+`"`, 1)
}

func TestGetNotebook(t *testing.T) {
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1.0/me/onenote/notebooks/nb!1" || r.URL.Query().Get("$expand") != ExpandNotebookTree {
			t.Errorf("request = %s", r.URL)
		}
		_, _ = w.Write([]byte(`{"id":"nb!1","displayName":"N","sections":[{"id":"s"}]}`))
	})
	nb, _, err := c.GetNotebook(context.Background(), "nb!1")
	if err != nil || nb.ID != "nb!1" || len(nb.Sections) != 1 {
		t.Fatalf("nb = %+v err = %v", nb, err)
	}
	if _, _, err := c.GetNotebook(context.Background(), ""); KindOf(err) != KindInvalidArgument {
		t.Fatalf("empty id: %v", err)
	}
}

func TestLibraryLimitError(t *testing.T) {
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeGraphError(w, http.StatusForbidden, "10008", "One or more of the document libraries on the user or group's OneDrive contains more than 5,000 OneNote items")
	})
	_, obs, err := c.ListNotebooks(context.Background(), "")
	var e *Error
	if !asError(err, &e) || e.Kind != KindConfiguration || e.IsRetryable() || e.Code != "10008" || obs.Code != "10008" || obs.Status != 403 {
		t.Fatalf("10008: %v", err)
	}
	if e.Hint == "" {
		t.Error("10008 must explain what to do")
	}
}
