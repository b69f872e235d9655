package workflows

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
)

func TestValidateNamesTheBadField(t *testing.T) {
	ok := MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "abc123"}
	for _, tc := range []struct {
		field string
		edit  func(*MigrateInput)
	}{
		{"user", func(in *MigrateInput) { in.User = "" }},
		{"user", func(in *MigrateInput) { in.User = "al ice" }},
		{"notebook", func(in *MigrateInput) { in.Notebook = " " }},
		{"notionParent", func(in *MigrateInput) { in.NotionParent = "" }},
		{"include", func(in *MigrateInput) { in.Include = []string{""} }},
		{"exclude", func(in *MigrateInput) { in.Include, in.Exclude = []string{"A"}, []string{"A"} }},
		{"limits", func(in *MigrateInput) { in.Limits = "fast" }},
		{"pageParallelism", func(in *MigrateInput) { in.PageParallelism = 99 }},
		{"imageAlt", func(in *MigrateInput) { in.ImageAlt = "ocr" }},
		{"file", func(in *MigrateInput) { in.File = "Notes.onepkg" }},
		{"file", func(in *MigrateInput) { in.File = "C:Notes.onepkg" }},
		{"sync", func(in *MigrateInput) { in.File, in.Sync = "/data/Notes.onepkg", &SyncOptions{} }},
		{"adoptNotebookPage", func(in *MigrateInput) { in.File, in.AdoptNotebookPage = "/data/Notes.onepkg", "abc" }},
		{"adoptNotebookPage", func(in *MigrateInput) { in.AdoptNotebookPage, in.Sync = "https://notion.so/x y", &SyncOptions{} }},
		{"adoptNotebookPage", func(in *MigrateInput) { in.AdoptNotebookPage = "https://www.notion.so/acme/Notes-abc" }},
	} {
		in := ok
		tc.edit(&in)
		err := in.Validate()
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != failure.InvalidInput {
			t.Errorf("%s: error %v, want a non-retryable %s", tc.field, err, failure.InvalidInput)
			continue
		}
		if !strings.Contains(err.Error(), `"`+tc.field+`"`) {
			t.Errorf("error %q does not name field %q", err, tc.field)
		}
	}
	in := ok
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	if in.SectionParallelism != 3 || in.PageParallelism != 3 || in.PagesPerRun != 200 {
		t.Errorf("defaults not filled: %+v", in)
	}
	for _, file := range []string{"/data/Notes.onepkg", `C:\Exports\Notes.onepkg`, `\\server\share\Notes.onepkg`} {
		fromFile := MigrateInput{User: "alice", File: file, NotionParent: "abc123"}
		if err := fromFile.Validate(); err != nil {
			t.Errorf("a file import needs no notebook: %v", err)
		}
	}
	// A migration finds a file import's rows by page GUID (WritePage), as
	// a sync does: adopting needs no sync.
	for _, sync := range []*SyncOptions{nil, {}} {
		adopt := MigrateInput{User: "alice", Notebook: "x", NotionParent: "abc123", AdoptNotebookPage: "0123456789abcdef0123456789abcdef", Sync: sync}
		if err := adopt.Validate(); err != nil {
			t.Errorf("adoptNotebookPage with sync %v: %v", sync, err)
		}
	}
	dry := MigrateInput{User: "alice", Notebook: "x", DryRun: true}
	if err := dry.Validate(); err != nil {
		t.Errorf("a dry run needs no Notion parent: %v", err)
	}
}

func TestFilterSections(t *testing.T) {
	refs := []SectionRef{{ID: "s1", Name: "A", Path: "NB / A"}, {ID: "s2", Name: "B", Path: "NB / G / B"}, {ID: "s3", Name: "C", Path: "NB / G / C"}}
	got, err := filterSections(refs, []string{"G/B", "s3", "a"}, []string{"C"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "s1" || got[1].ID != "s2" {
		t.Errorf("got %+v", got)
	}
	if _, err := filterSections(refs, []string{"Nope"}, nil); err == nil || !strings.Contains(err.Error(), `"include"`) {
		t.Errorf("unknown section: %v", err)
	}
}

func TestEstimateDuration(t *testing.T) {
	spec := mustProfile(t, "onenote")
	if d := EstimateDuration(spec, 100); d != 0 {
		t.Errorf("100 requests fit in every window at once, got %s", d)
	}
	// 1,200 requests: the user's 400 an hour binds: 800 more take 2 h.
	if d := EstimateDuration(spec, 1200); d.Hours() != 2 {
		t.Errorf("1,200 requests: %s, want 2h", d)
	}
}

// TestContentOptionsInput: the content options are plain fields of the
// input an operator types, validated, and a bad imageAlt names the
// allowed values.
func TestContentOptionsInput(t *testing.T) {
	var in MigrateInput
	if err := json.Unmarshal([]byte(`{"user":"alice","notebook":"NB","notionParent":"p1",
		"skipImages":true,"skipAttachments":true,"skipInk":true,"imageAlt":"Caption","skipVerify":true}`), &in); err != nil {
		t.Fatal(err)
	}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	want := activities.ContentOptions{SkipImages: true, SkipAttachments: true, SkipInk: true, ImageAlt: "caption", SkipVerify: true}
	if in.ContentOptions != want {
		t.Errorf("options %+v, want %+v", in.ContentOptions, want)
	}
	bad := MigrateInput{User: "alice", Notebook: "NB", NotionParent: "p1", ContentOptions: activities.ContentOptions{ImageAlt: "ocr"}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `"drop" or "caption"`) {
		t.Errorf("imageAlt \"ocr\": %v, want an error naming \"drop\" or \"caption\"", err)
	}
	var typo MigrateInput
	_ = json.Unmarshal([]byte(`{"user":"alice","notebook":"NB","notionParent":"p1","skip_images":true}`), &typo)
	if err := typo.Validate(); err == nil || !strings.Contains(err.Error(), `did you mean "skipImages"`) {
		t.Errorf("misspelt option: %v", err)
	}
}
