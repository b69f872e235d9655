package ink

import (
	"math"
	"strconv"
)

// margin is the space, in px, left around the ink in its image.
const margin = 1

// SVG draws a group as a standalone SVG image the size of its bounds (plus
// a 1 px margin), origin at the bounds' top left. Each stroke is one path,
// smoothed with quadratic curves through the midpoints of its points, in
// its pen's colour and size (the larger side of its tip), round-tipped (square for rectangular tips);
// transparent pens and highlighters carry stroke-opacity. Highlighter
// strokes are drawn first, under the pen strokes, as OneNote shows ink
// under a highlight. A one-point stroke is a dot. Numbers are written to
// a tenth of a pixel.
func SVG(g Group) []byte {
	r := g.Bounds()
	ox, oy := r.Min.X-margin, r.Min.Y-margin
	w := math.Ceil(r.Max.X - ox + margin)
	h := math.Ceil(r.Max.Y - oy + margin)
	n := 0
	for _, s := range g.Strokes {
		n += len(s.Points)
	}
	b := make([]byte, 0, 256+160*len(g.Strokes)+24*n)
	b = append(b, `<svg xmlns="http://www.w3.org/2000/svg" width="`...)
	b = appendNum(b, w)
	b = append(b, `" height="`...)
	b = appendNum(b, h)
	b = append(b, `" viewBox="0 0 `...)
	b = appendNum(b, w)
	b = append(b, ' ')
	b = appendNum(b, h)
	b = append(b, "\">\n"...)
	// Highlighters first, beneath every pen stroke: a highlight over
	// handwriting never hides it, whatever the highlighter's opacity.
	for _, hl := range []bool{true, false} {
		for _, s := range g.Strokes {
			if s.Brush.Highlighter == hl {
				b = appendPath(b, s, ox, oy)
			}
		}
	}
	return append(b, "</svg>\n"...)
}

// appendPath writes one stroke as a path element.
func appendPath(b []byte, s Stroke, ox, oy float64) []byte {
	pt := func(b []byte, p Point) []byte {
		b = appendNum(b, p.X-ox)
		b = append(b, ' ')
		return appendNum(b, p.Y-oy)
	}
	ps := s.Points
	b = append(b, `<path d="M`...)
	b = pt(b, ps[0])
	switch len(ps) {
	case 1:
		b = append(b, "l0 0"...)
	case 2:
		b = append(b, 'L')
		b = pt(b, ps[1])
	default:
		for i := 1; i < len(ps)-1; i++ {
			b = append(b, 'Q')
			b = pt(b, ps[i])
			b = append(b, ' ')
			b = pt(b, Point{(ps[i].X + ps[i+1].X) / 2, (ps[i].Y + ps[i+1].Y) / 2})
		}
		b = append(b, 'L')
		b = pt(b, ps[len(ps)-1])
	}
	b = append(b, `" fill="none" stroke="`...)
	b = append(b, s.Brush.Color...)
	b = append(b, `" stroke-width="`...)
	b = appendNum(b, math.Max(s.Brush.size(), 0.1))
	if s.Brush.Square {
		b = append(b, `" stroke-linecap="square" stroke-linejoin="miter`...)
	} else {
		b = append(b, `" stroke-linecap="round" stroke-linejoin="round`...)
	}
	if s.Brush.Opacity < 1 {
		b = append(b, `" stroke-opacity="`...)
		b = strconv.AppendFloat(b, math.Round(math.Max(s.Brush.Opacity, 0)*100)/100, 'f', -1, 64)
	}
	return append(b, "\"/>\n"...)
}

// appendNum writes v rounded to a tenth, without a trailing ".0".
func appendNum(b []byte, v float64) []byte {
	t := int64(math.Round(v * 10))
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, t/10, 10)
	if d := t % 10; d != 0 {
		b = append(b, '.', byte('0'+d))
	}
	return b
}
