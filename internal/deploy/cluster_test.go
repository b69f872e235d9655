package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestComposePinsTheClusterVersions keeps docker-compose.yml on the
// Temporal server and Web UI versions scripts/cluster.sh builds and runs
// here (make cluster, make cluster-test), and its PostgreSQL on the major
// version the script runs (Debian's postgresql-15), so that what was
// tested here is what compose deploys.
func TestComposePinsTheClusterVersions(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "cluster.sh"))
	if err != nil {
		t.Fatal(err)
	}
	version := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `="([0-9.]+)"$`).FindSubmatch(script)
		if m == nil {
			t.Fatalf("scripts/cluster.sh sets no %s", name)
		}
		return string(m[1])
	}
	server, ui := version("server_version"), version("ui_version")
	c := readCompose(t)
	want := map[string]string{
		"temporal":    ":" + server,
		"temporal-ui": "temporalio/ui:" + ui,
		"postgresql":  "postgres:15",
	}
	if _, ok := c.Services["temporal-admin-tools"]; ok {
		want["temporal-admin-tools"] = "temporalio/admin-tools:" + server
	}
	for name, suffix := range want {
		img := c.Services[name].Image
		if !strings.HasSuffix(img, suffix) || !strings.HasPrefix(img, strings.Split(suffix, ":")[0]) {
			t.Errorf("service %s runs %q; scripts/cluster.sh runs %s", name, img, strings.TrimPrefix(suffix, ":"))
		}
	}
}
