package activities_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	fx "github.com/notebridge/notebridge/internal/onestorefixture"
	"github.com/notebridge/notebridge/notion"
)

// fileNotebook is a notebook of files: a section with an image, an
// attachment and ink on its first page and a subpage, a locked section,
// and a group.
func fileNotebook() fx.Notebook {
	created := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	return fx.Notebook{Name: "Field Notes", Group: fx.Group{GUID: fx.GUID{0xAB, 1},
		Sections: []fx.SectionSpec{
			{Name: "Trips", GUID: fx.GUID{0x5E, 1}, Pages: []fx.Page{
				{GUID: fx.GUID{0xC1, 0xAA}, Title: "Alps", Created: created, Paras: []fx.Para{{Text: "Day one", Bold: true}},
					Image: []byte("\x89PNG\r\n\x1a\nalps"), ImageAlt: "ridge", File: []byte("%PDF-1.7 map"), FileName: "map.pdf",
					Ink: [][2]int64{{1000, 2000}, {1500, 2600}}},
				{GUID: fx.GUID{0xC2}, Title: "Alps day two", Level: 1, Created: created.Add(time.Hour), Paras: []fx.Para{{Text: "Rain"}}},
			}},
			{Name: "Diary", GUID: fx.GUID{0x5E, 2}, Encrypted: true, Pages: []fx.Page{{GUID: fx.GUID{0xC3}, Title: "secret"}}},
		},
		Groups: []fx.Group{{Name: "Archive", GUID: fx.GUID{0xAB, 2}, Sections: []fx.SectionSpec{
			{Name: "2019", GUID: fx.GUID{0x5E, 3}, Pages: []fx.Page{{GUID: fx.GUID{0xC4}, Title: "Old"}}}}}},
	}}
}

func writePackage(t *testing.T, nb fx.Notebook) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), nb.Name+".onepkg")
	if err := os.WriteFile(p, nb.Package(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFileSourceThroughTheSharedPipeline reads a package's tree and
// listing, stages a page from it and writes it with the Graph path's
// WritePage: images, files and ink land in Notion, the row is keyed by
// the page GUID, a second write changes nothing, and Graph hears nothing.
func TestFileSourceThroughTheSharedPipeline(t *testing.T) {
	f := newFixture(t)
	file := writePackage(t, fileNotebook())
	graphBefore := f.graph.Stats().Users["alice"].Requests

	tree, err := run[activities.NotebookTree](t, f, activities.ReadFileTreeName, activities.ReadFileTreeInput{File: file})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tree.Sections {
		got = append(got, s.Name+"="+s.ID)
	}
	for _, g := range tree.SectionGroups {
		for _, s := range g.Sections {
			got = append(got, g.Name+"/"+s.Name+"="+s.ID)
		}
	}
	want := []string{"Trips=" + activities.FileKey([16]byte{0x5E, 1}), "Diary=" + activities.FileKey([16]byte{0x5E, 2}),
		"Archive/2019=" + activities.FileKey([16]byte{0x5E, 3})}
	if tree.Name != "Field Notes" || tree.ID != activities.FileKey([16]byte{0xAB, 1}) || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("tree %q (%s): %v, want %v", tree.Name, tree.ID, got, want)
	}

	list, err := run[activities.ListFilePagesResult](t, f, activities.ListFilePagesName,
		activities.ListFilePagesInput{File: file, SectionID: tree.Sections[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Pages) != 2 {
		t.Fatalf("listing: %+v", list.Pages)
	}
	for _, b := range []struct {
		skip, top int
		want      string
		done      bool
	}{{0, 1, "Alps", false}, {1, 1, "Alps day two", true}, {1, 100, "Alps day two", true}, {2, 100, "", true}} {
		batch, err := run[activities.ListFilePagesResult](t, f, activities.ListFilePagesName,
			activities.ListFilePagesInput{File: file, SectionID: tree.Sections[0].ID, Skip: b.skip, Top: b.top})
		var titles []string
		for _, p := range batch.Pages {
			titles = append(titles, p.Title)
		}
		if err != nil || strings.Join(titles, ",") != b.want || batch.Done != b.done {
			t.Errorf("batch skip %d top %d: %q done %v, %v; want %q done %v", b.skip, b.top, titles, batch.Done, err, b.want, b.done)
		}
	}
	p, sub := list.Pages[0], list.Pages[1]
	if p.ID != "0000aac1-0000-0000-0000-000000000000" || p.LinkID != p.ID || p.Title != "Alps" || p.Order != 0 ||
		sub.Level != 1 || sub.Order != 1 || p.LastModified == "" || p.Created == "" {
		t.Errorf("pages: %+v, %+v", p, sub)
	}
	_, err = run[activities.ListFilePagesResult](t, f, activities.ListFilePagesName,
		activities.ListFilePagesInput{File: file, SectionID: tree.Sections[1].ID})
	if appType(err) != failure.FileProtected {
		t.Errorf("locked section: %v, want a %s error", err, failure.FileProtected)
	}

	layout, err := run[notion.Layout](t, f, activities.EnsureLayoutName,
		activities.EnsureLayoutInput{ParentPageID: f.root, Notebook: tree})
	if err != nil {
		t.Fatal(err)
	}
	db := layout.SectionDatabaseIDs[tree.Sections[0].ID]
	key := activities.StageKey("run/" + p.ID)
	meta, err := run[activities.FileContentMeta](t, f, activities.FetchFileContentName,
		activities.FetchFileContentInput{File: file, SectionID: tree.Sections[0].ID, PageID: p.ID, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Title != "Alps" || len(meta.Lost) != 0 || len(meta.Resources) != 0 || len(meta.SHA256) != 64 {
		t.Errorf("content meta: %+v", meta)
	}
	w, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: db, Page: p, SectionPath: "Field Notes / Trips"})
	if err != nil {
		t.Fatal(err)
	}
	if w.NotionPageID == "" || w.Unchanged || w.Losses != 0 {
		t.Errorf("write: %+v", w)
	}
	var uploads []string
	for _, u := range f.notion.Export().Uploads {
		uploads = append(uploads, u.Filename)
	}
	if len(uploads) != 3 {
		// The image, the attachment and the drawing.
		t.Errorf("uploads %v, want the image, map.pdf and the drawing", uploads)
	}
	ex, err := run[activities.ExistingRowsResult](t, f, activities.ExistingRowsName,
		activities.ExistingRowsInput{DatabaseID: db, Pages: map[string]string{p.ID: p.LastModified}})
	if err != nil || ex.Done[p.ID] != w.NotionPageID {
		t.Errorf("the row is not found by the page GUID: %v, %v", ex.Done, err)
	}
	again, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: db, Page: p, SectionPath: "Field Notes / Trips"})
	if err != nil || !again.Unchanged || again.NotionPageID != w.NotionPageID {
		t.Errorf("second write: %+v, %v", again, err)
	}
	if n := f.graph.Stats().Users["alice"].Requests - graphBefore; n != 0 {
		t.Errorf("the file source sent %d Graph requests", n)
	}
}

// TestFileSourceRefusesByName: a missing file, a relative path and a file
// that is no OneNote file fail typed, naming the file.
func TestFileSourceRefusesByName(t *testing.T) {
	f := newFixture(t)
	junk := filepath.Join(t.TempDir(), "notes.onepkg")
	if err := os.WriteFile(junk, []byte("not a cabinet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"/nowhere/Notes.onepkg", "Notes.onepkg", junk} {
		_, err := run[activities.NotebookTree](t, f, activities.ReadFileTreeName, activities.ReadFileTreeInput{File: file})
		if appType(err) != failure.FileUnreadable || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: %v, want a %s error naming it", file, err, failure.FileUnreadable)
		}
	}
}

// TestDamagedSectionOfAPackageIsNamedByThePackage: a damaged section of a
// .onepkg fails its listing with an error naming "<package>.onepkg:
// <section>.one" (once) and the structure where reading stopped, never the
// worker's temporary folder; the dry run's listing says the same, and the
// other sections list.
func TestDamagedSectionOfAPackageIsNamedByThePackage(t *testing.T) {
	f := newFixture(t)
	spec := fileNotebook()
	var names []string
	var contents [][]byte
	for _, file := range spec.Files() {
		if file.Path == "Archive/2019.one" {
			file.Data = file.Data[:len(file.Data)/2]
		}
		names = append(names, strings.ReplaceAll(spec.Name+"/"+file.Path, "/", `\`))
		contents = append(contents, file.Data)
	}
	pkg := filepath.Join(t.TempDir(), spec.Name+".onepkg")
	if err := os.WriteFile(pkg, fx.Cab(names, contents), 0o644); err != nil {
		t.Fatal(err)
	}
	want := pkg + ": Archive/2019.one: "
	tree, err := run[activities.NotebookTree](t, f, activities.ReadFileTreeName, activities.ReadFileTreeInput{File: pkg})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.SectionGroups) != 1 || len(tree.SectionGroups[0].Sections) != 1 {
		t.Fatalf("tree %+v, want the group with its damaged section", tree)
	}
	_, err = run[activities.ListFilePagesResult](t, f, activities.ListFilePagesName,
		activities.ListFilePagesInput{File: pkg, SectionID: tree.SectionGroups[0].Sections[0].ID})
	msg := fmt.Sprint(err)
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		msg = app.Message()
	}
	t.Log(msg)
	if appType(err) != failure.FileUnreadable || !strings.Contains(msg, "reading "+want) || strings.Count(msg, pkg) != 1 ||
		!strings.Contains(msg, " at offset ") {
		t.Errorf("listing the damaged section: %v, want a %s error naming %q once and the structure", err, failure.FileUnreadable, want)
	}
	if strings.Contains(msg, os.TempDir()+string(filepath.Separator)+"onepkg-") {
		t.Errorf("listing the damaged section: %v names the temporary folder", err)
	}
	if _, err := run[activities.ListFilePagesResult](t, f, activities.ListFilePagesName,
		activities.ListFilePagesInput{File: pkg, SectionID: tree.Sections[0].ID}); err != nil {
		t.Errorf("the other sections no longer list: %v", err)
	}
	listing, err := activities.ListFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range listing.Sections {
		if s.Name == "2019" && (!strings.HasPrefix(s.Error, want) || strings.Contains(s.Error, "onepkg-")) {
			t.Errorf("dry run lists the damaged section's error as %q, want it to start %q", s.Error, want)
		}
	}
}
