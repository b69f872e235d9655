package e2e

import (
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The plots follow bench/cmd/simulate's: gonum/plot panels stacked in one
// PNG, the same palette (ours blue, backoff orange, queue-retry red), log
// scales drawn as 1 + y.

// Series is one line of a panel.
type Series struct {
	Name string
	X, Y []float64
	// Points draws markers instead of a line (for sparse samples such as
	// scan latencies).
	Points bool
}

// Panel is one plot of a PNG.
type Panel struct {
	Title, XLabel, YLabel string
	// LogY draws 1 + y on a log scale, so zeros stay visible.
	LogY   bool
	Series []Series
}

// palette is the colour of the k-th series of a panel.
var palette = [...]color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // ours
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // backoff
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // queue-retry
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

// WritePNG draws panels one above the other into a PNG at path.
func WritePNG(path string, panels []Panel) (err error) {
	defer func() {
		// gonum/plot panics on some degenerate axes; a plot is never
		// worth a run.
		if r := recover(); r != nil {
			err = fmt.Errorf("plot %s: %v", path, r)
		}
	}()
	rows := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.Title
		p.X.Label.Text = pn.XLabel
		p.Y.Label.Text = pn.YLabel
		p.Legend.Top = true
		p.Legend.Left = true
		if pn.LogY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		for k, s := range pn.Series {
			if len(s.X) != len(s.Y) {
				return fmt.Errorf("plot %s: series %q has %d x and %d y values", pn.Title, s.Name, len(s.X), len(s.Y))
			}
			if len(s.X) == 0 {
				continue
			}
			pts := make(plotter.XYs, len(s.X))
			for j := range s.X {
				y := s.Y[j]
				if pn.LogY {
					y++
				}
				pts[j] = plotter.XY{X: s.X[j], Y: y}
			}
			c := palette[k%len(palette)]
			if s.Points {
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return fmt.Errorf("plot %s: %w", pn.Title, err)
				}
				sc.GlyphStyle.Color = c
				sc.GlyphStyle.Radius = vg.Points(2.5)
				p.Add(sc)
				p.Legend.Add(s.Name, sc)
				continue
			}
			line, err := plotter.NewLine(pts)
			if err != nil {
				return fmt.Errorf("plot %s: %w", pn.Title, err)
			}
			line.Color = c
			line.Width = vg.Points(1)
			p.Add(line)
			p.Legend.Add(s.Name, line)
		}
		if pn.LogY {
			// A log axis needs a range: 1 (zero) to at least 10.
			p.Y.Min, p.Y.Max = 1, max(p.Y.Max, 10)
		}
		rows[i] = []*plot.Plot{p}
	}
	img := vgimg.New(vg.Points(900), vg.Points(300*float64(len(panels))))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadY: vg.Points(10),
		PadX: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		rows[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("plot: write %s: %w", path, err)
	}
	return f.Close()
}

// Steps turns per-bucket counts into a series over x = k·unit (bucket k).
func Steps(name string, counts []int, unit float64) Series {
	s := Series{Name: name, X: make([]float64, len(counts)), Y: make([]float64, len(counts))}
	for k, c := range counts {
		s.X[k], s.Y[k] = float64(k)*unit, float64(c)
	}
	return s
}

// Cumulative turns per-bucket counts into a running total over x = k·unit.
func Cumulative(name string, counts []int, unit float64) Series {
	s := Steps(name, counts, unit)
	total := 0.0
	for k := range s.Y {
		total += s.Y[k]
		s.Y[k] = total
	}
	return s
}
