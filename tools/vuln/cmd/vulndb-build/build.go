package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// entry is the part of an OSV entry the index needs.
type entry struct {
	ID        string     `json:"id"`
	Modified  time.Time  `json:"modified"`
	Published time.Time  `json:"published"`
	Affected  []affected `json:"affected"`
}

type affected struct {
	Package struct {
		Name string `json:"name"`
	} `json:"package"`
	Ranges []osvRange `json:"ranges"`
}

type osvRange struct {
	Type   string `json:"type"`
	Events []struct {
		Introduced string `json:"introduced"`
		Fixed      string `json:"fixed"`
	} `json:"events"`
}

// dbMeta is index/db.json.
type dbMeta struct {
	Modified time.Time `json:"modified"`
}

// moduleMeta is one element of index/modules.json.
type moduleMeta struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}

type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	// Fixed is the latest fixed version without a "v", or "" when no
	// version fixes every range (govulncheck then fetches the entry).
	Fixed string `json:"fixed,omitempty"`
}

// add records that v affects the module. An entry that lists the module
// more than once (the standard library's entries often do, one item per
// release branch) is recorded once, with the latest fix, or no fix if one
// of its items has none: govulncheck then fetches the entry and checks its
// ranges itself, and reports each finding once rather than once per item.
func (m *moduleMeta) add(v moduleVuln) {
	for i, old := range m.Vulns {
		if old.ID != v.ID {
			continue
		}
		if old.Fixed == "" || v.Fixed == "" {
			m.Vulns[i].Fixed = ""
		} else if less(old.Fixed, v.Fixed) {
			m.Vulns[i].Fixed = v.Fixed
		}
		return
	}
	m.Vulns = append(m.Vulns, v)
}

// idPattern is what an entry ID may look like; it becomes a file name.
var idPattern = regexp.MustCompile(`^[A-Z]+-[0-9]{4}-[0-9A-Za-z-]+$`)

// stats summarises a build.
type stats struct {
	Entries  int
	Modules  int
	Modified time.Time
}

// build reads the OSV entries (*.json) in src and writes the database to
// out: index/db.json, index/modules.json and ID/<id>.json. Entries whose
// modified time is zero (the vulndb source sets it only when it deploys)
// get snapshot instead. out is replaced only once everything is written.
func build(src, out string, snapshot time.Time) (stats, error) {
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil {
		return stats{}, err
	}
	if len(files) == 0 {
		return stats{}, fmt.Errorf("no OSV entries (*.json) in %s: point -src at data/osv of golang.org/x/vulndb", src)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return stats{}, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), ".vulndb-build-*")
	if err != nil {
		return stats{}, err
	}
	defer os.RemoveAll(tmp)
	for _, d := range []string{"index", "ID"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			return stats{}, err
		}
	}

	var db dbMeta
	modules := map[string]*moduleMeta{}
	for _, f := range files {
		e, raw, err := readEntry(f, snapshot)
		if err != nil {
			return stats{}, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "ID", e.ID+".json"), raw, 0o644); err != nil {
			return stats{}, err
		}
		if e.Modified.After(db.Modified) {
			db.Modified = e.Modified
		}
		for _, a := range e.Affected {
			m := modules[a.Package.Name]
			if m == nil {
				m = &moduleMeta{Path: a.Package.Name, Vulns: []moduleVuln{}}
				modules[a.Package.Name] = m
			}
			m.add(moduleVuln{ID: e.ID, Modified: e.Modified, Fixed: latestFix(a.Ranges)})
		}
	}
	list := make([]*moduleMeta, 0, len(modules))
	for _, m := range modules {
		slices.SortStableFunc(m.Vulns, func(a, b moduleVuln) int { return strings.Compare(a.ID, b.ID) })
		list = append(list, m)
	}
	slices.SortFunc(list, func(a, b *moduleMeta) int { return strings.Compare(a.Path, b.Path) })
	for name, v := range map[string]any{"db.json": db, "modules.json": list} {
		b, err := json.Marshal(v)
		if err != nil {
			return stats{}, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "index", name), b, 0o644); err != nil {
			return stats{}, err
		}
	}
	if err := os.RemoveAll(out); err != nil {
		return stats{}, err
	}
	if err := os.Rename(tmp, out); err != nil {
		return stats{}, err
	}
	return stats{Entries: len(files), Modules: len(list), Modified: db.Modified}, nil
}

// readEntry reads one OSV file, checks its name matches its ID, and
// returns it with the bytes to store (modified filled in if it was zero).
func readEntry(path string, snapshot time.Time) (entry, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return entry{}, nil, err
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return entry{}, nil, fmt.Errorf("%s: not an OSV entry: %w", path, err)
	}
	if !idPattern.MatchString(e.ID) {
		return entry{}, nil, fmt.Errorf("%s: ID %q is not of the form GO-YYYY-NNNN", path, e.ID)
	}
	if filepath.Base(path) != e.ID+".json" {
		return entry{}, nil, fmt.Errorf("%s: file name does not match its ID %s", path, e.ID)
	}
	if !e.Modified.IsZero() {
		return e, raw, nil
	}
	if snapshot.IsZero() {
		return entry{}, nil, errors.New(path + ": modified time is zero: give -modified (the vulndb snapshot's time)")
	}
	e.Modified = snapshot
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return entry{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	fields["modified"], _ = json.Marshal(snapshot)
	raw, err = json.Marshal(fields)
	if err != nil {
		return entry{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return e, raw, nil
}

// latestFix is the latest "fixed" version over the SEMVER ranges, unless a
// later "introduced" re-opens the vulnerability, in which case it is "":
// the same rule as govulncheck's own index (x/vuln internal/semver
// NonSupersededFix), so a module at or above it is safely skipped.
func latestFix(ranges []osvRange) string {
	latest := ""
	for _, r := range ranges {
		if r.Type != "SEMVER" {
			continue
		}
		for _, e := range r.Events {
			if e.Fixed != "" && less(latest, e.Fixed) {
				latest = e.Fixed
			}
		}
		for _, e := range r.Events {
			if e.Introduced != "" && e.Introduced != "0" && less(latest, e.Introduced) {
				latest = ""
				break
			}
		}
	}
	return latest
}

// less compares OSV versions, which carry no "v" (a "go" or "v" prefix is
// accepted too).
func less(a, b string) bool { return semver.Compare(canonical(a), canonical(b)) < 0 }

func canonical(v string) string {
	v = strings.TrimPrefix(strings.TrimPrefix(v, "v"), "go")
	return "v" + v
}
