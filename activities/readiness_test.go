package activities_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/notebridge/notebridge/activities"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/readiness"
)

// TestCheckReadinessAgainstTheEmulator runs the check against emulated
// workspaces: the facts come from the API (members, upload cap) and the
// worker (plan, token type, blocks used); a refusal is a non-retryable
// NotionNotReady that names the limit, and the check writes nothing.
func TestCheckReadinessAgainstTheEmulator(t *testing.T) {
	tests := []struct {
		name      string
		emu       notionemu.Config
		facts     readiness.Facts
		in        activities.CheckReadinessInput
		refused   bool
		wantFacts readiness.Facts
		want      []string
	}{
		{"Free block limit", notionemu.Config{Plan: notionemu.PlanFree, Members: 3},
			readiness.Facts{Plan: "free", TokenType: "internal", BlocksUsed: 900},
			activities.CheckReadinessInput{Sections: 3, Pages: 20}, true,
			readiness.Facts{Plan: "free", TokenType: "internal", BlocksUsed: 900, Members: 3, MaxUploadBytes: 5 << 20},
			[]string{"3 members", "900 are used and 100 left", "about 645 blocks"}},
		{"personal access token exempt", notionemu.Config{Plan: notionemu.PlanFree, Members: 3},
			readiness.Facts{Plan: "free", TokenType: "personal", BlocksUsed: 900},
			activities.CheckReadinessInput{Sections: 3, Pages: 20}, false,
			readiness.Facts{Plan: "free", TokenType: "personal", BlocksUsed: 900, Members: 3, MaxUploadBytes: 5 << 20},
			[]string{"does not apply to this connection (personal)", "Files up to 5.0 MiB"}},
		{"report only", notionemu.Config{Plan: notionemu.PlanFree, Members: 2},
			readiness.Facts{Plan: "free", BlocksUsed: 999},
			activities.CheckReadinessInput{Sections: 1, Pages: 5, ReportOnly: true}, false,
			readiness.Facts{Plan: "free", BlocksUsed: 999, Members: 2, MaxUploadBytes: 5 << 20},
			[]string{"NOT ready", "internal (assumed)"}},
		{"paid", notionemu.Config{Plan: notionemu.PlanBusiness, Members: 120},
			readiness.Facts{Plan: "business"},
			activities.CheckReadinessInput{Sections: 3, Pages: 2000}, false,
			readiness.Facts{Plan: "business", Members: 120, MaxUploadBytes: 5 << 30},
			[]string{"business plan has no block limit", "Files up to 5 GiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.emu.Seed, tt.emu.ConnectionBudget, tt.emu.WorkspaceBudget = 1, 1000, 1000
			srv := notionemu.NewServer(tt.emu)
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			nc, err := notion.NewClient(notion.Config{BaseURL: ts.URL, Token: notion.StaticToken(srv.IssueToken()),
				Pacers: notion.NewPacers(notion.PacerConfig{Rate: 1000, Burst: 100}, nil)})
			if err != nil {
				t.Fatal(err)
			}
			acts, err := activities.New(activities.Config{Tokens: tokens{}, Notion: nc, StagingDir: t.TempDir(), NotionFacts: tt.facts})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { acts.Close() })
			var s testsuite.WorkflowTestSuite
			env := s.NewTestActivityEnvironment()
			acts.Register(env)
			blocks := srv.Stats().Blocks
			v, err := env.ExecuteActivity(activities.CheckReadinessName, tt.in)
			if srv.Stats().Blocks != blocks {
				t.Errorf("the check created %d blocks", srv.Stats().Blocks-blocks)
			}
			var text string
			if tt.refused {
				var app *temporal.ApplicationError
				if !errors.As(err, &app) || app.Type() != failure.NotionNotReady || !app.NonRetryable() {
					t.Fatalf("error %v, want a non-retryable %s", err, failure.NotionNotReady)
				}
				var res activities.CheckReadinessResult
				if err := app.Details(&res); err != nil || res.Facts != tt.wantFacts {
					t.Errorf("details %+v (%v), want facts %+v", res, err, tt.wantFacts)
				}
				text = err.Error()
			} else {
				if err != nil {
					t.Fatal(err)
				}
				var res activities.CheckReadinessResult
				if err := v.Get(&res); err != nil {
					t.Fatal(err)
				}
				if res.Facts != tt.wantFacts {
					t.Errorf("facts %+v, want %+v", res.Facts, tt.wantFacts)
				}
				text = res.Text
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q not in %s", w, text)
				}
			}
		})
	}
}
