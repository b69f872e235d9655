package onestore

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"
)

// FuzzReader feeds any bytes to the reader: it must return a page list or
// a typed error, and never panic. Seeds: the real files when present, and
// generated sections and tables of contents always.
func FuzzReader(f *testing.F) {
	yes := true
	f.Add(buildSection([]testPage{{guid: GUID{1}, title: "Seed", created: time.Unix(1e9, 0), paras: []testPara{
		{text: "bold", bold: true}, {text: "link", link: "https://example.com"}, {text: "todo", todo: &yes}, {text: "n", number: true, child: "c"},
	}, image: []byte("img")}, {guid: GUID{2}, title: "Sub", level: 1}}))
	f.Add(buildTOC([]string{"A.one", "Group"}))
	f.Add(buildSectionAs([]testPage{{guid: GUID{1}, title: "Packaged", paras: []testPara{{text: "t", bold: true, child: "c"}}, image: []byte("\x89PNG\r\n\x1a\n")}}, true))
	f.Add(buildTOCAs([]string{"A.one"}, true))
	toc := tocFile([]string{"A.one", "B"})
	toc.tocNodes = true
	f.Add(toc.bytes())
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
