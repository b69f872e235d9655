package workflows

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

// deepGraph answers the tree activities for notebook "Deep": section s0
// at the top and groups g1 > g2 > g3 > g4, each holding one section, the
// way real Graph does: the expanded call reaches g1 and its sections, the
// rest is listed per group. With outage, the expanded call fails with
// 500/19999 and only plain listings work.
type deepGraph struct {
	outage bool
	calls  []string // activity and container of each call
}

var deepGroups = []string{"g1", "g2", "g3", "g4"}

func (d *deepGraph) notebooks(_ context.Context, in activities.ListNotebooksInput) (activities.ListNotebooksResult, error) {
	d.calls = append(d.calls, "notebooks plain="+map[bool]string{true: "yes", false: "no"}[in.Plain])
	if !in.Plain {
		if d.outage {
			return activities.ListNotebooksResult{}, entity.OutcomeError(errors.New("onenote: list notebooks: transient: HTTP 500 code 19999"),
				failure.GraphTransient, limiter.Outcome{Status: 500, Code: "19999"}, false)
		}
		return activities.ListNotebooksResult{Match: &activities.NotebookTree{ID: "nb", Name: "Deep",
			Sections: []activities.TreeNode{{ID: "s0", Name: "S0"}},
			SectionGroups: []activities.GroupNode{{ID: "g1", Name: "G1", Sections: []activities.TreeNode{{ID: "s1", Name: "S1"}},
				GroupsUnlisted: true}}}}, nil
	}
	return activities.ListNotebooksResult{Match: &activities.NotebookTree{ID: "nb", Name: "Deep", Unlisted: true}}, nil
}

func (d *deepGraph) sections(_ context.Context, in activities.ListChildrenInput) (activities.ListSectionsResult, error) {
	d.calls = append(d.calls, "sections of "+in.Parent.ID)
	if in.Parent.Kind == onenote.InNotebook {
		return activities.ListSectionsResult{Sections: []activities.TreeNode{{ID: "s0", Name: "S0"}}}, nil
	}
	i := slices.Index(deepGroups, in.Parent.ID)
	id := "s" + in.Parent.ID[1:]
	if i < 0 {
		return activities.ListSectionsResult{}, errors.New("no such group")
	}
	return activities.ListSectionsResult{Sections: []activities.TreeNode{{ID: id, Name: strings.ToUpper(id)}}}, nil
}

func (d *deepGraph) groups(_ context.Context, in activities.ListChildrenInput) (activities.ListGroupsResult, error) {
	d.calls = append(d.calls, "groups of "+in.Parent.ID)
	next := ""
	if in.Parent.Kind == onenote.InNotebook {
		next = deepGroups[0]
	} else if i := slices.Index(deepGroups, in.Parent.ID); i >= 0 && i+1 < len(deepGroups) {
		next = deepGroups[i+1]
	}
	if next == "" {
		return activities.ListGroupsResult{Groups: []activities.GroupNode{}}, nil
	}
	return activities.ListGroupsResult{Groups: []activities.GroupNode{{ID: next, Name: strings.ToUpper(next), SectionsUnlisted: true, GroupsUnlisted: true}}}, nil
}

var wantDeepSections = []string{
	"Deep / S0",
	"Deep / G1 / S1",
	"Deep / G1 / G2 / S2",
	"Deep / G1 / G2 / G3 / S3",
	"Deep / G1 / G2 / G3 / G4 / S4",
}

// TestNotebookTreeWalk: a notebook with section groups nested four deep
// is read with the expanded call, then one call per listing of the groups
// below the first level (each its own Graph call under a permit); while
// Graph fails the expanded call, with plain listings. Every section
// migrates.
func TestNotebookTreeWalk(t *testing.T) {
	tests := []struct {
		name   string
		outage bool
		calls  []string
	}{
		{"expanded", false, []string{"notebooks plain=no", "groups of g1", "sections of g2", "groups of g2",
			"sections of g3", "groups of g3", "sections of g4", "groups of g4"}},
		{"expand outage", true, []string{"notebooks plain=no", "notebooks plain=yes", "sections of nb", "groups of nb",
			"sections of g1", "groups of g1", "sections of g2", "groups of g2", "sections of g3", "groups of g3", "sections of g4", "groups of g4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, permits := newEnv(t)
			d := &deepGraph{outage: tt.outage}
			env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(d.notebooks)
			env.OnActivity(activities.ListSectionsName, mock.Anything, mock.Anything).Return(d.sections)
			env.OnActivity(activities.ListGroupsName, mock.Anything, mock.Anything).Return(d.groups)
			env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{}, nil)
			var migrated []string
			env.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(
				func(_ workflow.Context, in SectionInput) (SectionResult, error) {
					migrated = append(migrated, in.Section.Path)
					return SectionResult{SectionID: in.Section.ID}, nil
				})
			env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Deep", NotionParent: "p"})
			var rep NotebookReport
			if err := env.GetWorkflowResult(&rep); err != nil {
				t.Fatal(err)
			}
			var reported []string
			for _, s := range rep.Sections {
				reported = append(reported, s.Path)
			}
			if !slices.Equal(reported, wantDeepSections) {
				t.Errorf("report's sections %q, want %q", reported, wantDeepSections)
			}
			want := slices.Sorted(slices.Values(wantDeepSections))
			if slices.Sort(migrated); !slices.Equal(migrated, want) {
				t.Errorf("migrated sections %q, want %q", migrated, want)
			}
			if !slices.Equal(d.calls, tt.calls) {
				t.Errorf("tree calls %q,\nwant %q", d.calls, tt.calls)
			}
			if *permits != len(tt.calls) {
				t.Errorf("%d calls under permits for %d tree calls", *permits, len(tt.calls))
			}
		})
	}
}

// TestScanCountsTreeCalls: the scan's estimate of a notebook's requests
// counts its tree calls (the expanded call plus the deeper listings), and
// the requests it reports are every call it made.
func TestScanCountsTreeCalls(t *testing.T) {
	env, permits := newEnv(t)
	d := &deepGraph{}
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ListNotebooksInput) (activities.ListNotebooksResult, error) {
			r, err := d.notebooks(ctx, in)
			if r.Match != nil {
				r.Notebooks, r.Match = []activities.NotebookInfo{{ID: r.Match.ID, Name: r.Match.Name, Tree: r.Match}}, nil
			}
			return r, err
		})
	env.OnActivity(activities.ListSectionsName, mock.Anything, mock.Anything).Return(d.sections)
	env.OnActivity(activities.ListGroupsName, mock.Anything, mock.Anything).Return(d.groups)
	env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(activities.ListPagesResult{
		Pages: []activities.PageMeta{{ID: "p1"}, {ID: "p2", Level: 1}}, Done: true}, nil)
	env.ExecuteWorkflow(ScanNotebooksName, ScanInput{User: "alice"})
	var res ScanResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(res.Notebooks) != 1 || len(res.Notebooks[0].Sections) != 5 {
		t.Fatalf("scan %+v", res)
	}
	nb := res.Notebooks[0]
	// Tree: 1 expanded + 7 deeper listings; 5 page listings; 10 pages of
	// content; 10 resources (1 per page assumed).
	if nb.Pages != 10 || nb.Requests != 8+5+10+10 {
		t.Errorf("estimate %d requests for %d pages, want 33 for 10", nb.Requests, nb.Pages)
	}
	if res.Requests != 8+5 || *permits != res.Requests {
		t.Errorf("scan reports %d requests, made %d calls; want 13", res.Requests, *permits)
	}
}

// TestNoFallbackOnFatalTreeErrors: an error no retry can help (here the
// sign-in gone) ends the tree read at once, without the plain listings.
func TestNoFallbackOnFatalTreeErrors(t *testing.T) {
	env, permits := newEnv(t)
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(
		activities.ListNotebooksResult{}, temporal.NewNonRetryableApplicationError("not signed in", failure.NotSignedIn, nil))
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Deep", NotionParent: "p"})
	if app := failure.Find(env.GetWorkflowError(), failure.Config); app == nil || !strings.Contains(app.Message(), "starter login") {
		t.Fatalf("error %v, want a %s saying to sign in", env.GetWorkflowError(), failure.Config)
	}
	if *permits != 1 {
		t.Errorf("%d tree calls, want 1 (no fallback)", *permits)
	}
}
