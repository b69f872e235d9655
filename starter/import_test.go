package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fx "github.com/notebridge/notebridge/internal/onestorefixture"
)

// importNotebook writes a package with a section, a locked section and a
// group, and returns its path.
func importNotebook(t *testing.T) string {
	t.Helper()
	nb := fx.Notebook{Name: "Trip Notes", Group: fx.Group{GUID: fx.GUID{0x7A, 1},
		Sections: []fx.SectionSpec{
			{Name: "Plans", GUID: fx.GUID{0x7B, 1}, Pages: []fx.Page{
				{GUID: fx.GUID{0x7C, 1}, Title: "Route", Image: []byte("\x89PNG\r\n\x1a\nx"), File: []byte("%PDF-1.7"), FileName: "map.pdf",
					Ink: [][2]int64{{1, 2}, {3, 4}}},
				{GUID: fx.GUID{0x7C, 2}, Title: "Day 1", Level: 1},
			}},
			{Name: "Private", GUID: fx.GUID{0x7B, 2}, Encrypted: true, Pages: []fx.Page{{GUID: fx.GUID{0x7C, 3}, Title: "x"}}},
		},
		Groups: []fx.Group{{Name: "Past", GUID: fx.GUID{0x7A, 2}, Sections: []fx.SectionSpec{
			{Name: "2020", GUID: fx.GUID{0x7B, 3}, Pages: []fx.Page{{GUID: fx.GUID{0x7C, 4}, Title: "Rome"}}}}}},
	}}
	p := filepath.Join(t.TempDir(), "Trip Notes.onepkg")
	if err := os.WriteFile(p, nb.Package(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImportDryRunListsTheFile: --dry-run --json lists the sections in
// order with their groups and the pages with level, order and counts,
// without a Temporal server (none runs here).
func TestImportDryRunListsTheFile(t *testing.T) {
	t.Setenv("TEMPORAL_ADDRESS", "127.0.0.1:1") // nothing listens: a dry run must not dial
	file := importNotebook(t)
	r := runOffline(t, "import", "--file", file, "--dry-run", "--json")
	if r.code != exitOK {
		t.Fatalf("dry run: %v", r)
	}
	var got importedJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not the listing: %v\n%s", err, r.stdout)
	}
	var lines []string
	for _, s := range got.Sections {
		line := strings.Join(append(append([]string(nil), s.Groups...), s.Name), "/")
		if s.Locked {
			line += " locked"
		}
		for _, p := range s.Pages {
			line += " " + strings.Repeat(">", p.Level) + p.Title
			if p.Images+p.Files+p.Ink > 0 {
				line += "[" + strings.Repeat("i", p.Images) + strings.Repeat("f", p.Files) + strings.Repeat("k", p.Ink) + "]"
			}
		}
		lines = append(lines, line)
	}
	want := "Plans Route[ifk] >Day 1|Private locked|Past/2020 Rome"
	if got.Type != "fileListing" || got.Notebook != "Trip Notes" || got.Pages != 3 || strings.Join(lines, "|") != want ||
		got.NotebookID != "0000017a-0000-0000-0000-000000000000" {
		t.Errorf("listing %q (%s, %d pages): %q, want %q", got.Notebook, got.NotebookID, got.Pages, strings.Join(lines, "|"), want)
	}
	text := runOffline(t, "import", "--file", file, "--dry-run")
	for _, want := range []string{`Notebook "Trip Notes"`, "Private: password-protected, will be skipped", "Past / 2020 (1 pages)",
		"1. Route (1 images, 1 files, 1 ink)", "2.   Day 1"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("text listing lacks %q:\n%s", want, text.stdout)
		}
	}
}

// TestImportRefusesBadFilesByName: before anything starts, a missing, an
// empty and a wrong-format file are refused, each named.
func TestImportRefusesBadFilesByName(t *testing.T) {
	t.Setenv("TEMPORAL_ADDRESS", "127.0.0.1:1")
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.onepkg")
	wrong := filepath.Join(dir, "notes.one")
	for p, b := range map[string][]byte{empty: nil, wrong: []byte("%PDF-1.7 not a section, but long enough to be read as one")} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"import", "--notion-parent", "p"}, exitUsage, []string{"--file is required"}},
		{[]string{"import", "--file", filepath.Join(dir, "missing.onepkg"), "--notion-parent", "p"}, exitFailed, []string{"missing.onepkg", "cannot be read"}},
		{[]string{"import", "--file", empty, "--notion-parent", "p"}, exitFailed, []string{empty, "is empty"}},
		{[]string{"import", "--file", wrong, "--notion-parent", "p"}, exitFailed, []string{wrong, "not a OneNote notebook"}},
		{[]string{"import", "--file", importNotebook(t)}, exitUsage, []string{"(flag --notion-parent)"}},
	} {
		r := runOffline(t, tc.args...)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d: %v", tc.args, r.code, tc.code, r)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout+r.stderr, w) {
				t.Errorf("%v: output lacks %q: %v", tc.args, w, r)
			}
		}
	}
}
