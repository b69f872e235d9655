package activities_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

// TestUntitledPagesAreNamed: Graph lists an untitled page with "title": ""
// (graph-reality.md fact 36) and its HTML has an empty <title>. ListPages
// names it onenote.UntitledPage, as OneNote's page list does, and
// WritePage writes that title even when its input carries none (an input
// recorded before the client named untitled pages); two untitled pages
// get a row each, told apart by their page IDs.
func TestUntitledPagesAreNamed(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta func(activities.PageMeta) activities.PageMeta // the WritePage input's page
	}{
		{"as listed", func(p activities.PageMeta) activities.PageMeta { return p }},
		{"input without a title", func(p activities.PageMeta) activities.PageMeta { p.Title = ""; return p }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			layout := laidOut(t, f)
			sec := f.nb.Sections[0]
			var added []string
			for range 2 {
				id, err := f.graph.AddPage(sec.ID, "", "written without a title")
				if err != nil {
					t.Fatal(err)
				}
				added = append(added, id)
			}
			pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
				activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]activities.PageMeta{}
			for _, p := range pages.Pages {
				if p.Title == "" {
					t.Errorf("page %s listed without a title", p.ID)
				}
				byID[p.ID] = p
			}
			db := layout.SectionDatabaseIDs[sec.ID]
			for _, id := range added {
				p, ok := byID[id]
				if !ok || p.Title != onenote.UntitledPage {
					t.Fatalf("untitled page %s listed as %+v, want the title %q", id, p, onenote.UntitledPage)
				}
				key := activities.StageKey("untitled/" + id)
				if _, err := run[activities.ContentMeta](t, f, activities.FetchContentName,
					activities.FetchContentInput{User: "alice", PageID: id, Key: key}); err != nil {
					t.Fatal(err)
				}
				if _, err := run[activities.WritePageResult](t, f, activities.WritePageName,
					activities.WritePageInput{Key: key, DatabaseID: db, Page: tc.meta(p), SectionPath: sec.DisplayName}); err != nil {
					t.Fatalf("WritePage of untitled page %s: %v", id, err)
				}
			}
			nc, err := notion.NewClient(notion.Config{BaseURL: f.notionURL, Token: notion.StaticToken(f.notionTok)})
			if err != nil {
				t.Fatal(err)
			}
			rows := map[string]string{}
			if err := nc.Rows(context.Background(), db, notion.RowFilter{}, func(r notion.Row) error {
				rows[r.OneNotePageID] = r.Title
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for _, id := range added {
				if title, ok := rows[id]; !ok || title != onenote.UntitledPage {
					t.Errorf("row of untitled page %s: %q (present %v), want %q", id, title, ok, onenote.UntitledPage)
				}
			}
		})
	}
}

// errTokens hands out token sources that fail with err.
type errTokens struct{ err error }

func (e errTokens) TokenSource(string) (onenote.TokenSource, error) {
	return onenote.TokenSourceFunc(func(context.Context) (string, error) { return "", e.err }), nil
}

// TestInactiveRefreshTokenStops: the token store's answer to a refresh
// token Microsoft rejects (invalid_grant, AADSTS700082 "inactive" and the
// like, graph-reality.md fact 32; auth tests it against the emulator)
// stops the Graph activity at once, not retryably, with the store's
// message naming the login command, and without a Graph request.
func TestInactiveRefreshTokenStops(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"inactive", fmt.Errorf(`Microsoft sign-in for user "alice" has expired or was revoked (Microsoft identity platform: invalid_grant: AADSTS700082: The refresh token has expired due to inactivity.): run "starter login --user alice" to sign in again: %w`, auth.ErrSignInExpired)},
		{"not signed in", fmt.Errorf(`no Microsoft sign-in stored for user "alice": run "starter login --user alice": %w`, auth.ErrNotSignedIn)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.setActivities(t, errTokens{tc.err})
			before := f.graph.Stats().Requests
			_, err := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName, activities.ListNotebooksInput{User: "alice"})
			var app *temporal.ApplicationError
			if !errors.As(err, &app) || app.Type() != failure.NotSignedIn || !app.NonRetryable() {
				t.Fatalf("error %v, want a non-retryable %s", err, failure.NotSignedIn)
			}
			if !strings.Contains(err.Error(), `run "starter login --user alice"`) {
				t.Errorf("error %q does not say to run starter login", err)
			}
			if got := f.graph.Stats().Requests - before; got != 0 {
				t.Errorf("%d Graph requests without a token", got)
			}
		})
	}
}
