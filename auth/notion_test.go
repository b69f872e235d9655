package auth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const notionSecret = "ntn_4115912345678secretNOTIONtokenvalue"

func TestNotionToken(t *testing.T) {
	tok, err := NotionToken(env(map[string]string{EnvNotionToken: " " + notionSecret + "\n"}))
	if err != nil || tok.Reveal() != notionSecret {
		t.Fatalf("from environment: %v", err)
	}

	path := filepath.Join(t.TempDir(), "notion")
	if err := os.WriteFile(path, []byte(notionSecret+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	tok, err = NotionToken(env(map[string]string{EnvNotionTokenFile: path}))
	if err != nil || tok.Reveal() != notionSecret {
		t.Fatalf("from file: %v", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = NotionToken(env(map[string]string{EnvNotionTokenFile: path}))
	if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("world-readable file: %v, want ErrInsecurePermissions", err)
	}

	for name, vars := range map[string]map[string]string{
		"none":    nil,
		"blank":   {EnvNotionToken: "  "},
		"missing": {EnvNotionTokenFile: filepath.Join(t.TempDir(), "nope")},
	} {
		if _, err := NotionToken(env(vars)); !errors.Is(err, ErrNoNotionToken) {
			t.Errorf("%s: %v, want ErrNoNotionToken", name, err)
		}
	}
	_, err = NotionToken(env(map[string]string{EnvNotionToken: notionSecret, EnvNotionTokenFile: path}))
	if err == nil || strings.Contains(err.Error(), notionSecret) {
		t.Errorf("both set: %v", err)
	}
}
