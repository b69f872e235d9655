package workflows

import (
	"fmt"
	"slices"
	"strings"

	"github.com/notebridge/notebridge/activities"
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
