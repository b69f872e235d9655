package activities_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/onenote"
)

// TestLostWorkersStagedPagesAreSwept: worker A stages a page (content
// and resources) and is lost mid-page; worker B, sharing the staging
// directory, does the page and cleans it. B's sweep leaves A's staging
// while A lives and removes it once A is gone: nothing of the page is
// left on disk once it is done. Staged files are private to the user.
func TestLostWorkersStagedPagesAreSwept(t *testing.T) {
	f := newFixture(t)
	layout := laidOut(t, f)
	sec := f.nb.Sections[0]
	pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
	if err != nil {
		t.Fatal(err)
	}
	p := pages.Pages[0]
	stage := func(key activities.StageKey) {
		t.Helper()
		meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName, activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
			activities.FetchResourcesInput{User: "alice", Key: key, Resources: meta.Resources}); err != nil {
			t.Fatal(err)
		}
	}

	// Worker A stages the page.
	a := f.acts
	stage(activities.StageKey("run-1/" + p.ID))
	aFiles := files(t, activities.ProcessStaging(a))
	if len(aFiles) < 2 {
		t.Fatalf("worker A staged %v, want the page and its resources", aFiles)
	}
	for path, mode := range aFiles {
		if mode.Perm() != 0o600 {
			t.Errorf("staged %s has mode %v, want 0600", path, mode.Perm())
		}
	}
	// Worker B starts beside it; A is alive, so B's sweep keeps A's page.
	f.setActivities(t, tokens{"alice": f.graph.IssueToken("alice", []string{"Notes.Read"}, time.Hour)})
	b := f.acts
	t.Cleanup(func() { b.Close() })
	if s, err := b.SweepStaging(); err != nil || s.Workers != 0 {
		t.Fatalf("sweep beside a live worker: %+v, %v", s, err)
	}
	if got := files(t, activities.ProcessStaging(a)); len(got) != len(aFiles) {
		t.Fatalf("the sweep removed a live worker's staged page: %d of %d files left", len(got), len(aFiles))
	}
	// A is lost mid-page; B does the page again, and cleans it.
	activities.Abandon(a)
	key := activities.StageKey("run-2/" + p.ID)
	stage(key)
	if _, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: layout.SectionDatabaseIDs[sec.ID], Page: p, SectionPath: "NB / S"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.env.ExecuteActivity(activities.CleanPageName, key); err != nil {
		t.Fatal(err)
	}
	s, err := b.SweepStaging()
	if err != nil || s.Workers != 1 {
		t.Errorf("sweep after A was lost: %+v, %v; want A's directory removed", s, err)
	}
	if left := files(t, f.dir); len(left) != 1 {
		t.Errorf("the page is done but the staging directory holds %v, want only B's lock", left)
	}
	// A page left by a session that ended without cleaning, in B's
	// own directory, goes once it is older than a session lives.
	stage(activities.StageKey("run-3/" + p.ID))
	ents, _ := os.ReadDir(activities.ProcessStaging(b))
	if len(ents) != 1 {
		t.Fatalf("staged %d pages, want 1", len(ents))
	}
	old := time.Now().Add(-26 * time.Hour)
	if err := os.Chtimes(filepath.Join(activities.ProcessStaging(b), ents[0].Name()), old, old); err != nil {
		t.Fatal(err)
	}
	if s, err := b.SweepStaging(); err != nil || s.Stale != 1 {
		t.Errorf("sweep of a day-old page: %+v, %v; want it removed", s, err)
	}
	if st, err := os.Stat(f.dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("staging directory %v, %v: want mode 0700", st.Mode(), err)
	}
}

// TestStagingDirIsMadePrivate: a staging directory that exists with a
// wider mode is made private to the worker's user.
func TestStagingDirIsMadePrivate(t *testing.T) {
	for _, mode := range []fs.FileMode{0o755, 0o777, 0o700} {
		dir := filepath.Join(t.TempDir(), "staging")
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		a, err := activities.New(activities.Config{Tokens: tokens{}, StagingDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(dir)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("created with %v: mode %v (%v), want 0700", mode, st.Mode().Perm(), err)
		}
		if err := a.Close(); err != nil {
			t.Error(err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("after Close the staging directory holds %d entries", len(ents))
		}
	}
}

// files lists the regular files under dir with their modes.
func files(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	out := map[string]fs.FileMode{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			out[strings.TrimPrefix(path, dir+"/")] = info.Mode()
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}
