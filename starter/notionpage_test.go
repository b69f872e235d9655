package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNotionPageID(t *testing.T) {
	const id = "01234567-89ab-cdef-0123-456789abcdef"
	const hex = "0123456789abcdef0123456789abcdef"
	const other = "fedcba9876543210fedcba9876543210"
	for _, tc := range []struct {
		ref, want, refused string
	}{
		{ref: hex, want: id},
		{ref: "  01234567-89AB-CDEF-0123-456789ABCDEF ", want: id},
		{ref: "https://www.notion.so/acme/Adopted-Notes-" + hex, want: id},
		{ref: "https://www.notion.so/acme/Adopted-Notes-" + hex + "?pvs=4", want: id},
		{ref: "https://www.notion.so/" + hex + "#" + other, want: id},
		{ref: "https://acme.notion.site/Adopted-Notes-" + hex, want: id},
		{ref: "www.notion.so/acme/Notes-" + hex, want: id},
		// A page opened over a database (peek): the page.
		{ref: "https://www.notion.so/acme/" + other + "?v=" + other + "&p=" + hex + "&pm=s", want: id},
		{ref: "https://www.notion.so/acme/" + other + "?v=" + other, refused: "database view"},
		{ref: "", refused: "empty"},
		{ref: "Adopted Notes", refused: "neither a Notion page ID"},
		{ref: hex[:31], refused: "neither a Notion page ID"},
		{ref: hex[:31] + "g", refused: "neither a Notion page ID"},
		{ref: "https://www.notion.so/acme/Adopted-Notes", refused: "without a Notion page ID"},
		{ref: "ftp://www.notion.so/" + hex, refused: "neither a Notion page ID"},
	} {
		got, err := notionPageID(tc.ref)
		switch {
		case tc.refused == "" && (err != nil || got != tc.want):
			t.Errorf("notionPageID(%q) = %q, %v; want %q", tc.ref, got, err, tc.want)
		case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("notionPageID(%q) = %q, %v; want an error saying %q", tc.ref, got, err, tc.refused)
		}
	}
}

// TestAdoptNotebookPageFlag: sync create and migrate take the page to
// adopt by link or ID and send its ID; sync create's dry run shows it
// without contacting anything; a link that names no page is a usage
// error.
func TestAdoptNotebookPageFlag(t *testing.T) {
	t.Setenv("TEMPORAL_ADDRESS", "127.0.0.1:1") // nothing listens: a dry run must not need it
	const link = "https://www.notion.so/acme/Adopted-Notes-0123456789abcdef0123456789abcdef?pvs=4"
	const id = "01234567-89ab-cdef-0123-456789abcdef"
	create := []string{"sync", "create", "--user", "alice", "--notebook", "nb1", "--notion-parent", "p1", "--adopt-notebook-page", link}

	r := runOffline(t, append(create, "--dry-run")...)
	if r.code != exitOK || !strings.Contains(r.stdout, `"adoptNotebookPage":"`+id+`"`) || !strings.Contains(r.stdout, "takes over Notion page "+id) ||
		!strings.Contains(r.stdout, "sync/alice/nb1") || !strings.Contains(r.stdout, "nothing created") {
		t.Errorf("sync create --dry-run:\n%v", r)
	}
	r = runOffline(t, append(create, "--dry-run", "--json")...)
	var dry syncDryRunJSON
	if err := json.Unmarshal([]byte(r.stdout), &dry); err != nil || r.code != exitOK {
		t.Fatalf("sync create --dry-run --json: %v\n%v", err, r)
	}
	if dry.Type != "sync-dry-run" || dry.Input.AdoptNotebookPage != id || dry.Input.Sync == nil || dry.ScheduleID != "sync/alice/nb1" {
		t.Errorf("sync create --dry-run --json: %+v", dry)
	}
	// Without --dry-run the page is in the schedule's input too, as the
	// help's temporal command shows.
	if r := runOffline(t, append(create, "--help")...); !strings.Contains(r.stdout, `"adoptNotebookPage":"`+id+`"`) {
		t.Errorf("sync create --help does not show the page in the input:\n%s", r.stdout)
	}
	migrate := []string{"migrate", "--user", "alice", "--notebook", "nb1", "--notion-parent", "p1", "--adopt-notebook-page", id}
	if r := runOffline(t, append(migrate, "--help")...); !strings.Contains(r.stdout, `"adoptNotebookPage":"`+id+`"`) {
		t.Errorf("migrate --help does not show the page in the input:\n%s", r.stdout)
	}

	view := "https://www.notion.so/acme/fedcba9876543210fedcba9876543210?v=fedcba9876543210fedcba9876543210"
	for _, args := range [][]string{
		{"sync", "create", "--user", "alice", "--notebook", "nb1", "--notion-parent", "p1", "--adopt-notebook-page", view, "--dry-run"},
		{"migrate", "--user", "alice", "--notebook", "nb1", "--notion-parent", "p1", "--adopt-notebook-page", "Adopted Notes"},
	} {
		if r := runOffline(t, args...); r.code != exitUsage || !strings.Contains(r.stderr, "--adopt-notebook-page") {
			t.Errorf("%v: want a usage error naming the flag:\n%v", args, r)
		}
	}
	// A link in --input is checked as the flag is.
	in := `{"user":"alice","notebook":"nb1","notionParent":"p1","sync":{},"adoptNotebookPage":"https://www.notion.so/acme/Notes"}`
	if r := runOffline(t, "migrate", "--input", in); r.code != exitUsage || !strings.Contains(r.stderr, "without a Notion page ID") ||
		!strings.Contains(r.stderr, "(flag --adopt-notebook-page)") {
		t.Errorf("migrate --input with a link without an ID:\n%v", r)
	}
}
