package workflows

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/onenote"
)

// flatten lists a notebook's sections depth first: the notebook's own
// sections, then each group's.
func flatten(t activities.NotebookTree) []SectionRef {
	var out []SectionRef
	var walk func(path []string, sections []activities.TreeNode, groups []activities.GroupNode)
	walk = func(path []string, sections []activities.TreeNode, groups []activities.GroupNode) {
		for _, s := range sections {
			out = append(out, SectionRef{ID: s.ID, Name: s.Name, Path: strings.Join(append(slices.Clone(path), s.Name), " / ")})
		}
		for _, g := range groups {
			walk(append(slices.Clone(path), g.Name), g.Sections, g.SectionGroups)
		}
	}
	walk([]string{t.Name}, t.Sections, t.SectionGroups)
	return out
}

// matches reports whether a section is named by sel: its ID, its name, or
// its path below the notebook ("Group/Section", separators "/" or " / ").
func matches(r SectionRef, sel string) bool {
	sel = strings.TrimSpace(sel)
	if sel == r.ID || strings.EqualFold(sel, r.Name) {
		return true
	}
	parts := strings.Split(r.Path, " / ")
	rel := strings.Join(parts[1:], "/")
	return strings.EqualFold(strings.ReplaceAll(strings.ReplaceAll(sel, " / ", "/"), " /", "/"), rel)
}

// filterSections applies include and exclude; a selector that names no
// section is an input error.
func filterSections(refs []SectionRef, include, exclude []string) ([]SectionRef, error) {
	for _, f := range []struct {
		name string
		sels []string
	}{{"include", include}, {"exclude", exclude}} {
		for _, sel := range f.sels {
			if !slices.ContainsFunc(refs, func(r SectionRef) bool { return matches(r, sel) }) {
				names := make([]string, len(refs))
				for i, r := range refs {
					names[i] = fmt.Sprintf("%q", r.Path)
				}
				return nil, invalid(f.name, "no section is named %q; the sections are %s", sel, strings.Join(names, ", "))
			}
		}
	}
	var out []SectionRef
	for _, r := range refs {
		in := len(include) == 0 || slices.ContainsFunc(include, func(s string) bool { return matches(r, s) })
		out_ := slices.ContainsFunc(exclude, func(s string) bool { return matches(r, s) })
		if in && !out_ {
			out = append(out, r)
		}
	}
	return out, nil
}

// Tree reading. Real Graph serves a notebook's tree two levels deep in
// one call at most (sections, section groups and their sections), so the
// groups inside groups are listed one Graph request each, every request
// under its own permit; when Graph fails the expanded call (500/19999,
// seen for minutes while plain calls worked), the tree is read with plain
// listings instead. See onenote.ExpandNotebookTree.

const (
	// expandAttempts is how many permits the expanded notebooks call may
	// use before the tree is read without $expand.
	expandAttempts = 2
	// treeCallAttempts bounds the permits of each other tree call: a
	// 500/19999 on a GET is retried, each time through a new permit.
	treeCallAttempts = 10
	// maxGroupDepth bounds how deep section groups are followed, against
	// a tree that answers in circles.
	maxGroupDepth = 64
)

// treeReader reads notebook trees, each Graph request under a permit.
type treeReader struct {
	lim  caller
	user string
	lane limiter.Lane
	// onAttempt, when set, is told of every Graph attempt.
	onAttempt func(entity.Attempt)
	// requests counts the permits used (failed attempts included), calls
	// the tree calls that succeeded, per notebook ID: what a migration of
	// it needs beyond the notebooks listing.
	requests int
	waited   time.Duration
	calls    map[string]int
	// plain is set once the expanded call failed and the plain listings
	// were used.
	plain bool
}

func newTreeReader(lim caller, user string, lane limiter.Lane) *treeReader {
	return &treeReader{lim: lim, user: user, lane: lane, calls: map[string]int{}}
}

// call runs one tree activity under a permit.
func (r *treeReader) call(ctx workflow.Context, activity string, arg any, summary string, attempts int, result any) error {
	st, err := r.lim.Call(ctx, entity.Call{
		Ask:         entity.AskOptions{User: r.user, Lane: r.lane},
		Activity:    activity,
		Args:        []any{arg},
		Options:     graphOptions(summary),
		MaxAttempts: attempts,
		OnAttempt:   r.onAttempt,
	}, result)
	r.requests += st.Attempts
	r.waited += st.Waited
	return err
}

// notebooks lists the user's notebooks (every page of them) with the
// expanded call, or with plain listings when Graph fails it. With match
// set only the matching notebook's tree is returned (nil if none
// matches); names lists every notebook seen.
func (r *treeReader) notebooks(ctx workflow.Context, match string) (trees []*activities.NotebookTree, names []string, err error) {
	trees, names, err = r.listNotebooks(ctx, match, false)
	if app := failure.Find(err); err == nil || ctx.Err() != nil || (app != nil && app.NonRetryable()) {
		// Done, or nothing else would help (the sign-in is gone, the
		// library is over its limit, no permission).
		return trees, names, err
	}
	workflow.GetLogger(ctx).Warn("The expanded notebooks call failed; reading the tree without $expand", "user", r.user, "error", err)
	r.plain = true
	return r.listNotebooks(ctx, match, true)
}

func (r *treeReader) listNotebooks(ctx workflow.Context, match string, plain bool) ([]*activities.NotebookTree, []string, error) {
	var trees []*activities.NotebookTree
	var names []string
	attempts, summary := expandAttempts, "Read the notebook tree of "+r.user
	if plain {
		attempts, summary = treeCallAttempts, "List the notebooks of "+r.user+" (without $expand)"
	}
	next := ""
	for {
		var res activities.ListNotebooksResult
		err := r.call(ctx, activities.ListNotebooksName,
			activities.ListNotebooksInput{User: r.user, Next: next, Match: match, Plain: plain}, summary, attempts, &res)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range res.Notebooks {
			names = append(names, n.Name)
			if n.Tree != nil {
				trees = append(trees, n.Tree)
			}
		}
		if res.Match != nil {
			return []*activities.NotebookTree{res.Match}, names, nil
		}
		if res.Next == "" {
			return trees, names, nil
		}
		next = res.Next
	}
}

// complete lists what the tree calls so far left unlisted: the
// notebook's own sections and groups after a plain listing, and the
// groups (and their sections) below the first level.
func (r *treeReader) complete(ctx workflow.Context, t *activities.NotebookTree) error {
	seen := map[string]bool{}
	root := onenote.Container{Kind: onenote.InNotebook, ID: t.ID}
	if t.Unlisted {
		var err error
		if t.Sections, err = r.sections(ctx, t.ID, root, t.Name); err != nil {
			return err
		}
		if t.SectionGroups, err = r.groups(ctx, t.ID, root, t.Name); err != nil {
			return err
		}
		t.Unlisted = false
	}
	for i := range t.SectionGroups {
		if err := r.completeGroup(ctx, t.ID, &t.SectionGroups[i], t.Name, 1, seen); err != nil {
			return err
		}
	}
	return nil
}

func (r *treeReader) completeGroup(ctx workflow.Context, notebookID string, g *activities.GroupNode, path string, depth int, seen map[string]bool) error {
	path += " / " + g.Name
	if depth > maxGroupDepth || seen[g.ID] {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"section group %q nests deeper than %d levels or contains itself; Graph's answers about it do not form a tree",
			path, maxGroupDepth), failure.Config, nil)
	}
	seen[g.ID] = true
	in := onenote.Container{Kind: onenote.InSectionGroup, ID: g.ID}
	var err error
	if g.SectionsUnlisted {
		if g.Sections, err = r.sections(ctx, notebookID, in, path); err != nil {
			return err
		}
		g.SectionsUnlisted = false
	}
	if g.GroupsUnlisted {
		if g.SectionGroups, err = r.groups(ctx, notebookID, in, path); err != nil {
			return err
		}
		g.GroupsUnlisted = false
	}
	for i := range g.SectionGroups {
		if err := r.completeGroup(ctx, notebookID, &g.SectionGroups[i], path, depth+1, seen); err != nil {
			return err
		}
	}
	return nil
}

// sections lists every page of a container's sections.
func (r *treeReader) sections(ctx workflow.Context, notebookID string, in onenote.Container, path string) ([]activities.TreeNode, error) {
	var out []activities.TreeNode
	for next := ""; ; {
		var res activities.ListSectionsResult
		if err := r.call(ctx, activities.ListSectionsName, activities.ListChildrenInput{User: r.user, Parent: in, Next: next},
			"List the sections of "+path, treeCallAttempts, &res); err != nil {
			return nil, fmt.Errorf("listing the sections of %q: %w", path, err)
		}
		r.calls[notebookID]++
		out = append(out, res.Sections...)
		if next = res.Next; next == "" {
			return out, nil
		}
	}
}

// groups lists every page of a container's section groups.
func (r *treeReader) groups(ctx workflow.Context, notebookID string, in onenote.Container, path string) ([]activities.GroupNode, error) {
	var out []activities.GroupNode
	for next := ""; ; {
		var res activities.ListGroupsResult
		if err := r.call(ctx, activities.ListGroupsName, activities.ListChildrenInput{User: r.user, Parent: in, Next: next},
			"List the section groups of "+path, treeCallAttempts, &res); err != nil {
			return nil, fmt.Errorf("listing the section groups of %q: %w", path, err)
		}
		r.calls[notebookID]++
		out = append(out, res.Groups...)
		if next = res.Next; next == "" {
			return out, nil
		}
	}
}
