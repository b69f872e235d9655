// Package readback tells whether a page landed in Notion as it was meant
// to: it summarises a block tree (what the writer sent, or what a read of
// the page's block children gives back) into counts, compares two
// summaries and yields a verdict with a human sentence ("12 words and 1
// image missing"). It is pure: the Notion writer reads the page and
// stores the verdict.
package readback

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/notebridge/notebridge/notion/blocks"
)

// Summary counts what a page holds. Text that links to another page (an
// internal link: a PageRef the writer sends as text, or the page mention
// the link pass makes of it) is counted as neither words nor characters,
// so a page reads the same before and after the link pass.
type Summary struct {
	// Blocks counts blocks by type, nested ones included.
	Blocks map[blocks.Type]int `json:"blocks,omitempty"`
	// Words and Chars count the text of every block: rich text, captions,
	// table cells and equation expressions (Chars in characters).
	Words int `json:"words,omitempty"`
	Chars int `json:"chars,omitempty"`
	// Images counts image blocks other than drawn ink; Ink the images of
	// drawn ink.
	Images int `json:"images,omitempty"`
	Ink    int `json:"ink,omitempty"`
	// Files counts file and pdf blocks.
	Files int `json:"files,omitempty"`
	// Equations counts equation blocks and inline equations.
	Equations int `json:"equations,omitempty"`
	// Tables counts table blocks.
	Tables int `json:"tables,omitempty"`
	// Links counts runs that link somewhere (a URL or a page mention).
	Links int `json:"links,omitempty"`
}

// IsInk reports whether a media block is drawn ink. A block to be written
// carries the converter's ink resource ("ink:N"); a block written and read
// back carries the uploaded file's name ("ink-N.svg", the last segment of
// a Notion-hosted URL's path).
func IsInk(m blocks.Media) bool {
	if m.Resource != nil && strings.HasPrefix(m.Resource.ID, "ink:") {
		return true
	}
	name := m.Name
	if m.HostedURL != "" {
		p := m.HostedURL
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
		name = path.Base(p)
	}
	return inkName.MatchString(name)
}

var inkName = regexp.MustCompile(`^ink-[0-9]+\.svg$`)

// Summarize counts the blocks bs. isInk tells drawn ink among image
// blocks (IsInk if nil): the writer, which replaces resources by upload
// IDs before sending, passes its own.
func Summarize(bs []blocks.Block, isInk func(blocks.Media) bool) Summary {
	if isInk == nil {
		isInk = IsInk
	}
	s := Summary{Blocks: map[blocks.Type]int{}}
	s.add(bs, isInk)
	return s
}

func (s *Summary) add(bs []blocks.Block, isInk func(blocks.Media) bool) {
	for _, b := range bs {
		s.Blocks[b.Type]++
		switch b.Type {
		case blocks.Image:
			if b.Media != nil && isInk(*b.Media) {
				s.Ink++
			} else {
				s.Images++
			}
		case blocks.File, blocks.PDF:
			s.Files++
		case blocks.Equation:
			s.Equations++
			s.text(b.Expression)
		case blocks.Table:
			s.Tables++
		}
		s.runs(b.RichText)
		s.runs(b.Caption)
		for _, c := range b.Cells {
			s.runs(c)
		}
		s.add(b.Children, isInk)
	}
}

// runs counts a rich-text array. Its text is joined first, so that a run
// cut in two (Notion's 2,000-character limit) counts as one.
func (s *Summary) runs(rt []blocks.RichText) {
	var text strings.Builder
	for _, r := range rt {
		switch {
		case r.Mention != "":
			s.Links++
			text.WriteByte(' ')
		case r.PageRef != "":
			text.WriteByte(' ')
		case r.Equation != "":
			s.Equations++
			text.WriteString(" " + r.Equation + " ")
		default:
			if r.Link != "" && blocks.LinkAllowed(r.Link) {
				s.Links++
			}
			text.WriteString(r.Text)
		}
	}
	s.text(text.String())
}

func (s *Summary) text(t string) {
	s.Words += len(strings.Fields(t))
	s.Chars += utf8.RuneCountInString(strings.Join(strings.Fields(t), ""))
}

// State is a page's verification verdict, as its row stores it.
type State string

// The verdicts.
const (
	// Unverified: the page was not checked (verification turned off, or
	// written before it existed).
	Unverified State = ""
	// Verified: the page read back holds everything that was written.
	Verified State = "verified"
	// Differs: the page read back lacks something that was written, or
	// holds blocks that were not.
	Differs State = "differs"
	// Edited: a person edited the page in Notion since it was written, so
	// it is not compared.
	Edited State = "edited"
)

// Verdict is the outcome of comparing a page with what was written.
type Verdict struct {
	State State `json:"state"`
	// Summary says what differs ("12 words and 1 image missing"), empty
	// when verified.
	Summary string `json:"summary,omitempty"`
}

// category is one count compared, with its names for a sentence.
type category struct {
	one, many string
	count     func(Summary) int
}

var categories = []category{
	{"word", "words", func(s Summary) int { return s.Words }},
	{"character", "characters", func(s Summary) int { return s.Chars }},
	{"image", "images", func(s Summary) int { return s.Images }},
	{"ink image", "ink images", func(s Summary) int { return s.Ink }},
	{"file", "files", func(s Summary) int { return s.Files }},
	{"equation", "equations", func(s Summary) int { return s.Equations }},
	{"table", "tables", func(s Summary) int { return s.Tables }},
	{"link", "links", func(s Summary) int { return s.Links }},
}

// counted are the block types a category above already counts: a missing
// image is said once, as an image.
var counted = []blocks.Type{blocks.Image, blocks.File, blocks.PDF, blocks.Equation, blocks.Table}

// Compare checks got (the page read back) against want (what was
// written). Anything written and not read back is missing; blocks read
// back and not written are extra. Extra text or links are not: the link
// pass turns text into page mentions, and Notion may add neither.
func Compare(want, got Summary) Verdict {
	var missing, extra []string
	for _, c := range categories {
		if d := c.count(want) - c.count(got); d > 0 {
			missing = append(missing, count(d, c.one, c.many))
		}
	}
	types := make([]blocks.Type, 0, len(want.Blocks)+len(got.Blocks))
	for t := range want.Blocks {
		types = append(types, t)
	}
	for t := range got.Blocks {
		if _, ok := want.Blocks[t]; !ok {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	blocksDiffer := false
	for _, t := range types {
		d := want.Blocks[t] - got.Blocks[t]
		if d == 0 {
			continue
		}
		blocksDiffer = true
		if slices.Contains(counted, t) {
			continue
		}
		name := strings.ReplaceAll(string(t), "_", " ")
		if d > 0 {
			missing = append(missing, count(d, name+" block", name+" blocks"))
		} else {
			extra = append(extra, count(-d, name+" block", name+" blocks"))
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		if blocksDiffer {
			// Only covered types differ, upwards: an image more.
			return Verdict{State: Differs, Summary: "more media blocks than written"}
		}
		return Verdict{State: Verified}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, join(missing)+" missing")
	}
	if len(extra) > 0 {
		parts = append(parts, join(extra)+" more than written")
	}
	return Verdict{State: Differs, Summary: strings.Join(parts, "; ")}
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// join lists items as a sentence does: "a", "a and b", "a, b and c".
func join(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Encode is the compact form of s stored on a page's row, so a later
// check (starter verify) compares with what was written.
func (s Summary) Encode() string {
	b, _ := json.Marshal(s) // a struct of ints and a map of ints: cannot fail
	return string(b)
}

// Decode reads a Summary stored by Encode.
func Decode(s string) (Summary, error) {
	var out Summary
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return Summary{}, fmt.Errorf("readback: the stored summary %q is not one Encode wrote: %w", clip(s), err)
	}
	if out.Blocks == nil {
		out.Blocks = map[blocks.Type]int{}
	}
	return out, nil
}

func clip(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:40]) + "…"
}
