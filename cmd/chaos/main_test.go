package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestUsage covers what returns before anything starts: help, bad flags,
// stray arguments and options the run refuses.
func TestUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"-help"}, 0, "-server-restarts"},
		{[]string{"-kills", "many"}, 2, "invalid value"},
		{[]string{"now"}, 2, "unexpected arguments"},
		{[]string{"-pages", "1"}, 2, "-pages 1"},
		{[]string{"-kills", "-3"}, 2, "-kills"},
		{[]string{"-refresh-kills", "-1"}, 2, "-refresh-kills"},
		{[]string{"-token-ttl", "2s"}, 2, "-token-ttl 2s"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stdout, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, want %d; stderr %q lacks %q", c.args, code, c.code, stderr.String(), c.want)
		}
	}
}
