package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/notebridge/notebridge/notion/blocks"
)

// ownFixtures holds the OneNote page fixtures written for this repository;
// sharedFixtures, the project's shared set beside the repository
// (../shared from the project root), is used in addition when present.
var (
	ownFixtures    = filepath.Join("testdata", "pages")
	sharedFixtures = filepath.Join("..", "..", "shared", "fixtures", "onenote")
)

// fixtureNames lists the fixture pairs as paths without their extension
// (testdata/pages/NAME, then the shared ones), failing the test if the
// repository's own fixtures are missing.
func fixtureNames(t testing.TB) []string {
	t.Helper()
	own, err := filepath.Glob(filepath.Join(ownFixtures, "*.expect.json"))
	if err != nil {
		t.Fatalf("listing fixtures: %v", err)
	}
	if len(own) == 0 {
		t.Fatalf("no fixtures in %s (resolved from %s)", ownFixtures, mustAbs(ownFixtures))
	}
	shared, _ := filepath.Glob(filepath.Join(sharedFixtures, "*.expect.json"))
	var names []string
	for _, m := range append(own, shared...) {
		names = append(names, strings.TrimSuffix(m, ".expect.json"))
	}
	return names
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// fixtureSource is the page a fixture converts: NAME.html for NAME, and
// for a variant NAME.VARIANT (the same page under other options, e.g.
// media-options.skip-images.expect.json) NAME.html too.
func fixtureSource(name string) string {
	dir, base := filepath.Split(name)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return dir + base
}

// readFixture reads the fixture at path (from fixtureNames) with ext.
func readFixture(t testing.TB, path, ext string) []byte {
	t.Helper()
	b, err := os.ReadFile(path + ext)
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	return b
}

// TestFixtures converts every fixture and compares the blocks, mapped
// into the fixtures' neutral shape, with the expected content.
func TestFixtures(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(fixtureLabel(name), func(t *testing.T) {
			src := readFixture(t, fixtureSource(name), ".html")
			var want struct {
				Title   string           `json:"title"`
				Created string           `json:"created"`
				Blocks  []map[string]any `json:"blocks"`
				// Losses, when given, are the page's exact loss report
				// (our own fixtures; the shared set has none).
				Losses *[]fixtureLoss `json:"losses"`
				// Options, when given, are the conversion's options
				// (fixtureOptions); else the defaults.
				Options *fixtureOptions `json:"options"`
			}
			if err := json.Unmarshal(readFixture(t, name, ".expect.json"), &want); err != nil {
				t.Fatalf("reading expectation: %v", err)
			}
			var opts Options
			if want.Options != nil {
				opts = want.Options.options(t)
			}
			res, err := Page(src, opts)
			if err != nil {
				t.Fatalf("Page: %v", err)
			}
			if got, w := normText(res.Title), normText(want.Title); got != w {
				t.Errorf("title = %q, want %q", got, w)
			}
			if res.Created != want.Created {
				t.Errorf("created = %q, want %q", res.Created, want.Created)
			}
			if err := Validate(res.Blocks); err != nil {
				t.Errorf("Validate: %v", err)
			}
			wantBlocks := roundTrip(t, normExpected(want.Blocks, 3))
			gotBlocks := roundTrip(t, neutralBlocks(res.Blocks))
			compareBlocks(t, gotBlocks, wantBlocks)

			inks := bytes.Count(src, []byte("<!-- InkNode is not supported -->"))
			inkReported := lossCount(res.Losses, LossInk)
			if opts.SkipInk {
				inkReported = lossDetailCount(res.Losses, LossSkippedInk, skippedInk)
			}
			if inkReported != inks {
				t.Errorf("ink reported %d times, want %d (one per InkNode comment)", inkReported, inks)
			}
			checkResources(t, res)
			if want.Losses != nil {
				compareLosses(t, res.Losses, *want.Losses)
			}
		})
	}
}

// fixtureOptions are the options a fixture converts with, named as the
// migration input names them.
type fixtureOptions struct {
	ImageAlt        string `json:"imageAlt"`
	SkipImages      bool   `json:"skipImages"`
	SkipAttachments bool   `json:"skipAttachments"`
	SkipInk         bool   `json:"skipInk"`
}

func (f fixtureOptions) options(t *testing.T) Options {
	t.Helper()
	alt, err := ParseImageAlt(f.ImageAlt)
	if err != nil {
		t.Fatalf("fixture options: %v", err)
	}
	return Options{ImageAlt: alt, SkipImages: f.SkipImages, SkipAttachments: f.SkipAttachments, SkipInk: f.SkipInk}
}

// lossDetailCount counts the occurrences of one loss.
func lossDetailCount(losses []Loss, kind LossKind, detail string) int {
	n := 0
	for _, l := range losses {
		if l.Kind == kind && l.Detail == detail {
			n += l.Count
		}
	}
	return n
}

// fixtureLoss is a loss as a fixture writes it: everything but the excerpt.
type fixtureLoss struct {
	Kind     LossKind `json:"kind"`
	Severity string   `json:"severity"`
	Detail   string   `json:"detail"`
	Count    int      `json:"count"`
}

func compareLosses(t *testing.T, got []Loss, want []fixtureLoss) {
	t.Helper()
	g := make([]fixtureLoss, 0, len(got))
	for _, l := range got {
		g = append(g, fixtureLoss{Kind: l.Kind, Severity: l.Severity.String(), Detail: l.Detail, Count: l.Count})
	}
	if !reflect.DeepEqual(g, want) {
		gj, _ := json.MarshalIndent(g, "    ", "  ")
		wj, _ := json.MarshalIndent(want, "    ", "  ")
		t.Errorf("losses differ\n  got:  %s\n  want: %s", gj, wj)
	}
}

// fixtureLabel names a fixture in test output: "own/NAME" or "shared/NAME".
func fixtureLabel(path string) string {
	set := "own"
	if strings.HasPrefix(path, sharedFixtures) {
		set = "shared"
	}
	return set + "/" + filepath.Base(path)
}

func lossCount(losses []Loss, kind LossKind) int {
	n := 0
	for _, l := range losses {
		if l.Kind == kind {
			n += l.Count
		}
	}
	return n
}

// checkResources checks that Resources lists the media blocks' resources,
// once each, in block order.
func checkResources(t *testing.T, res *Result) {
	t.Helper()
	var want []string
	seen := map[string]bool{}
	var walk func(bs []blocks.Block)
	walk = func(bs []blocks.Block) {
		for _, b := range bs {
			if b.Media != nil && b.Media.Resource != nil && !seen[b.Media.Resource.ID] {
				seen[b.Media.Resource.ID] = true
				want = append(want, b.Media.Resource.ID)
			}
			walk(b.Children)
		}
	}
	walk(res.Blocks)
	var got []string
	for _, r := range res.Resources {
		got = append(got, r.ID)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resources = %q, want %q", got, want)
	}
}

// roundTrip passes v through JSON so both sides have the same dynamic types.
func roundTrip(t *testing.T, v []map[string]any) []any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareBlocks reports each differing block as indented JSON.
func compareBlocks(t *testing.T, got, want []any) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		var g, w any
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.MarshalIndent(g, "    ", "  ")
			wj, _ := json.MarshalIndent(w, "    ", "  ")
			t.Errorf("block %d differs\n  got:  %s\n  want: %s", i, gj, wj)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d blocks, want %d", len(got), len(want))
	}
}

// normText is the fixtures' text comparison: NFC, NBSP as space.
func normText(s string) string {
	return strings.ReplaceAll(norm.NFC.String(s), "\u00a0", " ")
}

// latexNoise is what the fixtures' LaTeX comparison ignores.
var latexNoise = regexp.MustCompile(`\\left|\\right|\\limits|\\[,:;! ]|\\quad|~|[{}\s]`)

func normLatex(s string) string { return latexNoise.ReplaceAllString(s, "") }

// normExpected applies the comparison rules to expected blocks: headings
// capped at deepest, colours mapped to Notion's named colours (the
// documented palette mapping), text in NFC, LaTeX normalised, and the
// src_resource that a Notion block cannot carry dropped.
func normExpected(bs []map[string]any, deepest int) []map[string]any {
	out := make([]map[string]any, 0, len(bs))
	for _, b := range bs {
		n := map[string]any{}
		for k, v := range b {
			switch k {
			case "type":
				typ := v.(string)
				var level int
				if _, err := fmt.Sscanf(typ, "heading_%d", &level); err == nil && level > deepest {
					typ = fmt.Sprintf("heading_%d", deepest)
				}
				n[k] = typ
			case "text":
				n[k] = normText(v.(string))
			case "marks":
				if ms := normExpectedMarks(v.([]any)); len(ms) > 0 {
					n[k] = ms
				}
			case "expression":
				n[k] = normLatex(v.(string))
			case "children":
				var kids []map[string]any
				for _, c := range v.([]any) {
					kids = append(kids, c.(map[string]any))
				}
				n[k] = normExpected(kids, deepest)
			case "rows":
				var rows [][]any
				for _, r := range v.([]any) {
					var cells []any
					for _, c := range r.([]any) {
						cells = append(cells, normExpectedCell(c))
					}
					rows = append(rows, cells)
				}
				n[k] = rows
			case "src_resource":
			default:
				n[k] = v
			}
		}
		out = append(out, n)
	}
	return out
}

func normExpectedCell(c any) any {
	switch c := c.(type) {
	case string:
		return normText(c)
	case map[string]any:
		text := normText(c["text"].(string))
		if ms, ok := c["marks"].([]any); ok {
			if nm := normExpectedMarks(ms); len(nm) > 0 {
				return map[string]any{"text": text, "marks": nm}
			}
		}
		// A cell with structure shows as its flattened text.
		return text
	}
	return c
}

func normExpectedMarks(ms []any) []map[string]any {
	var out []map[string]any
	for _, m := range ms {
		mm := m.(map[string]any)
		n := map[string]any{}
		for k, v := range mm {
			switch k {
			case "text":
				n[k] = normText(v.(string))
			case "color":
				if c := NotionColor(v.(string), false); c != "" {
					n[k] = c
				}
			case "background_color":
				if c := NotionColor(v.(string), true); c != "" {
					n[k] = c
				}
			default:
				n[k] = v
			}
		}
		if len(n) > 2 {
			out = append(out, n)
		}
	}
	return out
}

// neutralBlocks maps Notion blocks into the fixtures' neutral shape.
func neutralBlocks(bs []blocks.Block) []map[string]any {
	out := make([]map[string]any, 0, len(bs))
	for _, b := range bs {
		n := map[string]any{"type": string(b.Type)}
		switch b.Type {
		case blocks.Paragraph, blocks.Quote, blocks.Heading1, blocks.Heading2, blocks.Heading3,
			blocks.BulletedListItem, blocks.NumberedListItem, blocks.ToDo, blocks.Callout:
			shapes, rt := SplitTagMarker(b.RichText)
			switch b.Type {
			case blocks.ToDo:
				if shapes == nil {
					shapes = []string{"to-do"}
				}
				n["checked"] = b.Checked
			case blocks.Callout:
				first, _ := TagShape(b.Icon)
				shapes = append([]string{first}, shapes...)
			}
			putTags(n, b.Type, shapes)
			text, marks := neutralText(rt)
			n["text"] = text
			if len(marks) > 0 {
				n["marks"] = marks
			}
		case blocks.Code:
			n["text"] = normText(blocks.PlainText(b.RichText))
		case blocks.Equation:
			n["expression"] = normLatex(b.Expression)
		case blocks.Table:
			var rows [][]any
			for _, row := range b.Children {
				var cells []any
				for _, cell := range row.Cells {
					text, marks := neutralText(cell)
					if len(marks) == 0 {
						cells = append(cells, text)
					} else {
						cells = append(cells, map[string]any{"text": text, "marks": marks})
					}
				}
				rows = append(rows, cells)
			}
			n["rows"] = rows
			n["has_column_header"] = b.HasColumnHeader
		case blocks.Image:
			n["resource"] = resourceOrURL(b.Media)
			shapes, rest := SplitTagMarker(b.Caption)
			putTags(n, b.Type, shapes)
			n["caption"] = normText(blocks.PlainText(rest))
		case blocks.File, blocks.PDF, blocks.Audio:
			n["type"] = "file"
			n["resource"] = resourceOrURL(b.Media)
			n["name"] = b.Media.Name
			if b.Media.Resource != nil {
				n["mime"] = b.Media.Resource.MIME
			}
		case blocks.Video, blocks.Embed:
			if b.Media.Resource != nil {
				n["type"] = "file"
				n["resource"] = b.Media.Resource.ID
				n["name"] = b.Media.Name
				n["mime"] = b.Media.Resource.MIME
				break
			}
			n["url"] = b.Media.URL
		}
		if len(b.Children) > 0 && b.Type != blocks.Table {
			n["children"] = neutralBlocks(b.Children)
		}
		out = append(out, n)
	}
	return out
}

func resourceOrURL(m *blocks.Media) string {
	if m.Resource != nil {
		return m.Resource.ID
	}
	return m.URL
}

// putTags records tag shapes as the fixtures do: tag is the check-box shape
// on a to_do and the first shape elsewhere; tags only when there are
// several.
func putTags(n map[string]any, typ blocks.Type, shapes []string) {
	if len(shapes) == 0 {
		return
	}
	tag := shapes[0]
	if typ == blocks.ToDo {
		for _, s := range shapes {
			if checkBoxShapes[s] {
				tag = s
				break
			}
		}
	}
	n["tag"] = tag
	if len(shapes) > 1 {
		n["tags"] = shapes
	}
}

// neutralAnn is the neutral formatting of one rune.
type neutralAnn struct {
	bold, italic, underline, strike, code bool
	color, background, href, pageID       string
	sup, sub                              bool
}

// reverse super- and subscript maps, for reading the converter's
// rendering back.
var fromSuper, fromSub = invert(superscripts), invert(subscripts)

func invert(m map[rune]rune) map[rune]rune {
	out := make(map[rune]rune, len(m))
	for k, v := range m {
		if k == '−' {
			continue
		}
		out[v] = k
	}
	return out
}

// neutralText maps rich text to the neutral text and marks: Unicode
// super/subscripts and ^(…)/_(…) read back as superscript/subscript marks,
// Notion colours as color/background_color, onenote PageRef as
// onenote_page_id; runs merged, trimmed, whitespace-only runs dropped.
func neutralText(rt []blocks.RichText) (string, []map[string]any) {
	type piece struct {
		text string
		ann  neutralAnn
	}
	var pieces []piece
	add := func(r rune, a neutralAnn) {
		if n := len(pieces); n > 0 && pieces[n-1].ann == a {
			pieces[n-1].text += string(r)
			return
		}
		pieces = append(pieces, piece{string(r), a})
	}
	for _, item := range rt {
		a := neutralAnn{bold: item.Annotations.Bold, italic: item.Annotations.Italic,
			underline: item.Annotations.Underline, strike: item.Annotations.Strikethrough,
			code: item.Annotations.Code, href: item.Link, pageID: item.PageRef}
		if c := item.Annotations.Color; strings.HasSuffix(c, "_background") {
			a.background = c
		} else {
			a.color = c
		}
		text := item.Text
		if item.Equation != "" {
			text = item.Equation
		}
		rs := []rune(text)
		for i := 0; i < len(rs); i++ {
			r := rs[i]
			if (r == '^' || r == '_') && i+1 < len(rs) && rs[i+1] == '(' {
				if end := indexRune(rs[i+2:], ')'); end >= 0 {
					sa := a
					sa.sup, sa.sub = r == '^', r == '_'
					for _, inner := range rs[i+2 : i+2+end] {
						add(inner, sa)
					}
					i += 2 + end
					continue
				}
			}
			switch {
			case fromSuper[r] != 0:
				sa := a
				sa.sup = true
				add(fromSuper[r], sa)
			case fromSub[r] != 0:
				sa := a
				sa.sub = true
				add(fromSub[r], sa)
			default:
				add(r, a)
			}
		}
	}
	var text strings.Builder
	var marks []map[string]any
	offset := 0
	for _, p := range pieces {
		s := normText(p.text)
		if p.ann != (neutralAnn{}) {
			trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
			start := offset + len([]rune(s)) - len([]rune(trimmed))
			trimmed = strings.TrimRightFunc(trimmed, unicode.IsSpace)
			if m := annMap(p.ann); trimmed != "" && len(m) > 0 {
				m["text"] = trimmed
				m["start"] = start
				marks = append(marks, m)
			}
		}
		text.WriteString(s)
		offset += len([]rune(s))
	}
	return text.String(), marks
}

func indexRune(rs []rune, r rune) int {
	for i, x := range rs {
		if x == r {
			return i
		}
	}
	return -1
}

func annMap(a neutralAnn) map[string]any {
	m := map[string]any{}
	set := func(k string, v bool) {
		if v {
			m[k] = true
		}
	}
	set("bold", a.bold)
	set("italic", a.italic)
	set("underline", a.underline)
	set("strikethrough", a.strike)
	set("code", a.code)
	set("superscript", a.sup)
	set("subscript", a.sub)
	if a.color != "" {
		m["color"] = a.color
	}
	if a.background != "" {
		m["background_color"] = a.background
	}
	if a.href != "" {
		m["href"] = a.href
	}
	if a.pageID != "" {
		m["onenote_page_id"] = a.pageID
	}
	return m
}
