package graph

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

var (
	titlePattern   = regexp.MustCompile(`(?s)<title>(.*?)</title>`)
	createdPattern = regexp.MustCompile(`<meta name="created" content="([^"]+)"`)
)

// LoadFixtures reads every *.html file in dir (hand-written OneNote output
// HTML) and returns a section named name holding one page per file, in
// file-name order. Page titles and creation times come from <title> and
// <meta name="created">; AddNotebooks gives the pages ids. Resource
// URLs in the files are registered with the server by AddNotebooks.
func LoadFixtures(dir, name string) (*Section, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil {
		return nil, fmt.Errorf("graph emulator: load fixtures: %w", err)
	}
	slices.Sort(paths)
	sec := &Section{DisplayName: name}
	for i, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("graph emulator: load fixtures: %w", err)
		}
		text := string(b)
		p := &Page{
			HTML:  text,
			Order: i,
		}
		if m := titlePattern.FindStringSubmatch(text); m != nil {
			p.Title = strings.TrimSpace(html.UnescapeString(m[1]))
		}
		if m := createdPattern.FindStringSubmatch(text); m != nil {
			if t, err := time.Parse("2006-01-02T15:04:05.0000000", m[1]); err == nil {
				p.CreatedDateTime = t.UTC()
				p.LastModifiedDateTime = t.UTC().Add(time.Duration(i+1) * time.Hour)
			}
		}
		sec.Pages = append(sec.Pages, p)
	}
	if len(sec.Pages) == 0 {
		return nil, fmt.Errorf("graph emulator: load fixtures: no .html files in %s", dir)
	}
	return sec, nil
}
