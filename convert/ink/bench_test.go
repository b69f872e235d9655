package ink

import "testing"

// BenchmarkParse and BenchmarkSVG split the cost of a 500-stroke page
// (40 points a stroke). Run: go test -run '^$' -bench . -benchmem -cpu 1 ./convert/ink/
func BenchmarkParse(b *testing.B) {
	in := page(500, 40)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSVG(b *testing.B) {
	gs, err := Parse(page(500, 40))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		SVG(gs[0])
	}
}
