package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/notebridge/notebridge/internal/devserver"
)

type composeFile struct {
	Name     string `yaml:"name"`
	Services map[string]struct {
		Image       string                                `yaml:"image"`
		Build       *struct{ Context, Dockerfile string } `yaml:"build"`
		Ports       []string                              `yaml:"ports"`
		Environment map[string]string                     `yaml:"environment"`
		Profiles    []string                              `yaml:"profiles"`
		DependsOn   any                                   `yaml:"depends_on"`
		Secrets     []string                              `yaml:"secrets"`
		Volumes     []string                              `yaml:"volumes"`
		Entrypoint  []string                              `yaml:"entrypoint"`
	} `yaml:"services"`
	Secrets map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
	Volumes map[string]any `yaml:"volumes"`
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("docker-compose.yml is not valid YAML: %v", err)
	}
	return c
}

func TestComposeDefinesTheStack(t *testing.T) {
	c := readCompose(t)
	for _, name := range []string{"postgresql", "temporal-schema", "temporal", "temporal-admin-tools", "temporal-ui", "codec-server", "worker", "graph-emulator", "notion-emulator"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("service %q is missing", name)
		}
	}
	for name, s := range c.Services {
		if s.Image == "" && s.Build == nil {
			t.Errorf("service %q has neither image nor build", name)
		}
		if s.Image != "" && !strings.Contains(s.Image, ":") {
			t.Errorf("service %q: image %q is not pinned to a tag", name, s.Image)
		}
		if strings.HasSuffix(s.Image, ":latest") && s.Build == nil && s.Image != c.Services["worker"].Image {
			t.Errorf("service %q uses a :latest image nothing here builds", name)
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("service %q publishes %q beyond loopback", name, p)
			}
		}
		for _, sec := range s.Secrets {
			if _, ok := c.Secrets[sec]; !ok {
				t.Errorf("service %q uses undeclared secret %q", name, sec)
			}
		}
	}
	for _, name := range []string{"graph-emulator", "notion-emulator"} {
		if s := c.Services[name]; len(s.Profiles) == 0 {
			t.Errorf("service %q should sit behind a profile", name)
		}
	}
	if w := c.Services["worker"]; w.Build == nil || w.Build.Dockerfile != "Dockerfile" {
		t.Error("the worker must be built from ./Dockerfile")
	}
}

// TestWorkerEnvironmentIsReadByTheWorker keeps the compose file honest: a
// variable the worker does not read is a setting that silently does nothing.
func TestWorkerEnvironmentIsReadByTheWorker(t *testing.T) {
	var src strings.Builder
	for _, dir := range []string{"internal/workerapp", "auth", "codec"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
	}
	c := readCompose(t)
	w := c.Services["worker"]
	if len(w.Environment) == 0 {
		t.Fatal("the worker service sets no environment")
	}
	for name := range w.Environment {
		if !strings.Contains(src.String(), `"`+name+`"`) {
			t.Errorf("docker-compose sets %s for the worker, which the worker never reads", name)
		}
	}
}

func TestDockerfileIsMultiStageAndNonRoot(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := string(data)
	if strings.Count(df, "\nFROM ")+boolInt(strings.HasPrefix(df, "FROM ")) < 2 {
		t.Error("the Dockerfile should build in one stage and run in another")
	}
	if !strings.Contains(df, "USER nonroot") {
		t.Error("the worker image must run as a non-root user")
	}
	if !strings.Contains(df, "./worker") {
		t.Error("the Dockerfile does not build the worker")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTemporalGetsTheLowLatencyConfig checks that the compose file's
// Temporal server loads the dynamic config file, and that the file sets
// every value the dev server gets (devserver.LowLatencyConfig), so the
// limiter's round trip is the same in production as in the benchmarks.
func TestTemporalGetsTheLowLatencyConfig(t *testing.T) {
	c := readCompose(t)
	tmp := c.Services["temporal"]
	const mount = "./deploy/temporal:/etc/temporal/config/dynamicconfig:ro"
	if !slices.Contains(tmp.Volumes, mount) {
		t.Errorf("temporal service volumes = %v, want %q", tmp.Volumes, mount)
	}
	path := tmp.Environment["DYNAMIC_CONFIG_FILE_PATH"]
	if path != "config/dynamicconfig/notebridge.yaml" {
		t.Fatalf("temporal DYNAMIC_CONFIG_FILE_PATH = %q, want config/dynamicconfig/notebridge.yaml", path)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "temporal", "notebridge.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var dc map[string][]struct {
		Value any `yaml:"value"`
	}
	if err := yaml.Unmarshal(data, &dc); err != nil {
		t.Fatalf("deploy/temporal/notebridge.yaml is not valid YAML: %v", err)
	}
	for _, kv := range devserver.LowLatencyConfig() {
		key, want, _ := strings.Cut(kv, "=")
		want = strings.Trim(want, `"`) // a JSON string is a bare scalar in YAML
		vs := dc[key]
		if len(vs) != 1 || fmt.Sprint(vs[0].Value) != want {
			t.Errorf("deploy/temporal/notebridge.yaml: %s = %v, want one value %s", key, vs, want)
		}
	}
}
