// Package shelltest pastes printed commands into bash for tests: what a
// person gets when they copy a command the product printed.
package shelltest

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// Paste runs line as an interactive bash reads a pasted line (history
// expansion on, so an unquoted "!" fails as "event not found"), with
// every command replaced by one that prints its words, and returns the
// words of each command on the line (a line may chain commands with
// "&&" or ";"). It fails if bash cannot parse the line (bash -n) or
// reports anything on stderr.
func Paste(line string) ([][]string, error) {
	if err := exec.Command("bash", "-n", "-c", line).Run(); err != nil {
		return nil, fmt.Errorf("bash -n -c %q: %w", line, err)
	}
	// Every command name prints its words, NUL-separated, then a
	// record separator; nothing runs.
	script := "set -o history -H\n" +
		"command_not_found_handle() { printf '%s\\0' \"$@\"; printf '\\036'; return 0; }\n" +
		strings.NewReplacer("\n", " ").Replace(line) + "\n"
	cmd := exec.Command("bash", "--norc", "--noprofile", "-s")
	cmd.Env = []string{"PATH=/nonexistent"}
	cmd.Stdin = strings.NewReader(script)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || errb.Len() > 0 {
		return nil, fmt.Errorf("pasting %q into bash: %v %s", line, err, strings.TrimSpace(errb.String()))
	}
	var cmds [][]string
	for rec := range strings.SplitSeq(strings.TrimSuffix(out.String(), "\x1e"), "\x1e") {
		if rec == "" {
			continue
		}
		cmds = append(cmds, strings.Split(strings.TrimSuffix(rec, "\x00"), "\x00"))
	}
	return cmds, nil
}
