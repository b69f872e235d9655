package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Where a generated page's ink goes, in CSS px on the page (the origin of
// the outlines' left and top; see renderGenerated): the first outline sits
// at left 48, top 115, its 16pt heading one line of about 27 px and an 11pt
// paragraph below it, lines of about 20 px.
const (
	inkOutlineLeft = 48
	inkHeadingTop  = 115
	inkHeadingLine = 27
	inkTextLine    = 20
	// inkNoteLeft is where the handwritten note beside the heading starts:
	// right of a title's text, inside the outline's 624 px.
	inkNoteLeft = 470
)

// inkHeader is the start of an InkML document as OneNote writes it: X and
// Y in himetric, pressure F, each declared with its resolution.
const inkHeader = `<?xml version="1.0" encoding="utf-8"?>
<inkml:ink xmlns:emma="http://www.w3.org/2003/04/emma" xmlns:msink="http://schemas.microsoft.com/ink/2010/main" xmlns:inkml="http://www.w3.org/2003/InkML">
<inkml:definitions>
<inkml:context xml:id="ctxCoordinatesWithPressure"><inkml:inkSource xml:id="inkSrcCoordinatesWithPressure"><inkml:traceFormat><inkml:channel name="X" type="integer" max="32767" units="himetric"/><inkml:channel name="Y" type="integer" max="32767" units="himetric"/><inkml:channel name="F" type="integer" max="32767" units="dev"/></inkml:traceFormat><inkml:channelProperties><inkml:channelProperty channel="X" name="resolution" value="1" units="1/himetric"/><inkml:channelProperty channel="Y" name="resolution" value="1" units="1/himetric"/><inkml:channelProperty channel="F" name="resolution" value="1" units="1/dev"/></inkml:channelProperties></inkml:inkSource></inkml:context>
`

// penColors are OneNote's default pen colours.
var penColors = []string{"#000000", "#2F5597", "#E71224", "#00A0D7"}

// generatedInkML is the ink of a generated page, one ink group for each of
// the page's two ink nodes: a handwritten note (a word or two and an
// underline, with pressure) beside the first outline's heading, and a
// yellow highlighter stroke over the first line of the paragraph below it.
// Positions are page positions in himetric, the origin of the outlines'
// top and left. The same page always gives the same bytes.
func generatedInkML(p *Page) string {
	rng := rand.New(rand.NewPCG(seedOf("ink", p.ID), 0))
	var b strings.Builder
	b.Grow(8 << 10)
	b.WriteString(inkHeader)
	penWidth := 35 + rng.IntN(36) // 0.35..0.7 mm, OneNote's fine to medium pens
	fmt.Fprintf(&b, `<inkml:brush xml:id="br0"><inkml:brushProperty name="width" value="%d" units="himetric"/><inkml:brushProperty name="height" value="%d" units="himetric"/><inkml:brushProperty name="color" value="%s"/><inkml:brushProperty name="tip" value="ellipse"/></inkml:brush>`+"\n",
		penWidth, penWidth, pick(rng, penColors))
	// OneNote's yellow highlighter: a rectangular tip as tall as a line.
	b.WriteString(`<inkml:brush xml:id="br1"><inkml:brushProperty name="width" value="106" units="himetric"/><inkml:brushProperty name="height" value="476" units="himetric"/><inkml:brushProperty name="color" value="#FFFF00"/><inkml:brushProperty name="tip" value="rectangle"/><inkml:brushProperty name="rasterOp" value="maskPen"/></inkml:brush>` + "\n")
	b.WriteString("</inkml:definitions>\n")

	// The note beside the heading: letters written left to right, then
	// an underline.
	b.WriteString("<inkml:traceGroup>\n")
	x := float64(inkNoteLeft + rng.IntN(20))
	base := float64(inkHeadingTop + inkHeadingLine - 6)
	start := x
	for w := range 1 + rng.IntN(2) {
		if w > 0 {
			x += 8
		}
		for range 3 + rng.IntN(4) {
			letter(&b, rng, x, base)
			x += 9
		}
	}
	var line [][3]int
	for px := start - 2; px <= x+2; px += 6 {
		line = append(line, [3]int{himetric(px), himetric(base + 4 + rng.Float64()), 14000 + rng.IntN(3000)})
	}
	trace(&b, "br0", line, false)
	b.WriteString("</inkml:traceGroup>\n")

	// The highlighter over the first words of the paragraph below.
	b.WriteString("<inkml:traceGroup>\n")
	y := float64(inkHeadingTop + inkHeadingLine + inkTextLine/2)
	end := float64(inkOutlineLeft + 150 + rng.IntN(150))
	var band [][3]int
	for px := float64(inkOutlineLeft); px <= end; px += 19 {
		band = append(band, [3]int{himetric(px), himetric(y + rng.Float64() - 0.5), 12000})
	}
	trace(&b, "br1", band, false)
	b.WriteString("</inkml:traceGroup>\n</inkml:ink>\n")
	return b.String()
}

// letter writes one handwritten letter at x on the baseline base: a loop
// or a wave about 9 px wide and 12 px high, pressure rising and falling.
func letter(b *strings.Builder, rng *rand.Rand, x, base float64) {
	const n = 18
	loops := 1 + float64(rng.IntN(2))
	h := 9 + 4*rng.Float64()
	pts := make([][3]int, 0, n+1)
	for i := range n + 1 {
		t := float64(i) / n
		px := x + 8*t + 2*math.Sin(2*math.Pi*loops*t)
		py := base - h*math.Abs(math.Sin(math.Pi*loops*t))
		pts = append(pts, [3]int{himetric(px), himetric(py), 9000 + int(8000*math.Sin(math.Pi*t)) + rng.IntN(500)})
	}
	trace(b, "br0", pts, true)
}

// trace writes a trace of brush brushRef. With diff, points after the
// first are first differences ("'" then plain values), as OneNote writes
// long strokes; else every point is explicit.
func trace(b *strings.Builder, brushRef string, pts [][3]int, diff bool) {
	fmt.Fprintf(b, `<inkml:trace contextRef="#ctxCoordinatesWithPressure" brushRef="#%s">`, brushRef)
	for i, p := range pts {
		if i > 0 {
			b.WriteString(", ")
		}
		v, q := p, ""
		if diff && i > 0 {
			prev := pts[i-1]
			v = [3]int{p[0] - prev[0], p[1] - prev[1], p[2] - prev[2]}
			if i == 1 {
				q = "'"
			}
		}
		for j, c := range v {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(q)
			b.WriteString(strconv.Itoa(c))
		}
	}
	b.WriteString("</inkml:trace>\n")
}

// himetric converts CSS px (96 to the inch) to himetric (2540 to the inch).
func himetric(px float64) int { return int(math.Round(px * 2540 / 96)) }
