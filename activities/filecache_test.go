package activities

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fx "github.com/notebridge/notebridge/internal/onestorefixture"
)

func writeNotebook(t *testing.T, path, section string, at time.Time) {
	t.Helper()
	nb := fx.Notebook{Name: "N", Group: fx.Group{Sections: []fx.SectionSpec{{Name: section, GUID: fx.GUID{1},
		Pages: []fx.Page{{GUID: fx.GUID{2}, Title: "p"}}}}}}
	if err := os.WriteFile(path, nb.Package(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestFileCache: a worker keeps at most maxOpenFiles notebooks open,
// closing the least recently used one not in use, and reopens a file that
// changed on disk, also while the old copy is still in use.
func TestFileCache(t *testing.T) {
	dir := t.TempDir()
	c := &fileCache{}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var paths []string
	for i := range maxOpenFiles + 2 {
		p := filepath.Join(dir, fmt.Sprintf("n%d.onepkg", i))
		writeNotebook(t, p, fmt.Sprintf("S%d", i), t0)
		paths = append(paths, p)
		_, release, err := c.open(p)
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if len(c.files) != maxOpenFiles {
		t.Errorf("%d notebooks open, want %d", len(c.files), maxOpenFiles)
	}
	for _, f := range c.files {
		if f.path == paths[0] || f.path == paths[1] {
			t.Errorf("%s is still open; it was used least recently", f.path)
		}
	}

	p := paths[len(paths)-1]
	old, releaseOld, err := c.open(p)
	if err != nil {
		t.Fatal(err)
	}
	writeNotebook(t, p, "Changed", t0.Add(time.Hour))
	for range 2 {
		f, release, err := c.open(p)
		if err != nil {
			t.Fatal(err)
		}
		if f == old || f.tree.Sections[0].Name != "Changed" {
			t.Fatalf("the changed file was not read again: sections %+v", f.tree.Sections)
		}
		release()
	}
	releaseOld()
	releaseOld() // a second release changes nothing
	if _, release, err := c.open(p); err != nil {
		t.Fatal(err)
	} else {
		release()
	}
	n := 0
	for _, f := range c.files {
		if f.path == p {
			n++
		}
	}
	if n != 1 || old.refs != 0 {
		t.Errorf("%d copies of %s open (the old one has %d users), want the new one only", n, p, old.refs)
	}
	if err := c.close(); err != nil || len(c.files) != 0 {
		t.Errorf("close: %v, %d left", err, len(c.files))
	}
}

// TestImportDir: with an import folder set, a file in it (or below) is
// read, and one outside it, or reached through a link inside it that
// points outside, is refused naming the folder.
func TestImportDir(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.MkdirAll(filepath.Join(root, "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(root, "team", "in.onepkg")
	out := filepath.Join(outside, "out.onepkg")
	writeNotebook(t, in, "In", t0)
	writeNotebook(t, out, "Out", t0)
	link := filepath.Join(root, "link.onepkg")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	c := &fileCache{root: root}
	for _, tc := range []struct {
		path string
		ok   bool
	}{{in, true}, {out, false}, {link, false}, {filepath.Join(root, "..", filepath.Base(outside), "out.onepkg"), false}} {
		_, release, err := c.open(tc.path)
		if release != nil {
			release()
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok %v", tc.path, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "outside this worker's import folder "+root) {
			t.Errorf("%s: %v does not name the import folder", tc.path, err)
		}
	}
	_ = c.close()
}
