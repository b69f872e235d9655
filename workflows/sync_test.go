package workflows

import (
	"encoding/json"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
)

// TestSyncInput: the sync option decodes from the workflow's JSON input,
// defaults to keeping deleted pages, and a bad deletes value names the
// field.
func TestSyncInput(t *testing.T) {
	for _, tc := range []struct {
		raw, deletes, badField string
	}{
		{raw: `{"sync":{}}`, deletes: DeletesKeep},
		{raw: `{"sync":{"deletes":"archive"}}`, deletes: DeletesArchive},
		{raw: `{"sync":{"deletes":"keep"}}`, deletes: DeletesKeep},
		{raw: `{"sync":{"deletes":"purge"}}`, badField: "sync.deletes"},
		{raw: `{"sync":{"delete":"archive"}}`, badField: "input"},
	} {
		var in MigrateInput
		raw := strings.Replace(tc.raw, "{", `{"user":"alice","notebook":"Work","notionParent":"abc123",`, 1)
		if err := json.Unmarshal([]byte(raw), &in); err != nil {
			t.Fatal(err)
		}
		err := in.Validate()
		if tc.badField != "" {
			var app *temporal.ApplicationError
			var field string
			if !asApp(err, &app) || app.Details(&field) != nil || field != tc.badField {
				t.Errorf("%s: error %v, want one naming %q", tc.raw, err, tc.badField)
			}
			continue
		}
		if err != nil || in.Sync == nil || in.Sync.Deletes != tc.deletes {
			t.Errorf("%s: %v, sync %+v; want deletes %q", tc.raw, err, in.Sync, tc.deletes)
		}
	}
}

func asApp(err error, app **temporal.ApplicationError) bool {
	a, ok := err.(*temporal.ApplicationError)
	*app = a
	return ok
}

// TestSyncSummary: the report's line says what was archived or kept.
func TestSyncSummary(t *testing.T) {
	r := SyncReport{Deletes: DeletesArchive, Listed: 36, ListCalls: 3, ContentChecks: 1}
	r.Added, r.Updated, r.Renamed, r.Moved, r.Archived, r.WobbleAgreed, r.Unchanged = 1, 3, 2, 2, 1, 1, 27
	want := "sync: 1 added, 3 updated, 2 renamed, 2 moved, 1 archived, 1 timestamp wobbles agreed, 27 unchanged, " +
		"0 rows placed again (parent, order or title) (36 pages listed in 3 listing requests, 1 content checks)"
	if got := r.Summary(); got != want {
		t.Errorf("summary:\n got %s\nwant %s", got, want)
	}
	r.Deletes, r.Archived, r.KeptDeleted = DeletesKeep, 0, 1
	if got := r.Summary(); !strings.Contains(got, "1 deleted in OneNote and kept") {
		t.Errorf("kept: %s", got)
	}
}
