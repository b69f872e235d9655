// Command vulndb-build turns the OSV entries of the Go vulnerability
// database's source module (golang.org/x/vulndb, data/osv) into the
// database layout govulncheck reads with -db file://DIR:
//
//	DIR/index/db.json       {"modified": <newest entry>}
//	DIR/index/modules.json  [{"path": ..., "vulns": [{"id", "modified", "fixed"}]}], sorted
//	DIR/ID/<id>.json        each entry
//
// as described at https://go.dev/security/vuln/database#api. It needs no
// network: scripts/govulncheck.sh fetches the vulndb module through the Go
// module proxy with `go mod download -json` and runs this on its data/osv.
//
//	go mod download -json golang.org/x/vulndb@<version> > vulndb.json
//	vulndb-build -download-json vulndb.json -out bin/vulndb/<version>
//
// or, from any directory of OSV files, -src DIR -modified <RFC 3339 time>.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func main() {
	src := flag.String("src", "", "directory of OSV entries (data/osv of golang.org/x/vulndb)")
	download := flag.String("download-json", "", "output of `go mod download -json golang.org/x/vulndb@<version>`: sets -src to its data/osv and -modified to its time")
	out := flag.String("out", "", "database directory to write (replaced)")
	modified := flag.String("modified", "", "RFC 3339 time for entries whose modified time is zero: the vulndb snapshot's time")
	flag.Parse()
	if (*src == "") == (*download == "") || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: vulndb-build (-src DIR [-modified RFC3339] | -download-json FILE) -out DIR")
		os.Exit(2)
	}
	var snap time.Time
	if *modified != "" {
		var err error
		if snap, err = time.Parse(time.RFC3339, *modified); err != nil {
			fmt.Fprintf(os.Stderr, "vulndb-build: -modified %q is not an RFC 3339 time (e.g. 2026-11-05T23:49:57Z)\n", *modified)
			os.Exit(2)
		}
	}
	if *download != "" {
		dir, t, err := fromDownload(*download)
		if err != nil {
			fmt.Fprintln(os.Stderr, "vulndb-build:", err)
			os.Exit(1)
		}
		*src = filepath.Join(dir, "data", "osv")
		if snap.IsZero() {
			snap = t
		}
	}
	st, err := build(*src, *out, snap)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulndb-build:", err)
		os.Exit(1)
	}
	fmt.Printf("vulndb-build: %d entries, %d modules, modified %s, in %s\n", st.Entries, st.Modules, st.Modified.Format(time.RFC3339), *out)
}

// fromDownload reads `go mod download -json` output: the module's
// directory and, from its .info file, the time of the snapshot.
func fromDownload(path string) (dir string, snapshot time.Time, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", time.Time{}, err
	}
	var d struct {
		Path, Version, Dir, Info, Error string
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return "", time.Time{}, fmt.Errorf("%s is not `go mod download -json` output: %w", path, err)
	}
	if d.Error != "" {
		return "", time.Time{}, fmt.Errorf("go mod download %s@%s: %s", d.Path, d.Version, d.Error)
	}
	if d.Dir == "" || d.Info == "" {
		return "", time.Time{}, fmt.Errorf("%s names no module directory or .info file", path)
	}
	ib, err := os.ReadFile(d.Info)
	if err != nil {
		return "", time.Time{}, err
	}
	var info struct{ Time time.Time }
	if err := json.Unmarshal(ib, &info); err != nil || info.Time.IsZero() {
		return "", time.Time{}, fmt.Errorf("%s: no snapshot time (%v)", d.Info, err)
	}
	return d.Dir, info.Time, nil
}
