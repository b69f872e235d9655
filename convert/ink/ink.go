// Package ink reads the ink of a OneNote page (the InkML part Graph returns
// for GET …/pages/{id}/content?includeInkML=true) and draws each ink group
// as an SVG image.
//
// Parse and SVG are pure functions: no I/O, no clock, no global state, and
// the same input always gives the same bytes. Parse accepts any input and
// never panics: what it cannot read is skipped, and an error is returned
// only when nothing could be read at all.
//
// # Reading InkML
//
// A trace is a stroke: a list of points separated by commas, the values
// of each point in the order of its context's trace format channels (X and
// Y are drawn; pressure and the rest are read and ignored). Values follow
// InkML's encoding: "!" explicit, "'" first difference, "\"" second
// difference, the qualifier holding for its channel until the next one;
// signs separate numbers written without a space ("10-3" is 10 and -3).
// Coordinates and brush sizes are converted to CSS pixels (96 per inch)
// from their channel's units: himetric (OneNote's, 0.01 mm, the default),
// mm, cm, in, pt or px.
//
// A brush gives colour (#rrggbb), width and height, tip and transparency
// (a fraction, 0.5 on OneNote's highlighters, or on a 0-255 scale: see
// transparency); rasterOp "maskPen" (OneNote's highlighter)
// makes a highlighter, drawn half transparent when the brush names no
// transparency or 0, and so does a translucent rectangle tip without a
// rasterOp (Brush.finish).
//
// # Clusters
//
// A real page keeps all of its ink in one traceGroup. Group.Clusters
// splits a group into spatial clusters (strokes that come within a gap of
// each other, transitively), so each drawing, note or mark can be placed
// by the text it was drawn next to.
//
// The document is scanned by hand (scan.go), not with encoding/xml, which
// spends most of a page's time on the long text of traces.
//
// A top-level traceGroup is one ink group, the traces inside nested groups
// included; traces outside any group form one group of their own, after
// the others.
package ink

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Point is a position on the page in CSS pixels.
type Point struct{ X, Y float64 }

// Rect is an axis-aligned rectangle in CSS pixels.
type Rect struct{ Min, Max Point }

// Brush is how a stroke is drawn.
type Brush struct {
	// Color is #rrggbb, lower case.
	Color string
	// Width is the pen's width in CSS pixels.
	Width float64
	// Height is the pen's height, 0 when it is as high as it is wide. A
	// highlighter's rectangular tip is far taller than wide.
	Height float64
	// Opacity is 1 for an opaque pen, less for a transparent one.
	Opacity float64
	// Highlighter is set for OneNote's highlighter pens.
	Highlighter bool
	// Square is set for a rectangular tip.
	Square bool
}

// Stroke is one trace: its brush and its points in order.
type Stroke struct {
	Brush  Brush
	Points []Point
}

// Group is one ink group: strokes drawn together.
type Group struct {
	Strokes []Stroke
}

// Bounds is the rectangle the group's ink covers, pen width included.
func (g Group) Bounds() Rect {
	r := Rect{Min: Point{math.Inf(1), math.Inf(1)}, Max: Point{math.Inf(-1), math.Inf(-1)}}
	for _, s := range g.Strokes {
		h := s.Brush.size() / 2
		for _, p := range s.Points {
			// Points are finite (Parse clamps them): plain comparisons
			// are enough, and far cheaper than math.Min.
			if v := p.X - h; v < r.Min.X {
				r.Min.X = v
			}
			if v := p.Y - h; v < r.Min.Y {
				r.Min.Y = v
			}
			if v := p.X + h; v > r.Max.X {
				r.Max.X = v
			}
			if v := p.Y + h; v > r.Max.Y {
				r.Max.Y = v
			}
		}
	}
	if r.Min.X > r.Max.X {
		return Rect{}
	}
	return r
}

// size is the width a stroke of b is drawn with: the larger of the tip's
// sides (so a highlighter drawn across text covers the line).
func (b Brush) size() float64 { return math.Max(b.Width, b.Height) }

// ErrNoInk is returned by Parse when the input holds no stroke it can read.
var ErrNoInk = errors.New("ink: no readable stroke")

// ErrEmpty is returned by Parse for a complete InkML document that holds no
// trace at all: nothing was drawn. A real notebook answers one (an empty
// traceGroup) for pages without ink. It wraps ErrNoInk.
var ErrEmpty = fmt.Errorf("%w: the InkML document holds no trace", ErrNoInk)

// defaultBrush is InkML's default: a black round pen.
var defaultBrush = Brush{Color: "#000000", Width: 1, Opacity: 1}

// maxPoints bounds the points read from one document, so a hostile input
// cannot make Parse allocate without limit.
const maxPoints = 4 << 20

// context is a trace format: its channels in order and their scales to px.
type context struct {
	channels []string
	scale    []float64
}

var defaultContext = &context{channels: []string{"X", "Y"}, scale: []float64{himetric, himetric}}

// himetric is CSS pixels per himetric unit (0.01 mm).
const himetric = 96 / 2540.0

// unitScale is CSS pixels per unit, or 0 for a unit that is not a length.
func unitScale(u string) float64 {
	switch strings.ToLower(strings.TrimSpace(u)) {
	case "", "himetric":
		return himetric
	case "mm":
		return 96 / 25.4
	case "cm":
		return 96 / 2.54
	case "in":
		return 96
	case "pt":
		return 96 / 72.0
	case "px", "dev":
		return 1
	}
	return 0
}

// parser holds the definitions read so far.
type parser struct {
	brushes  map[string]Brush
	contexts map[string]*context
	points   int
}

// Parse reads an InkML document into its ink groups, in document order
// (loose traces last). It returns ErrNoInk, wrapped, when no stroke could
// be read, and ErrEmpty when the document is complete and holds no trace.
func Parse(doc []byte) ([]Group, error) {
	p := parser{brushes: map[string]Brush{}, contexts: map[string]*context{}}
	sc := scanner{s: doc}
	var groups []Group
	var loose Group
	depth := 0       // traceGroup nesting
	var cur Group    // the top-level group being read
	var brush *Brush // the brush being defined, and its reference
	var brushID string
	var ctx *context
	var trace *traceState
	traces, closed := 0, false // trace elements seen; the ink root ended
	endTrace := func() {
		if s, ok := p.stroke(trace); ok {
			if depth > 0 {
				cur.Strokes = append(cur.Strokes, s)
			} else {
				loose.Strokes = append(loose.Strokes, s)
			}
		}
		trace = nil
	}
	for {
		t := sc.next()
		if t.kind == tokEOF {
			break
		}
		switch t.kind {
		case tokStart:
			switch string(t.name) {
			case "traceGroup":
				if !t.selfClosing {
					depth++
				}
			case "brush":
				b := defaultBrush
				brush, brushID = &b, "#"+t.attrValue("id")
				if t.selfClosing {
					b.finish()
					p.brushes[brushID] = b
					brush = nil
				}
			case "brushProperty":
				if brush != nil {
					applyBrushProperty(brush, t.attrValue("name"), t.attrValue("value"), t.attrValue("units"))
				}
			case "context":
				if !t.selfClosing {
					ctx = &context{}
					p.contexts["#"+t.attrValue("id")] = ctx
				}
			case "channel":
				if ctx != nil {
					ctx.channels = append(ctx.channels, t.attrValue("name"))
					ctx.scale = append(ctx.scale, unitScale(t.attrValue("units")))
				}
			case "ink":
				closed = closed || t.selfClosing
			case "trace":
				traces++
				if !t.selfClosing {
					trace = &traceState{brush: p.brushFor(t.attrValue("brushRef")), ctx: p.contextFor(t.attrValue("contextRef"))}
				}
			}
		case tokEnd:
			switch string(t.name) {
			case "traceGroup":
				if depth > 0 {
					depth--
				}
				if depth == 0 && len(cur.Strokes) > 0 {
					groups = append(groups, cur)
					cur = Group{}
				}
			case "brush":
				if brush != nil {
					brush.finish()
					p.brushes[brushID] = *brush
					brush = nil
				}
			case "trace":
				if trace != nil {
					endTrace()
				}
			case "context":
				ctx = nil
			case "ink":
				closed = true
			}
		case tokText:
			if trace != nil {
				if trace.text == nil {
					trace.text = t.text // usually the only text: no copy
				} else {
					trace.text = append(trace.text[:len(trace.text):len(trace.text)], t.text...)
				}
			}
		}
	}
	if len(cur.Strokes) > 0 {
		groups = append(groups, cur)
	}
	if len(loose.Strokes) > 0 {
		groups = append(groups, loose)
	}
	if len(groups) == 0 {
		if traces == 0 && closed {
			return nil, ErrEmpty
		}
		return nil, ErrNoInk
	}
	return groups, nil
}

// applyBrushProperty sets one brushProperty on b.
func applyBrushProperty(b *Brush, name, value, units string) {
	v := strings.TrimSpace(value)
	switch strings.ToLower(name) {
	case "width":
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && !math.IsInf(f, 0) {
			if s := unitScale(units); s > 0 {
				b.Width = math.Min(f*s, 1000)
			}
		}
	case "height":
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && !math.IsInf(f, 0) {
			if s := unitScale(units); s > 0 {
				b.Height = math.Min(f*s, 1000)
			}
		}
	case "color":
		if c, ok := hexColor(v); ok {
			b.Color = c
		}
	case "transparency":
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 255 {
			b.Opacity = 1 - transparency(f)
		}
	case "tip":
		b.Square = strings.EqualFold(v, "rectangle")
	case "rasterop":
		if strings.EqualFold(v, "maskPen") {
			b.Highlighter = true
		}
	}
}

// finish completes a brush once all of its properties are read, whatever
// their order: a highlighter (rasterOp maskPen) is never opaque, so one
// naming no transparency, or 0, is drawn half transparent; a rectangle
// tip with a transparency is a highlighter though its writer left out
// rasterOp (only OneNote's highlighters have rectangle tips), so it is
// drawn beneath the pen strokes.
func (b *Brush) finish() {
	switch {
	case b.Highlighter && b.Opacity >= 1:
		b.Opacity = 0.5
	case !b.Highlighter && b.Square && b.Opacity < 1:
		b.Highlighter = true
	}
}

// transparency reads a brush's transparency as a fraction, 0 opaque to 1
// fully transparent. OneNote writes a fraction (0.5 for its highlighters,
// as measured on real pages); other writers use a 0-255 scale. A value
// below 1 is read as a fraction and any other on the 0-255 scale, so "0.5" is half transparent
// and "128" too. A value of exactly 1 is ambiguous; it is read on the
// 0-255 scale (nearly opaque), because a brush that draws nothing is never
// what a pen is for.
func transparency(f float64) float64 {
	if f < 1 {
		return f
	}
	return f / 255
}

// hexColor reads #rgb or #rrggbb as lower-case #rrggbb.
func hexColor(v string) (string, bool) {
	v = strings.ToLower(strings.TrimPrefix(v, "#"))
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return "", false
		}
	}
	switch len(v) {
	case 3:
		return "#" + string([]byte{v[0], v[0], v[1], v[1], v[2], v[2]}), true
	case 6:
		return "#" + v, true
	}
	return "", false
}

// brushFor returns the brush a trace refers to, or the default.
func (p *parser) brushFor(ref string) Brush {
	if b, ok := p.brushes[strings.TrimSpace(ref)]; ok {
		return b
	}
	return defaultBrush
}

// contextFor returns the context a trace refers to, or the default
// (X, Y in himetric) when it has none or names no X and Y.
func (p *parser) contextFor(ref string) *context {
	if c, ok := p.contexts[strings.TrimSpace(ref)]; ok && c.index("X") >= 0 && c.index("Y") >= 0 {
		return c
	}
	return defaultContext
}

func (c *context) index(name string) int {
	for i, ch := range c.channels {
		if ch == name {
			return i
		}
	}
	return -1
}

// traceState is a trace being read.
type traceState struct {
	brush Brush
	ctx   *context
	text  []byte
}

// Value qualifiers, per channel.
const (
	explicit = iota
	firstDiff
	secondDiff
)

// number reads a value: integers (all OneNote writes) directly, anything
// else with strconv; unreadable or infinite values are 0.
func number(s []byte) float64 {
	neg := false
	digits := s
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, digits = s[0] == '-', s[1:]
	}
	if len(digits) > 0 && len(digits) <= 15 {
		var n int64
		for _, d := range digits {
			if d < '0' || d > '9' {
				n = -1
				break
			}
			n = n*10 + int64(d-'0')
		}
		if n >= 0 {
			if neg {
				return -float64(n)
			}
			return float64(n)
		}
	}
	v, err := strconv.ParseFloat(string(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func qualifier(c byte) int {
	switch c {
	case '\'':
		return firstDiff
	case '"':
		return secondDiff
	}
	return explicit
}

// stroke decodes a trace's points into a stroke in px.
func (p *parser) stroke(t *traceState) (Stroke, bool) {
	ix, iy := t.ctx.index("X"), t.ctx.index("Y")
	n := len(t.ctx.channels)
	sx, sy := t.ctx.scale[ix], t.ctx.scale[iy]
	if sx == 0 {
		sx = himetric
	}
	if sy == 0 {
		sy = himetric
	}
	// Per channel: qualifier, last value and last difference.
	var modeA [8]int
	var lastA, diffA, valsA [8]float64
	mode, last, diff, vals := modeA[:], lastA[:], diffA[:], valsA[:]
	if n > len(modeA) {
		mode, last, diff, vals = make([]int, n), make([]float64, n), make([]float64, n), make([]float64, n)
	}
	pts := make([]Point, 0, bytes.Count(t.text, []byte{','})+1)
	s := t.text
	ch := 0   // channel of the next value
	read := 0 // points read, kept or not
	flush := func() {
		if ch > ix && ch > iy {
			if p.points < maxPoints {
				pts = append(pts, Point{vals[ix] * sx, vals[iy] * sy})
				p.points++
			}
			read++
		}
		ch = 0
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case ',':
			flush()
			i++
			continue
		case ' ', '\t', '\n', '\r':
			i++
			continue
		case '!', '\'', '"':
			if ch < n {
				mode[ch] = qualifier(c)
			}
			i++
			continue
		}
		j := i
		if c == '-' || c == '+' {
			j++
		}
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E') {
			if (s[j] == 'e' || s[j] == 'E') && j+1 < len(s) && (s[j+1] == '-' || s[j+1] == '+') {
				j++
			}
			j++
		}
		if j == i || (j == i+1 && (c == '-' || c == '+')) {
			// T, F, *, ? or garbage: the channel keeps its value.
			if ch < n {
				vals[ch] = last[ch]
			}
			ch++
			i = max(j, i+1)
			continue
		}
		v := number(s[i:j])
		i = j
		if ch < n {
			switch {
			case read == 0:
				diff[ch] = 0
			case mode[ch] == firstDiff:
				diff[ch] = v
				v += last[ch]
			case mode[ch] == secondDiff:
				diff[ch] += v
				v = last[ch] + diff[ch]
			default:
				diff[ch] = v - last[ch]
			}
			v = math.Max(-1e9, math.Min(1e9, v))
			last[ch], vals[ch] = v, v
		}
		ch++
	}
	if ch > 0 {
		flush()
	}
	if len(pts) == 0 {
		return Stroke{}, false
	}
	return Stroke{Brush: t.brush, Points: pts}, true
}
