package onestore

import fx "github.com/notebridge/notebridge/internal/onestorefixture"

// sectionAs writes a section in the revision store layout, or the
// packaged layout when packaged is set.
func sectionAs(pages []fx.Page, packaged bool) []byte {
	if packaged {
		return fx.SectionPackaged(pages)
	}
	return fx.Section(pages)
}

// tocAs writes a table of contents in either layout.
func tocAs(names []string, packaged bool) []byte {
	if packaged {
		return fx.TOCPackaged(names)
	}
	return fx.TOC(names)
}
