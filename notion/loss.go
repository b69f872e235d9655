package notion

// LossKind names a kind of content that could not be carried over.
type LossKind string

// The kinds of loss the writer reports.
const (
	// LossAttachment: a file or image Notion refused (type not allowed, or
	// larger than the workspace allows).
	LossAttachment LossKind = "attachment"
	// LossLink: a link that could not stay a link: an internal link to a
	// OneNote page that was not migrated, or a link Notion refuses (a
	// scheme other than http and https), kept as text.
	LossLink LossKind = "link"
	// LossProperty: a property value Notion cannot hold (e.g. a link
	// longer than Notion accepts).
	LossProperty LossKind = "property"
	// LossText: text Notion cannot hold as it was (an over-long link, an
	// equation longer than Notion allows, the formatting of a very long
	// caption or table cell).
	LossText LossKind = "text"
)

// Loss is one thing of a page that could not be carried over, for the
// page's migration report.
type Loss struct {
	Kind LossKind
	// Detail says what was lost and why, e.g. the file name and Notion's
	// reason.
	Detail string
	// Location says where in the page, e.g. "block 12 (image)".
	Location string
}
