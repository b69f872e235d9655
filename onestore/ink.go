package onestore

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Ink object types and properties, [MS-ONE] 2.1.13 and 2.1.12.
const (
	jcidInkDataNode           = 0x0002003B
	jcidInkStrokeNode         = 0x00020047
	propInkPath               = 0x1C00340B
	propInkStrokeProperties   = 0x20003409
	propInkWidth              = 0x1400340D
	propInkHeight             = 0x1400340C
	propInkColor              = 0x1400340F
	propInkTransparency       = 0x0C003414
	propInkDimensions         = 0x1C00340A
	propInkScalingX           = 0x14001C46
	propInkScalingY           = 0x14001C47
	propInkRasterOperation    = 0x0C003413
	maxInkValues              = 1 << 24
	inkDimensionX             = "{598A6A8F-52C0-4BA0-93AF-AF357411A561}"
	inkDimensionY             = "{B53F9F75-04E0-4498-A7EE-C30DBB5A9011}"
	inkDimensionEntrySize     = 32
	inkRasterOperationMaskPen = 9 // a highlighter
)

// Stroke is one ink stroke: its points in the ink container's
// coordinates (InkPath scaled by InkScalingX and InkScalingY), and its pen.
type Stroke struct {
	Points       []InkPoint
	Width        float32 // InkWidth
	Height       float32 // InkHeight
	Color        string  // "#rrggbb"
	Transparency uint8   // InkTransparency: 0 opaque, 255 clear
	Highlighter  bool    // drawn with a highlighter (raster operation mask pen)
}

// InkPoint is a point of a stroke.
type InkPoint struct{ X, Y float32 }

// ink decodes a jcidInkContainer: InkData, its strokes and their
// properties. A stroke it cannot decode is reported as an "ink" loss.
func (ps *pageSpace) ink(node *Object) *Ink {
	ink := &Ink{}
	sx, okx := node.Props.f32(propInkScalingX)
	sy, oky := node.Props.f32(propInkScalingY)
	if !okx || sx == 0 || math.IsNaN(float64(sx)) {
		sx = 1
	}
	if !oky || sy == 0 || math.IsNaN(float64(sy)) {
		sy = 1
	}
	id, ok := node.Props.ref(propInkData)
	if !ok {
		ps.loss("ink", "an ink drawing without ink data")
		return ink
	}
	data, err := ps.object(id)
	if err != nil || data.JCID != jcidInkDataNode {
		ps.loss("ink", "an ink drawing whose data could not be read")
		return ink
	}
	for _, sid := range data.Props.refs(propInkStrokes) {
		st, err := ps.object(sid)
		if err != nil || st.JCID != jcidInkStrokeNode {
			ps.loss("ink", "an ink stroke that could not be read")
			continue
		}
		stroke, err := ps.stroke(st, sx, sy)
		if err != nil {
			ps.loss("ink", "an ink stroke that could not be decoded: "+err.Error())
			continue
		}
		ink.Strokes = append(ink.Strokes, stroke)
	}
	return ink
}

func (ps *pageSpace) stroke(st *Object, sx, sy float32) (Stroke, error) {
	var s Stroke
	pid, ok := st.Props.ref(propInkStrokeProperties)
	if !ok {
		return s, fmt.Errorf("no stroke properties")
	}
	props, err := ps.object(pid)
	if err != nil {
		return s, err
	}
	p := props.Props
	s.Width, _ = p.f32(propInkWidth)
	s.Height, _ = p.f32(propInkHeight)
	if c, ok := p.u32(propInkColor); ok {
		s.Color = fmt.Sprintf("#%02x%02x%02x", c&0xFF, c>>8&0xFF, c>>16&0xFF)
	} else {
		s.Color = "#000000"
	}
	if v, ok := p.u32(propInkTransparency); ok {
		s.Transparency = uint8(v)
	}
	if v, ok := p.u32(propInkRasterOperation); ok {
		s.Highlighter = v == inkRasterOperationMaskPen
	}
	// InkDimensions: 32-byte entries, a GUID naming the dimension first.
	dims := p.bytes(propInkDimensions)
	n := len(dims) / inkDimensionEntrySize
	ix, iy := -1, -1
	for i := range n {
		var g GUID
		copy(g[:], dims[i*inkDimensionEntrySize:])
		switch g.String() {
		case inkDimensionX:
			ix = i
		case inkDimensionY:
			iy = i
		}
	}
	if n == 0 {
		n, ix, iy = 2, 0, 1 // X and Y only, as OneNote writes by default
	}
	if ix < 0 || iy < 0 {
		return s, fmt.Errorf("no X and Y dimensions")
	}
	values, err := multiByteSigned(st.Props.bytes(propInkPath))
	if err != nil {
		return s, err
	}
	// The path holds each dimension's values one after another: the
	// first point, then each point's difference from the one before.
	per := len(values) / n
	var x, y int64
	for k := range per {
		x += values[ix*per+k]
		y += values[iy*per+k]
		s.Points = append(s.Points, InkPoint{X: float32(x) * sx, Y: float32(y) * sy})
	}
	return s, nil
}

// multiByteSigned decodes an InkPath: a count, then that many signed
// values, each a little-endian base-128 integer whose lowest bit is the
// sign ([MS-ONE] 2.2.? multi-byte encoding).
func multiByteSigned(b []byte) ([]int64, error) {
	count, n := uvarint(b)
	if n <= 0 {
		return nil, fmt.Errorf("ink path: no count")
	}
	count >>= 1
	if count > uint64(len(b)) || count > maxInkValues {
		return nil, fmt.Errorf("ink path: %d values in %d bytes", count, len(b))
	}
	b = b[n:]
	out := make([]int64, 0, count)
	for range count {
		v, n := uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("ink path: %d of %d values", len(out), count)
		}
		b = b[n:]
		x := int64(v >> 1)
		if v&1 == 1 {
			x = -x
		}
		out = append(out, x)
	}
	return out, nil
}

// uvarint reads a base-128 little-endian integer; n <= 0 when b ends
// first or the value overflows.
func uvarint(b []byte) (uint64, int) {
	v, n := binary.Uvarint(b)
	return v, n
}

// InkML renders the page's ink as the InkML part Graph returns with
// includeInkML=true, so the converter draws it through its ink renderer:
// one trace group per drawing, in page coordinates (himetric). It returns
// nil when the page has no ink strokes.
func (p *Page) InkML() []byte {
	var b strings.Builder
	brushes := map[string]int{}
	var defs, traces strings.Builder
	for _, o := range p.Outlines {
		ox, oy := o.X*himetricPerPoint, o.Y*himetricPerPoint
		for _, el := range o.Elements {
			for _, c := range el.Content {
				if c.Ink == nil || len(c.Ink.Strokes) == 0 {
					continue
				}
				traces.WriteString("<inkml:traceGroup>")
				for _, s := range c.Ink.Strokes {
					key := fmt.Sprintf("%g/%g/%s/%v", s.Width, s.Height, s.Color, s.Highlighter)
					id, ok := brushes[key]
					if !ok {
						id = len(brushes)
						brushes[key] = id
						fmt.Fprintf(&defs, `<inkml:brush xml:id="br%d"><inkml:brushProperty name="width" value="%d" units="himetric"/><inkml:brushProperty name="height" value="%d" units="himetric"/><inkml:brushProperty name="color" value="%s"/>`,
							id, int(s.Width), int(s.Height), strings.ToUpper(s.Color))
						if s.Highlighter {
							defs.WriteString(`<inkml:brushProperty name="tip" value="rectangle"/><inkml:brushProperty name="rasterOp" value="maskPen"/>`)
						} else {
							defs.WriteString(`<inkml:brushProperty name="tip" value="ellipse"/>`)
						}
						defs.WriteString(`</inkml:brush>`)
					}
					fmt.Fprintf(&traces, `<inkml:trace contextRef="#ctx0" brushRef="#br%d">`, id)
					for i, pt := range s.Points {
						if i > 0 {
							traces.WriteString(", ")
						}
						fmt.Fprintf(&traces, "%d %d", int(ox+pt.X), int(oy+pt.Y))
					}
					traces.WriteString("</inkml:trace>")
				}
				traces.WriteString("</inkml:traceGroup>")
			}
		}
	}
	if traces.Len() == 0 {
		return nil
	}
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><inkml:ink xmlns:inkml="http://www.w3.org/2003/InkML"><inkml:definitions>`)
	b.WriteString(`<inkml:context xml:id="ctx0"><inkml:inkSource xml:id="src0"><inkml:traceFormat><inkml:channel name="X" type="integer" max="32767" units="himetric"/><inkml:channel name="Y" type="integer" max="32767" units="himetric"/></inkml:traceFormat></inkml:inkSource></inkml:context>`)
	b.WriteString(defs.String())
	b.WriteString(`</inkml:definitions>`)
	b.WriteString(traces.String())
	b.WriteString(`</inkml:ink>`)
	return []byte(b.String())
}

// himetricPerPoint: 2540 himetric an inch, 72 points an inch.
const himetricPerPoint = 2540.0 / 72
