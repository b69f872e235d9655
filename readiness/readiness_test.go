package readiness

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	free3 := Facts{Plan: PlanFree, Members: 3, TokenType: TokenInternal, BlocksUsed: 400, MaxUploadBytes: 5 << 20}
	tests := []struct {
		name     string
		facts    Facts
		est      Estimate
		ready    bool
		problems []Limit
		// want are phrases the verdict's text must hold.
		want []string
	}{
		{"free multi-member over the block limit", free3, EstimateBlocks(4, 100), false, []Limit{LimitBlocks},
			[]string{"3 members", "400 are used and 600 left", "about 3206 blocks (100 pages", "upgrade", "personal access token"}},
		{"free multi-member within the limit", free3, EstimateBlocks(2, 10), true, nil, []string{"about 324 of the 600 blocks left"}},
		{"personal access token is exempt", withType(free3, TokenPersonal), EstimateBlocks(4, 100), true, nil, []string{"does not apply to this connection (personal)"}},
		{"public OAuth is exempt", withType(free3, TokenOAuthPublic), EstimateBlocks(4, 100), true, nil, []string{"(oauth_public)"}},
		{"OAuth restricted to selected workspaces is not", withType(free3, TokenOAuthSelected), EstimateBlocks(4, 100), false, []Limit{LimitBlocks}, []string{"(oauth_selected) is held"}},
		{"unknown token type is checked as internal", withType(free3, ""), EstimateBlocks(4, 100), false, []Limit{LimitBlocks}, []string{"internal (assumed)", "-notion-token-type"}},
		{"single-member free", Facts{Plan: PlanFree, Members: 1, BlocksUsed: 999}, EstimateBlocks(4, 100), true, nil, []string{"one member has no block limit"}},
		{"paid", Facts{Plan: PlanBusiness, Members: 40}, EstimateBlocks(4, 10000), true, nil, []string{"business plan has no block limit"}},
		{"unknown plan", Facts{Members: 5}, EstimateBlocks(4, 10000), true, nil, []string{"-notion-plan"}},
		{"pages unknown, containers alone too many", Facts{Plan: PlanFree, Members: 2, TokenType: TokenInternal, BlocksUsed: 995}, EstimateBlocks(3, 0), false,
			[]Limit{LimitBlocks}, []string{"at least 8 blocks", "5 left"}},
		{"attachment over the cap", Facts{Plan: PlanPlus, MaxUploadBytes: 5 << 20}, Estimate{LargestAttachment: 8 << 20, LargestName: "scan.pdf"}, true,
			[]Limit{LimitUpload}, []string{"scan.pdf is 8.0 MiB, over this workspace's limit of 5.0 MiB", "skipAttachments"}},
		{"attachment over the cap, skipped", Facts{Plan: PlanPlus, MaxUploadBytes: 5 << 20}, Estimate{LargestAttachment: 8 << 20, SkipAttachments: true}, true, nil, nil},
		{"attachment within the cap", Facts{Plan: PlanPlus, MaxUploadBytes: 5 << 30}, Estimate{LargestAttachment: 8 << 20}, true, nil, []string{"up to 5 GiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Check(tt.facts, tt.est)
			if v.Ready != tt.ready {
				t.Errorf("ready = %v, want %v: %s", v.Ready, tt.ready, v.Text())
			}
			var got []Limit
			for _, p := range v.Problems {
				got = append(got, p.Limit)
			}
			if len(got) != len(tt.problems) || (len(got) > 0 && got[0] != tt.problems[0]) {
				t.Errorf("problems %v, want %v", got, tt.problems)
			}
			for _, w := range tt.want {
				if !strings.Contains(v.Text(), w) {
					t.Errorf("the verdict does not say %q:\n%s", w, v.Text())
				}
			}
			err := v.Err()
			var nr *NotReady
			if tt.ready != (err == nil) || (err != nil && !errors.As(err, &nr)) {
				t.Errorf("Err() = %v", err)
			}
			if err != nil && !strings.Contains(err.Error(), "nothing was written") {
				t.Errorf("the refusal does not say nothing was written: %v", err)
			}
		})
	}
}

func withType(f Facts, t string) Facts { f.TokenType = t; return f }

func TestValid(t *testing.T) {
	for _, p := range []string{"", "free", "plus", "business", "enterprise"} {
		if err := ValidPlan(p); err != nil {
			t.Error(err)
		}
	}
	if err := ValidPlan("team"); err == nil || !strings.Contains(err.Error(), "want free") {
		t.Errorf("ValidPlan(team) = %v", err)
	}
	if err := ValidTokenType("bot"); err == nil {
		t.Error("ValidTokenType(bot) accepted")
	}
}
