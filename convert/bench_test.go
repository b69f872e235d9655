package convert

import (
	"fmt"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

// averagePage generates a realistic page of about 40 blocks: headings,
// formatted paragraphs, a nested list, to-dos, a table, a code run, a
// callout and images.
func averagePage() []byte {
	var b strings.Builder
	b.WriteString(`<html lang="en-US"><head><title>Average page</title><meta name="created" content="2024-05-01T10:00:00.0000000" /></head>`)
	b.WriteString(`<body data-absolute-enabled="true" style="font-family:Calibri;font-size:11pt">`)
	b.WriteString(`<div style="position:absolute;left:48px;top:120px;width:624px">`)
	b.WriteString(`<h1 style="font-size:16pt;color:#1e4e79">Project status</h1>`)
	for i := range 12 {
		fmt.Fprintf(&b, `<p style="margin-top:0pt;margin-bottom:0pt">Paragraph %d has <span style="font-weight:bold">bold</span>, `+
			`<span style="font-style:italic">italic</span>, <span style="color:#c00000">red</span> and a `+
			`<a href="https://example.com/doc/%d?a=1&amp;b=2">link</a>, plus some ordinary text to make it a realistic length `+
			`for a note written during a meeting.</p>`, i, i)
	}
	b.WriteString(`<h2 style="font-size:14pt;color:#2e75b5">Tasks</h2><ul>`)
	for i := range 4 {
		fmt.Fprintf(&b, `<li><p style="margin-top:0pt;margin-bottom:0pt">Item %d</p><ul><li style="list-style-type:circle">Sub item with <span style="font-weight:bold">detail</span></li><li>Another</li></ul></li>`, i)
	}
	b.WriteString(`</ul>`)
	for i := range 4 {
		fmt.Fprintf(&b, `<p data-tag="to-do%s" style="margin-top:0pt;margin-bottom:0pt">Follow up on action %d</p>`, []string{"", ":completed"}[i%2], i)
	}
	b.WriteString(`<p data-tag="important">Remember the deadline.</p><table style="border:1px solid;border-collapse:collapse">`)
	for r := range 4 {
		b.WriteString("<tr>")
		for c := range 3 {
			fmt.Fprintf(&b, `<td style="border:1px solid"><span style="font-weight:bold">r%dc%d</span> value</td>`, r, c)
		}
		b.WriteString("</tr>")
	}
	b.WriteString(`</table>`)
	for i := range 3 {
		fmt.Fprintf(&b, `<p style="font-family:Consolas;margin-top:0pt;margin-bottom:0pt">go test ./... -run Case%d</p>`, i)
	}
	for i := range 3 {
		fmt.Fprintf(&b, `<img alt="OCR" width="320" height="200" src="https://graph.microsoft.com/v1.0/me/onenote/resources/0-%d!1-X!%d/$value" data-src-type="image/png" `+
			`data-fullres-src="https://graph.microsoft.com/v1.0/me/onenote/resources/0-%d!1-X!%d/$value" data-fullres-src-type="image/png" />`, i, i, i, i)
	}
	b.WriteString(`</div></body></html>`)
	return []byte(b.String())
}

// BenchmarkPage measures conversion throughput on one core, as pages per
// second of wall time and per second of CPU time. Run:
// go test -run '^$' -bench BenchmarkPage -benchmem -cpu 1 ./convert/
func BenchmarkPage(b *testing.B) {
	avg := averagePage()
	res, err := Page(avg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if n := blocks.Count(res.Blocks); n < 36 || n > 50 {
		b.Fatalf("average page has %d blocks, want about 40", n)
	}
	var fixtures [][]byte
	for _, name := range fixtureNames(b) {
		fixtures = append(fixtures, readFixture(b, fixtureSource(name), ".html"))
	}
	run := func(b *testing.B, pages [][]byte) {
		bytes := 0
		for _, p := range pages {
			bytes += len(p)
		}
		b.SetBytes(int64(bytes / len(pages)))
		b.ReportAllocs()
		n := 0
		cpu0 := processCPUTime()
		for b.Loop() {
			if _, err := Page(pages[n%len(pages)], Options{}); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
		// On a shared machine wall time includes waiting for a core; CPU
		// time (all threads, GC included) is what the conversion costs.
		if cpu := processCPUTime() - cpu0; cpu > 0 {
			b.ReportMetric(float64(n)/cpu.Seconds(), "pages/cpu-s")
		}
	}
	b.Run("average", func(b *testing.B) { run(b, [][]byte{avg}) })
	b.Run("fixtures", func(b *testing.B) { run(b, fixtures) })
	b.Run("mix", func(b *testing.B) { run(b, append(append([][]byte{}, fixtures...), avg, avg, avg, avg, avg, avg)) })
}

// inkPage is a page of text with 500 ink strokes of 40 points each, as
// InkML: a page of handwritten notes.
func inkPage() (html, inkML []byte) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<inkml:ink xmlns:inkml="http://www.w3.org/2003/InkML"><inkml:definitions>` +
		`<inkml:context xml:id="ctx0"><inkml:inkSource xml:id="src0"><inkml:traceFormat><inkml:channel name="X" type="integer" max="32767" units="himetric"/>` +
		`<inkml:channel name="Y" type="integer" max="32767" units="himetric"/><inkml:channel name="F" type="integer" max="32767" units="dev"/></inkml:traceFormat></inkml:inkSource></inkml:context>` +
		`<inkml:brush xml:id="br0"><inkml:brushProperty name="width" value="53" units="himetric"/><inkml:brushProperty name="color" value="#000000"/></inkml:brush>` +
		`</inkml:definitions>`)
	for g := range 10 {
		b.WriteString("<inkml:traceGroup>")
		for s := range 50 {
			fmt.Fprintf(&b, `<inkml:trace contextRef="#ctx0" brushRef="#br0">`)
			x, y := 1300+(s%10)*1500, 4000+g*3000+(s/10)*500
			for p := range 40 {
				if p > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%d %d %d", x+p*30, y+(p*p*7)%400, 9000+p)
			}
			b.WriteString("</inkml:trace>")
		}
		b.WriteString("</inkml:traceGroup>")
	}
	b.WriteString("</inkml:ink>")
	return averagePage(), []byte(b.String())
}

// BenchmarkInkPage measures conversion of a page with and without its ink
// (500 strokes in 10 groups), in pages per CPU-second. Run:
// go test -run '^$' -bench BenchmarkInkPage -benchmem -cpu 1 ./convert/
func BenchmarkInkPage(b *testing.B) {
	html, inkML := inkPage()
	res, err := Page(html, Options{InkML: inkML})
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Ink) != 10 {
		b.Fatalf("%d drawings, want 10", len(res.Ink))
	}
	run := func(b *testing.B, opts Options) {
		b.SetBytes(int64(len(html) + len(opts.InkML)))
		b.ReportAllocs()
		n := 0
		cpu0 := processCPUTime()
		for b.Loop() {
			if _, err := Page(html, opts); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
		if cpu := processCPUTime() - cpu0; cpu > 0 {
			b.ReportMetric(float64(n)/cpu.Seconds(), "pages/cpu-s")
		}
	}
	b.Run("without-ink", func(b *testing.B) { run(b, Options{}) })
	b.Run("with-ink-500-strokes", func(b *testing.B) { run(b, Options{InkML: inkML}) })
}
