// Package shell quotes the commands the product prints, so that a person
// can paste them into a shell: the one place that decides how.
package shell

import "strings"

// Quote returns s as one word of a POSIX shell command, safe to paste
// into an interactive bash: bare when it holds only characters no shell
// treats specially, else in single quotes, the only quoting that also
// stops bash's history expansion of "!" (OneNote IDs hold it).
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join is the command of words, each quoted (Quote).
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
