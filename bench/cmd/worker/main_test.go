package main

import (
	"testing"

	"github.com/notebridge/notebridge/workflows"
)

func TestUseBaseline(t *testing.T) {
	for _, tc := range []struct {
		policy     string
		wantCaller bool
		wantErr    bool
	}{
		{"", false, false},
		{"backoff", true, false},
		{"queue-retry", true, false},
		{"aimd", false, true},
	} {
		w := workflows.New("app")
		err := useBaseline(w, tc.policy)
		if (err != nil) != tc.wantErr || (w.NewCaller != nil) != tc.wantCaller {
			t.Errorf("-baseline %q: caller set %v, error %v; want caller %v, error %v", tc.policy, w.NewCaller != nil, err, tc.wantCaller, tc.wantErr)
		}
	}
}
