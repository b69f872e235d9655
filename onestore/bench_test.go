package onestore

import (
	"bytes"
	"fmt"
	fx "github.com/notebridge/notebridge/internal/onestorefixture"
	"os"
	"testing"
	"time"
)

// BenchmarkRead measures the reader's throughput: MB and pages per CPU
// second, over the real files when present and a generated section of
// 500 pages always. Run:
// go test -run '^$' -bench BenchmarkRead -cpu 1 ./onestore/
func BenchmarkRead(b *testing.B) {
	var pages []fx.Page
	for i := range 500 {
		var paras []fx.Para
		for k := range 20 {
			paras = append(paras, fx.Para{Text: fmt.Sprintf("Paragraph %d of page %d, a sentence of ordinary length for a note.", k, i), Bold: k%3 == 0})
		}
		pages = append(pages, fx.Page{GUID: fx.GUID{byte(i), byte(i >> 8), 1}, Title: fmt.Sprintf("Page %d", i), Level: i % 2, Created: time.Unix(1.7e9, 0), Paras: paras, Image: bytes.Repeat([]byte{1}, 4096)})
	}
	files := map[string][]byte{
		"generated-500-pages":          fx.Section(pages),
		"generated-500-pages-packaged": sectionAs(pages, true),
	}
	for _, name := range []string{"tika/testOneNote1.one", "tika/testOneNote2016.one", "tika/testOneNote.one", "tika/testOneNoteFromOffice365.one", "onenote-rs/New Section 1.one"} {
		if data, err := os.ReadFile(fixtureDir + "/" + name); err == nil {
			files[name] = data
		}
	}
	for name, data := range files {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			n, cpu0 := 0, processCPUTime()
			for b.Loop() {
				r, err := NewReader(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					b.Fatal(err)
				}
				ps, err := r.pages()
				if err != nil {
					b.Fatal(err)
				}
				n += len(ps)
			}
			if cpu := (processCPUTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu, "MB/cpu-s")
				b.ReportMetric(float64(n)/cpu, "pages/cpu-s")
			}
		})
	}
}
