package deploy

import (
	"bytes"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// normalized is the part of `docker compose config`'s output (the file
// with variables substituted and profiles applied) the tests read. Ports
// are left out: Compose v1 prints them short and v2 long; the raw file's
// are checked in TestComposeDefinesTheStack.
type normalized struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Entrypoint  []string          `yaml:"entrypoint"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		NetworkMode string            `yaml:"network_mode"`
		Profiles    []string          `yaml:"profiles"`
		Volumes     []any             `yaml:"volumes"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Healthcheck *struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
}

// composeCommand finds a Compose: the v2 plugin (docker compose) or
// Debian's docker-compose (v1). It skips the test when there is neither.
func composeCommand(t *testing.T) []string {
	t.Helper()
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}
	}
	if p, err := exec.LookPath("docker-compose"); err == nil {
		return []string{p}
	}
	t.Skip("no Compose here: install the compose plugin or Debian's docker-compose (apt-get install docker-compose) to check docker-compose.yml")
	return nil
}

// realEnv is what an operator sets for a run against Microsoft Graph and
// Notion (the file refuses to start without them).
var realEnv = []string{
	"NOTEBRIDGE_APP_ID=00000000-0000-0000-0000-000000000001",
	"NOTEBRIDGE_TOKEN_KEY=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
	"NOTEBRIDGE_CODEC_KEY=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
}

// composeConfig runs `compose [args] config` in the repository root with
// a clean Compose environment plus env, failing the test on any complaint.
func composeConfig(t *testing.T, env []string, args ...string) normalized {
	t.Helper()
	cmdArgs := append(composeCommand(t), "-f", "docker-compose.yml")
	cmdArgs = append(cmdArgs, args...)
	cmdArgs = append(cmdArgs, "config")
	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Dir = filepath.Join("..", "..")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NOTEBRIDGE_") && !strings.HasPrefix(kv, "NOTION_") && !strings.HasPrefix(kv, "COMPOSE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmdArgs, " "), err, stderr.String())
	}
	var n normalized
	if err := yaml.Unmarshal(stdout.Bytes(), &n); err != nil {
		t.Fatalf("%s printed no valid YAML: %v\n%s", strings.Join(cmdArgs, " "), err, stdout.String())
	}
	return n
}

// TestComposeConfigPasses checks the file as Compose itself reads it, for
// a real run and for the emulators profile with its settings file: the
// images are pinned and none is the deprecated auto-setup, the server
// waits for its schema job and the workers for the search-attribute job,
// and no healthcheck needs tctl.
func TestComposeConfigPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want []string // services the run has
	}{
		{"real", realEnv, nil, []string{"postgresql", "temporal-schema", "temporal", "temporal-admin-tools", "temporal-ui", "codec-server", "worker"}},
		{"emulators", nil, []string{"--env-file", "deploy/compose/emulators.env", "--profile", "emulators"},
			[]string{"postgresql", "temporal-schema", "temporal", "temporal-admin-tools", "temporal-ui", "codec-server", "worker", "graph-emulator", "notion-emulator"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := composeConfig(t, tc.env, tc.args...)
			// Compose v1 prints the services of every profile (with their
			// profiles), v2 only those the run starts.
			var names []string
			for name, s := range n.Services {
				if len(s.Profiles) == 0 || slices.Contains(tc.args, s.Profiles[0]) {
					names = append(names, name)
				}
			}
			slices.Sort(names)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Errorf("services the run starts = %v, want %v", names, want)
			}
			checkStartOrder(t, n)
			checkImages(t, n)
			checkHealthchecks(t, n)
			checkCodecServer(t, n)
		})
	}
}

// checkStartOrder asserts the chain postgresql → schema job → server →
// search-attribute job → workers, each link on the condition that makes
// it a real wait.
func checkStartOrder(t *testing.T, n normalized) {
	t.Helper()
	for _, d := range []struct{ service, on, condition string }{
		{"temporal-schema", "postgresql", "service_healthy"},
		{"temporal", "temporal-schema", "service_completed_successfully"},
		{"temporal-admin-tools", "temporal", "service_healthy"},
		{"temporal-ui", "temporal", "service_healthy"},
		{"worker", "temporal-admin-tools", "service_completed_successfully"},
	} {
		if got := n.Services[d.service].DependsOn[d.on].Condition; got != d.condition {
			t.Errorf("%s depends on %s with condition %q, want %q", d.service, d.on, got, d.condition)
		}
	}
}

var versionTag = regexp.MustCompile(`^[a-z0-9./_-]+:[0-9]+(\.[0-9]+)*$`)

func checkImages(t *testing.T, n normalized) {
	t.Helper()
	server := strings.TrimPrefix(n.Services["temporal"].Image, "temporalio/server:")
	for name, s := range n.Services {
		switch {
		case strings.Contains(s.Image, "auto-setup"):
			t.Errorf("service %s runs %s: temporalio/auto-setup is deprecated and not published past 1.29", name, s.Image)
		case s.Image == "notebridge-worker:latest":
			// Built from ./Dockerfile by the worker service.
		case !versionTag.MatchString(s.Image):
			t.Errorf("service %s runs %q, not pinned to a version", name, s.Image)
		}
		if tools, ok := strings.CutPrefix(s.Image, "temporalio/admin-tools:"); ok && tools != server {
			t.Errorf("service %s runs admin-tools %s with server %s: the schema tool must match the server", name, tools, server)
		}
	}
	if n.Services["worker"].Image != "notebridge-worker:latest" {
		t.Errorf("worker image = %q, want the one it builds, notebridge-worker:latest", n.Services["worker"].Image)
	}
}

// checkHealthchecks asserts every healthcheck runs a program its image
// has: none of the images ships tctl, and the server image has busybox
// but no temporal CLI.
func checkHealthchecks(t *testing.T, n normalized) {
	t.Helper()
	for _, name := range []string{"postgresql", "temporal"} {
		if n.Services[name].Healthcheck == nil {
			t.Errorf("service %s has no healthcheck, yet others wait for it to be healthy", name)
		}
	}
	for name, s := range n.Services {
		if s.Healthcheck == nil {
			continue
		}
		test := strings.Join(s.Healthcheck.Test, " ")
		if strings.Contains(test, "tctl") {
			t.Errorf("service %s's healthcheck runs tctl, which its image does not have: %s", name, test)
		}
		if strings.HasPrefix(s.Image, "temporalio/server:") && !strings.Contains(test, "wget") {
			t.Errorf("service %s's healthcheck %q: the server image has only busybox (wget, nc) to probe with", name, test)
		}
	}
}

// checkCodecServer asserts the Web UI's codec endpoint is the codec
// server's loopback address, and that the codec server and the workers
// share the payload key.
func checkCodecServer(t *testing.T, n normalized) {
	t.Helper()
	cs := n.Services["codec-server"]
	addr := flagValue(cs.Command, "-addr")
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		t.Errorf("codec-server -addr %q is not a loopback address", addr)
	}
	if cs.NetworkMode != "host" {
		t.Errorf("codec-server network_mode = %q: on a compose network its loopback address is unreachable from the browser", cs.NetworkMode)
	}
	endpoint, err := url.Parse(n.Services["temporal-ui"].Environment["TEMPORAL_CODEC_ENDPOINT"])
	if err != nil || endpoint.Host != addr {
		t.Errorf("temporal-ui TEMPORAL_CODEC_ENDPOINT = %v, want http://%s", endpoint, addr)
	}
	if !strings.Contains(flagValue(cs.Command, "-ui-origin"), "http://localhost:8080") {
		t.Errorf("codec-server -ui-origin %q does not let the Web UI (http://localhost:8080) call it", flagValue(cs.Command, "-ui-origin"))
	}
	if k := cs.Environment["NOTEBRIDGE_CODEC_KEY"]; k == "" || k != n.Services["worker"].Environment["NOTEBRIDGE_CODEC_KEY"] {
		t.Error("the codec server and the workers do not share NOTEBRIDGE_CODEC_KEY")
	}
}

// flagValue returns the argument after name in args, or "".
func flagValue(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// TestEmulatorsProfileIsWiredEndToEnd checks that with the emulators'
// settings the worker talks to the two emulators, sends the Notion token
// the Notion emulator accepts, keys its limiter by the Graph emulator's app
// ID and runs the limits profile of the emulator's time scale.
func TestEmulatorsProfileIsWiredEndToEnd(t *testing.T) {
	n := composeConfig(t, nil, "--env-file", "deploy/compose/emulators.env", "--profile", "emulators")
	w := n.Services["worker"].Environment
	graph, notion := n.Services["graph-emulator"].Command, n.Services["notion-emulator"].Command
	for _, c := range []struct{ env, service string }{
		{"NOTEBRIDGE_GRAPH_URL", "graph-emulator"},
		{"NOTEBRIDGE_AUTHORITY", "graph-emulator"},
		{"NOTEBRIDGE_NOTION_URL", "notion-emulator"},
	} {
		u, err := url.Parse(w[c.env])
		if err != nil || u.Hostname() != c.service {
			t.Errorf("worker %s = %q, want a URL on %s", c.env, w[c.env], c.service)
			continue
		}
		cmd := n.Services[c.service].Command
		if _, port, _ := net.SplitHostPort(flagValue(cmd, "-addr")); port != u.Port() {
			t.Errorf("worker %s = %q, but %s listens on %q", c.env, w[c.env], c.service, flagValue(cmd, "-addr"))
		}
	}
	if tok := flagValue(notion, "-token"); tok == "" || w["NOTION_TOKEN"] != tok {
		t.Errorf("worker NOTION_TOKEN = %q, notion-emulator -token %q: they must match", w["NOTION_TOKEN"], tok)
	}
	if w["NOTION_TOKEN_FILE"] != "" {
		t.Errorf("worker NOTION_TOKEN_FILE = %q with NOTION_TOKEN set: the worker refuses both", w["NOTION_TOKEN_FILE"])
	}
	if app := flagValue(graph, "-app-id"); app == "" || w["NOTEBRIDGE_APP_ID"] != app {
		t.Errorf("worker NOTEBRIDGE_APP_ID = %q, graph-emulator -app-id %q: they must match", w["NOTEBRIDGE_APP_ID"], app)
	}
	if want := "onenote-x" + flagValue(graph, "-time-scale"); w["NOTEBRIDGE_LIMITS"] != want {
		t.Errorf("worker NOTEBRIDGE_LIMITS = %q, want %q for the emulator's -time-scale", w["NOTEBRIDGE_LIMITS"], want)
	}
}

// TestComposeRealRunTakesTheNotionTokenFromTheSecret checks that without
// the emulators' settings the worker reads its Notion token from the
// secret file, and nothing of the emulators leaks into it.
func TestComposeRealRunTakesTheNotionTokenFromTheSecret(t *testing.T) {
	w := composeConfig(t, realEnv).Services["worker"].Environment
	if w["NOTION_TOKEN_FILE"] != "/run/secrets/notion_token" || w["NOTION_TOKEN"] != "" {
		t.Errorf("worker NOTION_TOKEN_FILE = %q, NOTION_TOKEN = %q; want the secret file only", w["NOTION_TOKEN_FILE"], w["NOTION_TOKEN"])
	}
	for _, env := range []string{"NOTEBRIDGE_GRAPH_URL", "NOTEBRIDGE_NOTION_URL", "NOTEBRIDGE_AUTHORITY"} {
		if strings.Contains(w[env], "emulator") {
			t.Errorf("worker %s = %q in a real run", env, w[env])
		}
	}
}

// TestSetupJobsHideNoErrors keeps `|| true` and its kin out of the compose
// file and the setup scripts: a job that cannot fail lets the workers start
// on a half-set-up server.
func TestSetupJobsHideNoErrors(t *testing.T) {
	files := []string{filepath.Join("..", "..", "docker-compose.yml")}
	scripts, err := filepath.Glob(filepath.Join("..", "..", "deploy", "compose", "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) == 0 {
		t.Fatal("no scripts in deploy/compose")
	}
	files = append(files, scripts...)
	hidden := regexp.MustCompile(`\|\|\s*(true\b|:(\s|$))|set \+e`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if hidden.MatchString(line) {
				t.Errorf("%s:%d hides an error: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
	for _, s := range scripts {
		b, _ := os.ReadFile(s)
		if !strings.Contains(string(b), "set -eu") {
			t.Errorf("%s does not stop at the first failing command (set -eu)", s)
		}
	}
}

// TestSetupJobsRunScriptsThatExist checks each admin-tools job runs a
// script of deploy/compose through the mount that puts it there.
func TestSetupJobsRunScriptsThatExist(t *testing.T) {
	c := readCompose(t)
	const mount = "./deploy/compose:/etc/notebridge:ro"
	for _, name := range []string{"temporal-schema", "temporal-admin-tools"} {
		s := c.Services[name]
		if !slices.Contains(s.Volumes, mount) {
			t.Errorf("%s volumes = %v, want %q", name, s.Volumes, mount)
		}
		if len(s.Entrypoint) != 2 || s.Entrypoint[0] != "/bin/sh" {
			t.Errorf("%s entrypoint = %v, want /bin/sh and a script", name, s.Entrypoint)
			continue
		}
		script, ok := strings.CutPrefix(s.Entrypoint[1], "/etc/notebridge/")
		if !ok {
			t.Errorf("%s runs %s, outside the deploy/compose mount", name, s.Entrypoint[1])
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "..", "deploy", "compose", script)); err != nil {
			t.Errorf("%s runs %s: %v", name, s.Entrypoint[1], err)
		}
	}
}
