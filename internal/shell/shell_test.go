package shell_test

import (
	"slices"
	"testing"

	"github.com/notebridge/notebridge/internal/shell"
	"github.com/notebridge/notebridge/internal/shell/shelltest"
)

// TestQuotedWordsPasteAsThemselves pastes commands built by Join into an
// interactive-like bash (history expansion on) and checks every word
// comes back as it was, and that a word that needs quoting is in single
// quotes, the only quoting bash's "!" expansion respects.
func TestQuotedWordsPasteAsThemselves(t *testing.T) {
	for _, word := range []string{
		"migrate/alice/1-ABC!101", "0-abc!1-def!s2", "plain", "with space", "it's", `"double"`, "$HOME", "`date`",
		"a;b", "a&&b", "<notebookID>", "*", "~alice", `back\slash`, "{\"a\":\"b!c\"}", "", "-w", "x=y", "100%",
		"!", "!!", "!$", "^a^b", "#hash", "Ünïcode!",
	} {
		line := shell.Join("starter", "status", "-w", word, "--follow")
		cmds, err := shelltest.Paste(line)
		if err != nil {
			t.Errorf("%q: %v", word, err)
			continue
		}
		want := []string{"starter", "status", "-w", word, "--follow"}
		if len(cmds) != 1 || !slices.Equal(cmds[0], want) {
			t.Errorf("%q printed as %s pastes as %q, want %q", word, line, cmds, want)
		}
	}
}

// TestQuoteRule: a word with "!" is always single-quoted, since bash -n
// does not expand history and cannot catch an unquoted one.
func TestQuoteRule(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"migrate/alice/nb", "migrate/alice/nb"},
		{"migrate/alice/1-a!101", "'migrate/alice/1-a!101'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"a b", "'a b'"},
	} {
		if got := shell.Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
