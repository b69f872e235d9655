package ink

import (
	"bytes"
	"encoding/xml"
	"math"
	"testing"
)

// FuzzParseSVG checks that any input parses without panicking, and that
// every group it yields draws as well-formed XML with finite bounds, the
// same bytes twice.
func FuzzParseSVG(f *testing.F) {
	f.Add(page(3, 4))
	f.Add(doc(ctxXYF+yellowH+seeThrough, `<inkml:traceGroup><inkml:trace contextRef="#ctx0" brushRef="#hl">1 2 3,'4'5'6,"7"8"9,-1-2-3,T F *</inkml:trace></inkml:traceGroup>`))
	f.Add(doc(ctxMM, `<inkml:trace contextRef="#mm">1e308 -1e308, 1e-3 .5</inkml:trace>`))
	f.Add([]byte(`<inkml:ink><inkml:trace>`))
	f.Fuzz(func(t *testing.T, in []byte) {
		groups, err := Parse(in)
		if err != nil {
			return
		}
		for _, g := range groups {
			r := g.Bounds()
			for _, v := range []float64{r.Min.X, r.Min.Y, r.Max.X, r.Max.Y} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("bounds %+v not finite", r)
				}
			}
			svg := SVG(g)
			if !bytes.Equal(svg, SVG(g)) {
				t.Fatal("SVG not deterministic")
			}
			d := xml.NewDecoder(bytes.NewReader(svg))
			for {
				if _, err := d.Token(); err != nil {
					if err.Error() != "EOF" {
						t.Fatalf("SVG not well-formed: %v\n%s", err, svg)
					}
					break
				}
			}
		}
	})
}
