package ink

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// doc wraps definitions and body in an InkML document as OneNote writes it.
func doc(defs, body string) []byte {
	return []byte(`<?xml version="1.0" encoding="utf-8"?>
<inkml:ink xmlns:emma="http://www.w3.org/2003/04/emma" xmlns:msink="http://schemas.microsoft.com/ink/2010/main" xmlns:inkml="http://www.w3.org/2003/InkML">
<inkml:definitions>` + defs + `</inkml:definitions>` + body + `</inkml:ink>`)
}

const (
	ctxXYF = `<inkml:context xml:id="ctx0"><inkml:inkSource xml:id="src0"><inkml:traceFormat>` +
		`<inkml:channel name="X" type="integer" max="32767" units="himetric"/>` +
		`<inkml:channel name="Y" type="integer" max="32767" units="himetric"/>` +
		`<inkml:channel name="F" type="integer" max="32767" units="dev"/></inkml:traceFormat></inkml:inkSource></inkml:context>`
	ctxMM   = `<inkml:context xml:id="mm"><inkml:traceFormat><inkml:channel name="Y" units="mm"/><inkml:channel name="X" units="mm"/></inkml:traceFormat></inkml:context>`
	redPen  = `<inkml:brush xml:id="red"><inkml:brushProperty name="width" value="52.916" units="himetric"/><inkml:brushProperty name="color" value="#FF0000"/></inkml:brush>`
	yellowH = `<inkml:brush xml:id="hl"><inkml:brushProperty name="width" value="10" units="mm"/><inkml:brushProperty name="color" value="#FF0"/>` +
		`<inkml:brushProperty name="height" value="20" units="mm"/><inkml:brushProperty name="tip" value="rectangle"/><inkml:brushProperty name="rasterOp" value="maskPen"/></inkml:brush>`
	seeThrough = `<inkml:brush xml:id="t"><inkml:brushProperty name="transparency" value="51"/></inkml:brush>`
	// realHL is a highlighter as OneNote writes it: transparency as a
	// fraction.
	realHL = `<inkml:brush xml:id="rh"><inkml:brushProperty name="width" value="106" units="himetric"/><inkml:brushProperty name="height" value="476" units="himetric"/>` +
		`<inkml:brushProperty name="color" value="#FFFF00"/><inkml:brushProperty name="transparency" value="0.5"/><inkml:brushProperty name="tip" value="rectangle"/><inkml:brushProperty name="rasterOp" value="maskPen"/></inkml:brush>`
	quarter = `<inkml:brush xml:id="q"><inkml:brushProperty name="transparency" value="0.25"/></inkml:brush>`
	// maskFirst names rasterOp before an explicit transparency of 0.
	maskFirst = `<inkml:brush xml:id="mf"><inkml:brushProperty name="rasterOp" value="maskPen"/><inkml:brushProperty name="transparency" value="0"/></inkml:brush>`
	// noRasterOp is a translucent rectangle tip whose writer left out
	// rasterOp.
	noRasterOp = `<inkml:brush xml:id="nr"><inkml:brushProperty name="tip" value="rectangle"/><inkml:brushProperty name="transparency" value="0.5"/></inkml:brush>`
)

// px converts himetric to CSS pixels, rounded as the tests compare.
func px(h float64) float64 { return h * 96 / 2540 }

func round(gs []Group) []Group {
	for _, g := range gs {
		for i := range g.Strokes {
			s := &g.Strokes[i]
			s.Brush.Width = math.Round(s.Brush.Width*1000) / 1000
			s.Brush.Opacity = math.Round(s.Brush.Opacity*1000) / 1000
			for j := range s.Points {
				s.Points[j].X = math.Round(s.Points[j].X*1000) / 1000
				s.Points[j].Y = math.Round(s.Points[j].Y*1000) / 1000
			}
		}
	}
	return gs
}

func pts(himetricXY ...float64) []Point {
	var out []Point
	for i := 0; i+1 < len(himetricXY); i += 2 {
		out = append(out, Point{px(himetricXY[i]), px(himetricXY[i+1])})
	}
	return out
}

func TestParse(t *testing.T) {
	black := Brush{Color: "#000000", Width: 1, Opacity: 1}
	red := Brush{Color: "#ff0000", Width: 2, Opacity: 1}
	tests := []struct {
		name string
		in   []byte
		want []Group
	}{
		{"explicit points, pressure ignored, brush by reference",
			doc(ctxXYF+redPen, `<inkml:traceGroup><inkml:trace contextRef="#ctx0" brushRef="#red">2540 0 100, 5080 2540 90</inkml:trace></inkml:traceGroup>`),
			[]Group{{Strokes: []Stroke{{Brush: red, Points: pts(2540, 0, 5080, 2540)}}}}},
		{"first and second differences, qualifiers persist per channel",
			doc(ctxXYF, `<inkml:traceGroup><inkml:trace contextRef="#ctx0">1000 1000 0,'10'20 0,30 40 0,"5"0 0,5 0 0</inkml:trace></inkml:traceGroup>`),
			[]Group{{Strokes: []Stroke{{Brush: black, Points: pts(1000, 1000, 1010, 1020, 1040, 1060, 1075, 1100, 1115, 1140)}}}}},
		{"signs separate numbers written together",
			doc(ctxXYF, `<inkml:traceGroup><inkml:trace contextRef="#ctx0">100-200 0,-300-400-5</inkml:trace></inkml:traceGroup>`),
			[]Group{{Strokes: []Stroke{{Brush: black, Points: pts(100, -200, -300, -400)}}}}},
		{"channel order and units from the context",
			doc(ctxMM, `<inkml:traceGroup><inkml:trace contextRef="#mm">10 20</inkml:trace></inkml:traceGroup>`),
			[]Group{{Strokes: []Stroke{{Brush: black, Points: []Point{{20 * 96 / 25.4, 10 * 96 / 25.4}}}}}}},
		{"highlighter: rectangle tip, maskPen, half transparent",
			doc(yellowH, `<inkml:traceGroup><inkml:trace brushRef="#hl">0 0, 2540 0</inkml:trace></inkml:traceGroup>`),
			[]Group{{Strokes: []Stroke{{Brush: Brush{Color: "#ffff00", Width: 10 * 96 / 25.4, Height: 20 * 96 / 25.4, Opacity: 0.5, Highlighter: true, Square: true}, Points: pts(0, 0, 2540, 0)}}}}},
		{"transparency 0-255",
			doc(seeThrough, `<inkml:trace brushRef="#t">0 0</inkml:trace>`),
			[]Group{{Strokes: []Stroke{{Brush: Brush{Color: "#000000", Width: 1, Opacity: 0.8}, Points: pts(0, 0)}}}}},
		{"transparency as a fraction, as OneNote writes its highlighters",
			doc(realHL, `<inkml:trace brushRef="#rh">0 0</inkml:trace>`),
			[]Group{{Strokes: []Stroke{{Brush: Brush{Color: "#ffff00", Width: px(106), Height: px(476), Opacity: 0.5, Highlighter: true, Square: true}, Points: pts(0, 0)}}}}},
		{"a highlighter is never opaque, whatever the order of its properties",
			doc(maskFirst, `<inkml:trace brushRef="#mf">0 0</inkml:trace>`),
			[]Group{{Strokes: []Stroke{{Brush: Brush{Color: "#000000", Width: 1, Opacity: 0.5, Highlighter: true}, Points: pts(0, 0)}}}}},
		{"a translucent rectangle tip without rasterOp is a highlighter",
			doc(noRasterOp, `<inkml:trace brushRef="#nr">0 0</inkml:trace>`),
			[]Group{{Strokes: []Stroke{{Brush: Brush{Color: "#000000", Width: 1, Opacity: 0.5, Highlighter: true, Square: true}, Points: pts(0, 0)}}}}},
		{"a fraction on a pen",
			doc(quarter, `<inkml:trace brushRef="#q">0 0</inkml:trace>`),
			[]Group{{Strokes: []Stroke{{Brush: Brush{Color: "#000000", Width: 1, Opacity: 0.75}, Points: pts(0, 0)}}}}},
		{"top-level groups hold nested groups; loose traces last",
			doc("", `<inkml:trace>0 0</inkml:trace><inkml:traceGroup><inkml:trace>1 1</inkml:trace><inkml:traceGroup><inkml:trace>2 2</inkml:trace></inkml:traceGroup></inkml:traceGroup><inkml:traceGroup><inkml:trace>3 3</inkml:trace></inkml:traceGroup>`),
			[]Group{
				{Strokes: []Stroke{{Brush: black, Points: pts(1, 1)}, {Brush: black, Points: pts(2, 2)}}},
				{Strokes: []Stroke{{Brush: black, Points: pts(3, 3)}}},
				{Strokes: []Stroke{{Brush: black, Points: pts(0, 0)}}},
			}},
		{"unknown brush and context fall back to the defaults; T, F, * keep values",
			doc("", `<inkml:trace brushRef="#nope" contextRef="#nope">10 20 T, * 30 F</inkml:trace>`),
			[]Group{{Strokes: []Stroke{{Brush: black, Points: pts(10, 20, 10, 30)}}}}},
		{"an empty trace is skipped",
			doc("", `<inkml:traceGroup><inkml:trace> </inkml:trace><inkml:trace>5 5</inkml:trace></inkml:traceGroup>`),
			[]Group{{Strokes: []Stroke{{Brush: black, Points: pts(5, 5)}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if g, w := round(got), round(tt.want); !reflect.DeepEqual(g, w) {
				t.Errorf("got  %+v\nwant %+v", g, w)
			}
		})
	}
}

func TestParseNoInk(t *testing.T) {
	tests := []struct {
		in    string
		empty bool // a complete document without a trace: ErrEmpty
	}{
		{"", false},
		{"not xml", false},
		{`<inkml:ink><inkml:trace>`, false},
		{`<inkml:ink>broken`, false},
		{`<inkml:ink><inkml:traceGroup><inkml:trace>0 0`, false},
		{`<inkml:ink/>`, true},
		{`<inkml:ink xmlns:inkml="http://www.w3.org/2003/InkML"><inkml:traceGroup /></inkml:ink>`, true},
		{string(doc(redPen, "")), true},
		{string(doc(redPen, "<inkml:traceGroup></inkml:traceGroup>")), true},
		{string(doc(redPen, `<inkml:trace brushRef="#red"></inkml:trace>`)), false},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		if !errors.Is(err, ErrNoInk) || errors.Is(err, ErrEmpty) != tt.empty {
			t.Errorf("Parse(%q) error = %v, want ErrNoInk (ErrEmpty %v)", tt.in, err, tt.empty)
		}
	}
}

func TestSVG(t *testing.T) {
	tests := []struct {
		name string
		g    Group
		want string
	}{
		{"a dot", Group{Strokes: []Stroke{{Brush: Brush{Color: "#000000", Width: 2, Opacity: 1}, Points: []Point{{10, 10}}}}},
			`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4" viewBox="0 0 4 4">
<path d="M2 2l0 0" fill="none" stroke="#000000" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`},
		{"a curve through midpoints; the highlighter drawn after it goes beneath it",
			Group{Strokes: []Stroke{
				{Brush: Brush{Color: "#ff0000", Width: 1, Opacity: 1}, Points: []Point{{0, 0}, {10, 0}, {10, 10}}},
				{Brush: Brush{Color: "#ffff00", Width: 4, Opacity: 0.5, Highlighter: true, Square: true}, Points: []Point{{0, 5}, {10.25, 5}}},
			}},
			`<svg xmlns="http://www.w3.org/2000/svg" width="17" height="13" viewBox="0 0 17 13">
<path d="M3 6.5L13.3 6.5" fill="none" stroke="#ffff00" stroke-width="4" stroke-linecap="square" stroke-linejoin="miter" stroke-opacity="0.5"/>
<path d="M3 1.5Q13 1.5 13 6.5L13 11.5" fill="none" stroke="#ff0000" stroke-width="1" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(SVG(tt.g)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// page is an InkML page of strokes strokes of points points each, spread
// over a 1000 by 1400 px page like a page of handwriting.
func page(strokes, points int) []byte {
	var b strings.Builder
	for i := range strokes {
		fmt.Fprintf(&b, `<inkml:trace contextRef="#ctx0" brushRef="#red">`)
		x, y := 1000+(i%20)*1200, 1000+(i/20)*1400
		for j := range points {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d %d %d", x+j*30, y+(j*j)%200, 128)
		}
		b.WriteString("</inkml:trace>\n")
	}
	return doc(ctxXYF+redPen, "<inkml:traceGroup>"+b.String()+"</inkml:traceGroup>")
}

func TestParseAndDrawAreDeterministic(t *testing.T) {
	in := page(50, 20)
	g1, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := Parse(in)
	if !bytes.Equal(SVG(g1[0]), SVG(g2[0])) || len(g1[0].Strokes) != 50 {
		t.Fatalf("two renderings differ or strokes lost (%d strokes)", len(g1[0].Strokes))
	}
}

// TestClusters checks that one group splits where its strokes are apart,
// and stays whole where they touch or come within the gap.
func TestClusters(t *testing.T) {
	line := func(x0, y0, x1, y1 float64) Stroke {
		return Stroke{Brush: Brush{Color: "#000000", Width: 2, Opacity: 1}, Points: []Point{{x0, y0}, {x1, y1}}}
	}
	band := func(x0, x1, y float64) Stroke {
		return Stroke{Brush: Brush{Color: "#ffff00", Width: 4, Height: 18, Opacity: 0.5, Highlighter: true, Square: true}, Points: []Point{{x0, y}, {x1, y}}}
	}
	gap := Gap{X: DefaultGapX, Y: DefaultGapY}
	tests := []struct {
		name    string
		strokes []Stroke
		want    [][]int // stroke indexes per cluster
	}{
		{"one stroke", []Stroke{line(0, 0, 10, 10)}, [][]int{{0}}},
		{"two words on a line stay together", []Stroke{line(0, 0, 40, 10), line(70, 0, 110, 10)}, [][]int{{0, 1}}},
		{"a note far to the right is its own", []Stroke{line(0, 0, 40, 10), line(300, 0, 340, 10)}, [][]int{{0}, {1}}},
		{"a highlight and an underline on the next text line are apart",
			[]Stroke{band(40, 300, 150), line(40, 180, 300, 180)}, [][]int{{0}, {1}}},
		{"a highlight over handwriting stays with it",
			[]Stroke{line(40, 140, 100, 160), band(30, 110, 150)}, [][]int{{0, 1}}},
		{"a chain joins strokes far apart; drawing order kept",
			[]Stroke{line(0, 0, 10, 10), line(200, 500, 210, 510), line(15, 15, 30, 30), line(200, 30, 210, 40), line(35, 30, 190, 35)},
			[][]int{{0, 2, 3, 4}, {1}}},
		{"sketches above and below each other split", []Stroke{line(0, 0, 100, 60), line(0, 200, 100, 260)}, [][]int{{0}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Group{Strokes: tt.strokes}.Clusters(gap)
			var want []Group
			for _, idx := range tt.want {
				var g Group
				for _, i := range idx {
					g.Strokes = append(g.Strokes, tt.strokes[i])
				}
				want = append(want, g)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %d clusters %+v\nwant %d %+v", len(got), got, len(want), want)
			}
		})
	}
}

// TestClustersProperties checks, on random strokes, that clustering is a
// partition (every stroke once, drawing order kept within a cluster) and
// that no two clusters come within the gap of each other.
func TestClustersProperties(t *testing.T) {
	const seed = 34
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	gap := Gap{X: DefaultGapX, Y: DefaultGapY}
	for round := range 200 {
		var g Group
		for i := range 1 + rng.IntN(30) {
			x, y := rng.Float64()*800, rng.Float64()*1000
			s := Stroke{Brush: Brush{Color: "#000000", Width: 1 + rng.Float64()*4, Opacity: 1}}
			for range 1 + rng.IntN(4) {
				s.Points = append(s.Points, Point{x + rng.Float64()*60, y + rng.Float64()*30})
			}
			s.Points[0].X = float64(i) // identifies the stroke
			g.Strokes = append(g.Strokes, s)
		}
		cs := g.Clusters(gap)
		seen := map[float64]bool{}
		for _, c := range cs {
			last := -1.0
			for _, s := range c.Strokes {
				id := s.Points[0].X
				if seen[id] || id < last {
					t.Fatalf("round %d: stroke %v twice or out of order", round, id)
				}
				seen[id], last = true, id
			}
		}
		if len(seen) != len(g.Strokes) {
			t.Fatalf("round %d: %d of %d strokes in clusters", round, len(seen), len(g.Strokes))
		}
		for i := range cs {
			for j := range i {
				for _, a := range cs[i].Strokes {
					for _, b := range cs[j].Strokes {
						if near(Group{Strokes: []Stroke{a}}.Bounds(), Group{Strokes: []Stroke{b}}.Bounds(), gap) {
							t.Fatalf("round %d: clusters %d and %d hold strokes within the gap", round, j, i)
						}
					}
				}
			}
		}
	}
}
