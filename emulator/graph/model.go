package graph

import "time"

// Notebook is a OneNote notebook. Sections and SectionGroups are its direct
// children. Empty ids and GUIDs are filled in by Server.AddNotebooks.
type Notebook struct {
	ID                   string
	DisplayName          string
	CreatedDateTime      time.Time
	LastModifiedDateTime time.Time
	Sections             []*Section
	SectionGroups        []*SectionGroup
}

// SectionGroup is a section group; groups nest to any depth.
type SectionGroup struct {
	ID                   string
	DisplayName          string
	CreatedDateTime      time.Time
	LastModifiedDateTime time.Time
	Sections             []*Section
	SectionGroups        []*SectionGroup
}

// Section is a OneNote section holding pages.
type Section struct {
	ID                   string
	DisplayName          string
	CreatedDateTime      time.Time
	LastModifiedDateTime time.Time
	// GUID is the section-id used in onenote: client URLs.
	GUID  string
	Pages []*Page
	// PasswordProtected (locked) sections cannot be read: listing their
	// pages and reading their pages, content and resources answer 403 with
	// code 20185 (see LockSection and GenSpec.LockedSections).
	PasswordProtected bool
}

// Page is a OneNote page. Its content is HTML if set, otherwise it is
// generated lazily and deterministically (see Generate).
type Page struct {
	ID                   string
	Title                string
	CreatedDateTime      time.Time
	LastModifiedDateTime time.Time
	// Level (0..2) and Order (position in the section) are what
	// pagelevel=true returns.
	Level int
	Order int
	// GUID is the page-id used in onenote: client URLs and internal links.
	GUID string
	// HTML, when not empty, is the output HTML returned as the content.
	// URLs starting with https://graph.microsoft.com/v1.0/me/onenote/ in it
	// are rewritten to the emulator's host and route.
	HTML string
	// InkML, when not empty, is the ink returned as the second part of a
	// multipart body for ?includeInkML=true.
	InkML string

	gen     *pageGen // lazy content; nil for HTML pages
	version int      // bumped by Server.TouchPage
	deleted bool
	// live marks a page created while the server runs (AddPage,
	// AddPageAt): its title reads "" on GET /pages/{id} for
	// Config.FreshTitleLag after CreatedDateTime.
	live bool
}

// Resource is a binary (image or attachment) referenced by page HTML.
type Resource struct {
	ID          string
	ContentType string
	// Size is the body length in bytes.
	Size int
}
