package convert

import (
	"strings"
	"unicode/utf8"
)

// LossKind names a kind of content that could not be carried over exactly.
type LossKind string

// The kinds of loss the converter reports.
const (
	// LossInk is a drawing or handwriting: Graph's plain content GET leaves
	// an <!-- InkNode is not supported --> comment where it was.
	LossInk LossKind = "ink"
	// LossUnsupported is content Graph could not export (another HTML
	// comment) or an element the converter does not know.
	LossUnsupported LossKind = "unsupported-content"
	// LossEmbed is an object, iframe or image that has no usable source.
	LossEmbed LossKind = "unsupported-embed"
	// LossCellFlattened is a table cell whose lists, to-dos, callouts,
	// images or nested tables were flattened into plain cell text.
	LossCellFlattened LossKind = "table-cell-flattened"
	// LossColor is a CSS text or highlight colour approximated by one of
	// Notion's named colours, or dropped.
	LossColor LossKind = "color-approximated"
	// LossScript is superscript or subscript text shown with Unicode
	// super/subscript characters or as ^(…) / _(…).
	LossScript LossKind = "sup-sub-approximated"
	// LossHeading is a heading deeper than the deepest level emitted.
	LossHeading LossKind = "heading-capped"
	// LossTag is a note tag that could not be kept exactly.
	LossTag LossKind = "tag"
	// LossEquation is an equation that could not be written as a Notion
	// equation (too long, or MathML the translator does not know).
	LossEquation LossKind = "equation"
	// LossLink is a link that Notion cannot carry (its URL is too long).
	LossLink LossKind = "link"
	// LossSplit is text split into several blocks because one block
	// cannot hold it.
	LossSplit LossKind = "block-split"
	// LossTooDeep is markup nested deeper than the converter descends.
	LossTooDeep LossKind = "too-deep"
	// LossSkippedImage, LossSkippedAttachment and LossSkippedInk are
	// content left out because the migration's options asked for it
	// (Options.SkipImages, SkipAttachments, SkipInk): not a loss of the
	// converter, and always of severity Skipped.
	LossSkippedImage      LossKind = "image-skipped"
	LossSkippedAttachment LossKind = "attachment-skipped"
	LossSkippedInk        LossKind = "ink-skipped"
	// LossConflictPage is a conflict page read from a OneNote file: a
	// version OneNote kept beside a page after a sync conflict. It is
	// migrated as a page of its own and named.
	LossConflictPage LossKind = "conflict-page"
)

// Severity says how much of a loss the reader of the Notion page notices.
type Severity int

// The severities, from least to most serious.
const (
	// Mapped means the content is there with the same meaning but in an
	// approximate form (a named colour for an RGB one, ² for <sup>2</sup>).
	Mapped Severity = iota
	// Degraded means the content is there but part of its structure or
	// formatting is gone (a flattened table cell, a dropped link).
	Degraded
	// Dropped means the content is missing from the Notion page.
	Dropped
	// Skipped means the content is missing because an option asked to
	// leave it out (LossSkippedImage, …): the operator's choice, not a
	// loss.
	Skipped
)

// String returns the severity's lower-case name.
func (s Severity) String() string {
	switch s {
	case Mapped:
		return "mapped"
	case Degraded:
		return "degraded"
	case Dropped:
		return "dropped"
	case Skipped:
		return "skipped"
	}
	return "unknown"
}

// MarshalText writes the severity's name, so reports read well as JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Loss is one thing on a page that could not be carried over exactly.
// Identical losses (same Kind and Detail) are reported once, with Count
// saying how often they occurred.
type Loss struct {
	Kind     LossKind
	Severity Severity
	// Detail says what was lost, e.g. `color "#c00000" shown as "red"`.
	Detail string
	// Near is a short excerpt of the text of the block where the loss
	// occurred (its first occurrence), or "" when there is none.
	Near string
	// Count is how many times this loss occurred on the page; a colour
	// is counted once a block (or table cell), however many runs it spans.
	Count int
}

// lossLog collects a page's losses, merging repeats.
type lossLog struct {
	losses []Loss
	index  map[string]int
}

func (l *lossLog) add(kind LossKind, sev Severity, detail, near string) {
	l.addLazy(kind, sev, detail, func() string { return near })
}

// addLazy is add with the excerpt computed only for a loss not seen
// before.
func (l *lossLog) addLazy(kind LossKind, sev Severity, detail string, near func() string) {
	key := string(kind) + "\x00" + detail
	if i, ok := l.index[key]; ok {
		l.losses[i].Count++
		return
	}
	if l.index == nil {
		l.index = make(map[string]int)
	}
	l.index[key] = len(l.losses)
	l.losses = append(l.losses, Loss{Kind: kind, Severity: sev, Detail: detail, Near: excerpt(near()), Count: 1})
}

// excerptLen is the most runes an excerpt keeps.
const excerptLen = 48

// excerpt shortens s to a one-line excerpt of at most excerptLen runes.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= excerptLen {
		return s
	}
	n := 0
	for i := range s {
		if n == excerptLen {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// quote returns s in double quotes, for loss details.
func quote(s string) string { return `"` + s + `"` }
