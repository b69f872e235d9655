package main

import (
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/notebridge/notebridge/limiter/sim"
)

var policyColors = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // ours
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // backoff
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // queue-retry
}

// plotScenario writes one PNG with three panels over simulated hours:
// requests sent per minute, throttles per minute and pages done, one line
// per policy.
func plotScenario(path string, sc sim.Scenario, results []*sim.Result) error {
	panels := []struct {
		title, y string
		series   func(*sim.Result) []int
		cumul    bool
	}{
		{sc.Name + ": requests sent per minute (log scale)", "1 + requests/min", func(r *sim.Result) []int { return r.SentPerMin }, false},
		{"throttled (429) per minute (log scale)", "1 + 429s/min", func(r *sim.Result) []int { return r.ThrottledPerMin }, false},
		{"pages done", "pages", func(r *sim.Result) []int { return r.PagesPerMin }, true},
	}
	rows := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "simulated hours"
		p.Y.Label.Text = pn.y
		p.Legend.Top = true
		p.Legend.Left = !pn.cumul
		if !pn.cumul {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		for k, r := range results {
			// The last bucket holds only the instant the horizon ends.
			series := pn.series(r)
			series = series[:len(series)-1]
			pts := make(plotter.XYs, len(series))
			total := 0
			for m, v := range series {
				if pn.cumul {
					total += v
					v = total
				}
				y := float64(v)
				if !pn.cumul {
					y++
				}
				pts[m] = plotter.XY{X: float64(m) / 60, Y: y}
			}
			line, err := plotter.NewLine(pts)
			if err != nil {
				return err
			}
			line.Color = policyColors[k%len(policyColors)]
			line.Width = vg.Points(1)
			p.Add(line)
			p.Legend.Add(r.Policy, line)
		}
		rows[i] = []*plot.Plot{p}
	}
	img := vgimg.New(vg.Points(900), vg.Points(900))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadY: vg.Points(10), PadX: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		rows[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
