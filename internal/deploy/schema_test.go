package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/internal/devserver"
)

// postgres is a throwaway PostgreSQL server for one test.
type postgres struct {
	bin, dir string
	port     int
	asUser   []string // runuser prefix when the test runs as root
}

// startPostgres initialises and starts a PostgreSQL server of Debian's
// packages on a free loopback port, trusting local connections, with
// temporal as superuser; it skips the test when PostgreSQL is not
// installed. As root it runs the server as the postgres user, which
// PostgreSQL requires.
func startPostgres(t *testing.T) *postgres {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("no PostgreSQL here (apt-get install postgresql) to run the schema job's script on")
	}
	slices.Sort(bins)
	port, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is closed to the postgres user.
	dir, err := os.MkdirTemp("", "notebridge-schema-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pg := &postgres{bin: filepath.Dir(bins[len(bins)-1]), dir: dir, port: port}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root without a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(pg.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		pg.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	pg.run(t, "initdb", "-D", pg.dir+"/data", "-U", "temporal", "--auth=trust")
	pg.run(t, "pg_ctl", "-D", pg.dir+"/data", "-l", pg.dir+"/log", "-w",
		"-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", port, pg.dir), "start")
	t.Cleanup(func() { pg.run(t, "pg_ctl", "-D", pg.dir+"/data", "-m", "fast", "-w", "stop") })
	return pg
}

// run runs one of PostgreSQL's programs and returns its output.
func (pg *postgres) run(t *testing.T, prog string, args ...string) string {
	t.Helper()
	argv := append(slices.Clone(pg.asUser), append([]string{filepath.Join(pg.bin, prog)}, args...)...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}

// schemaVersion reads the schema version temporal-sql-tool recorded in db.
func (pg *postgres) schemaVersion(t *testing.T, db string) string {
	t.Helper()
	return strings.TrimSpace(pg.run(t, "psql", "-X", "-h", pg.dir, "-p", strconv.Itoa(pg.port), "-U", "temporal", "-d", db,
		"-tAc", "SELECT curr_version FROM schema_version"))
}

// newestVersion is the highest vX.Y folder of a versioned schema folder.
func newestVersion(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	best := [2]int{-1, -1}
	for _, e := range entries {
		major, minor, ok := strings.Cut(strings.TrimPrefix(e.Name(), "v"), ".")
		a, errA := strconv.Atoi(major)
		b, errB := strconv.Atoi(minor)
		if ok && errA == nil && errB == nil && (a > best[0] || a == best[0] && b > best[1]) {
			best = [2]int{a, b}
		}
	}
	if best[0] < 0 {
		t.Fatalf("no vX.Y folders in %s", dir)
	}
	return fmt.Sprintf("%d.%d", best[0], best[1])
}

// TestSchemaJobSetsUpAndUpdatesBothDatabases runs the compose schema job's
// script (deploy/compose/setup-schema.sh) with the temporal-sql-tool of the
// server version compose pins, on an empty PostgreSQL, twice: both
// databases end at the newest schema version and the second run, on a
// current database, succeeds and changes nothing. It needs the tool and
// the schema folders `make cluster` builds into bin/.
func TestSchemaJobSetsUpAndUpdatesBothDatabases(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts PostgreSQL (skipped with -short)")
	}
	version := strings.TrimPrefix(readCompose(t).Services["temporal"].Image, "temporalio/server:")
	bin, err := filepath.Abs(filepath.Join("..", "..", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	tool, schema := filepath.Join(bin, "temporal-sql-tool-"+version), filepath.Join(bin, "temporal-schema-"+version)
	for _, p := range []string{tool, schema} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("no %s (make cluster builds it): %v", p, err)
		}
	}
	pg := startPostgres(t)
	script := filepath.Join("..", "..", "deploy", "compose", "setup-schema.sh")
	run := func(port int) (string, error) {
		cmd := exec.Command("sh", script)
		cmd.Env = append(os.Environ(), "SQL_TOOL="+tool, "SCHEMA_DIR="+schema, "SQL_PLUGIN=postgres12",
			"SQL_HOST=127.0.0.1", "SQL_PORT="+strconv.Itoa(port), "SQL_USER=temporal", "SQL_PASSWORD=temporal")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for i := range 2 {
		if out, err := run(pg.port); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, out)
		}
		for db, sub := range map[string]string{"temporal": "temporal", "temporal_visibility": "visibility"} {
			want := newestVersion(t, filepath.Join(schema, sub, "versioned"))
			if got := pg.schemaVersion(t, db); got != want {
				t.Errorf("run %d: database %s at schema %s, want %s", i+1, db, got, want)
			}
		}
	}
	free, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run(free); err == nil {
		t.Errorf("the schema job succeeded with no PostgreSQL on port %d:\n%s", free, out)
	}
}
