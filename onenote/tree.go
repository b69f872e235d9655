package onenote

// SectionRef is a section with where it sits in its notebook.
type SectionRef struct {
	Section Section
	// NotebookID and NotebookName identify the notebook.
	NotebookID   string
	NotebookName string
	// GroupIDs lists the IDs of the section groups from the notebook down
	// to the section, outermost first; empty for a top-level section.
	GroupIDs []string
	// Path is the display names from the notebook to the section:
	// notebook, groups..., section.
	Path []string
}

// FlattenSections returns every section of nb, depth first: the notebook's
// own sections first, then each section group's sections (and its nested
// groups') in order.
func FlattenSections(nb Notebook) []SectionRef {
	var out []SectionRef
	var walk func(sections []Section, groups []SectionGroup, ids, names []string)
	walk = func(sections []Section, groups []SectionGroup, ids, names []string) {
		for _, s := range sections {
			out = append(out, SectionRef{
				Section:      s,
				NotebookID:   nb.ID,
				NotebookName: nb.DisplayName,
				GroupIDs:     append([]string(nil), ids...),
				Path:         append(append([]string(nil), names...), s.DisplayName),
			})
		}
		for _, g := range groups {
			walk(g.Sections, g.SectionGroups,
				append(append([]string(nil), ids...), g.ID),
				append(append([]string(nil), names...), g.DisplayName))
		}
	}
	walk(nb.Sections, nb.SectionGroups, nil, []string{nb.DisplayName})
	return out
}
