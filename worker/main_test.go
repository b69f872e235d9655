package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	t.Setenv("NOTION_TOKEN", "secret_x")
	t.Setenv("NOTEBRIDGE_TASK_QUEUE", "q-from-env")
	c, err := parseConfig([]string{"-app-id", "app", "-token-dir", "/tmp/t", "-limits", "onenote-x60"})
	if err != nil {
		t.Fatal(err)
	}
	if c.TaskQueue != "q-from-env" || c.Limits != "onenote-x60" || c.NotionToken != "secret_x" || c.TemporalAddress != "127.0.0.1:7233" {
		t.Errorf("config: %+v", c)
	}
	for _, args := range [][]string{
		{"-token-dir", "/tmp/t"},
		{"-app-id", "a"},
		{"-app-id", "a", "-token-dir", "/tmp/t", "-limits", "fast"},
	} {
		if _, err := parseConfig(args); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	t.Setenv("NOTION_TOKEN", "")
	if _, err := parseConfig([]string{"-app-id", "a", "-token-dir", "/tmp/t"}); err == nil || !strings.Contains(err.Error(), "NOTION_TOKEN") {
		t.Errorf("missing Notion token: %v", err)
	}
}

func TestFileTokens(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "alice.token"), []byte("tok-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := fileTokens{dir}.TokenSource("alice")
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := ts.Token(context.Background()); err != nil || tok != "tok-1" {
		t.Errorf("token %q, %v", tok, err)
	}
	for _, u := range []string{"bob", "../alice", ""} {
		if _, err := (fileTokens{dir}).TokenSource(u); !errors.Is(err, errNotSignedIn) {
			t.Errorf("%q: %v", u, err)
		}
	}
}
