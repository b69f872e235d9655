package onestore

import (
	"bytes"
	"errors"
	fx "github.com/notebridge/notebridge/internal/onestorefixture"
	"os"
	"testing"
	"time"
)

// FuzzReader feeds any bytes to the reader: it must return a page list or
// a typed error, and never panic. Seeds: the real files when present, and
// generated sections and tables of contents always.
func FuzzReader(f *testing.F) {
	yes := true
	f.Add(fx.Section([]fx.Page{{GUID: fx.GUID{1}, Title: "Seed", Created: time.Unix(1e9, 0), Paras: []fx.Para{
		{Text: "bold", Bold: true}, {Text: "link", Link: "https://example.com"}, {Text: "todo", Todo: &yes}, {Text: "n", Number: true, Child: "c"},
	}, Image: []byte("img")}, {GUID: fx.GUID{2}, Title: "Sub", Level: 1}}))
	f.Add(fx.TOC([]string{"A.one", "Group"}))
	f.Add(sectionAs([]fx.Page{{GUID: fx.GUID{1}, Title: "Packaged", Paras: []fx.Para{{Text: "t", Bold: true, Child: "c"}}, Image: []byte("\x89PNG\r\n\x1a\n")}}, true))
	f.Add(tocAs([]string{"A.one"}, true))
	f.Add(fx.TOCNodes([]string{"A.one", "B"}))
	for _, dir := range []string{"/tika", "/onenote-rs/non-legacy", "/onenote-rs/recycle-bin"} {
		entries, _ := os.ReadDir(fixtureDir + dir)
		for _, e := range entries {
			if b, err := os.ReadFile(fixtureDir + dir + "/" + e.Name()); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			checkTyped(t, err)
			return
		}
		if !r.IsSection() {
			if _, err := r.TOC(); err != nil {
				checkTyped(t, err)
			}
			return
		}
		pages, err := r.pages()
		if err != nil {
			checkTyped(t, err)
			return
		}
		for _, p := range pages {
			for _, res := range p.Resources {
				if res.Size > int64(len(data)) {
					t.Fatalf("resource of %d bytes in a file of %d", res.Size, len(data))
				}
			}
		}
	})
}

// checkTyped fails unless err is one of the reader's typed errors.
func checkTyped(t *testing.T, err error) {
	t.Helper()
	var fe *FormatError
	var ue *UnsupportedError
	if !errors.As(err, &fe) && !errors.As(err, &ue) && !errors.Is(err, ErrEncrypted) {
		t.Fatalf("untyped error: %v", err)
	}
}
