// Package verify judges a migrated notebook: it compares what the Notion
// emulator holds (its Export) with what the Graph emulator's source says
// it should hold, page for page and block for block, and reports missing
// pages, duplicated pages, pages left half-written or in the wrong place,
// and every block that differs, with a readable diff.
//
// The expectation is built by Expect from the same generated notebooks the
// migration read, served by an unlimited Graph emulator of its own (so the
// migration's emulator, its counters and its referee see none of these
// reads), each page read with its ink and converted with the converter the
// pipeline uses, each resource and each drawing hashed. Compare then walks
// the Notion export.
package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/notebridge/notebridge/convert"
	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/onenote"
)

// Source names the notebook a migration read.
type Source struct {
	// User owns the notebooks.
	User string
	// Notebooks are the user's notebooks as the migration's Graph emulator
	// holds them. Expect serves them from an emulator of its own: give
	// either a fresh copy (graph.Generate again with the same GenSpec) or
	// the very values the migration's emulator holds, so that pages
	// changed there since (TouchPage, DeletePage) are expected as they are
	// now; then nothing may change them while Expect runs.
	Notebooks []*graph.Notebook
	// Notebook is the migrated notebook's ID or display name; "" means the
	// first notebook.
	Notebook string
	// Include, if not empty, names the only sections migrated, and
	// Exclude the sections left out, each by section ID or display name
	// (as in workflows.MigrateInput).
	Include, Exclude []string
}

// Expected is a notebook as Notion should hold it after a migration.
type Expected struct {
	// NotebookID and Title are the notebook's OneNote ID and name (the
	// title of its Notion page).
	NotebookID, Title string
	// Sections are the migrated sections' container paths below the
	// notebook page ("Group/Section"), in migration order.
	Sections []string
	// Pages are the migrated pages in migration order.
	Pages []ExpectedPage

	byID   map[string]int    // OneNote page ID -> index in Pages
	byGUID map[string]string // lower-case page-id GUID -> OneNote page ID
}

// ExpectedPage is one page as Notion should hold it.
type ExpectedPage struct {
	// ID is the OneNote page ID; GUID is its page-id in onenote: links.
	ID, GUID string
	// Title is the row's title.
	Title string
	// Section is the path of the section's database below the notebook
	// page, e.g. "Group/Section".
	Section string
	// Parent is the OneNote ID of the page's parent page ("" for a top
	// level page): its row must be the parent item.
	Parent string
	// LastModified is the page's lastModifiedDateTime in OneNote.
	LastModified time.Time
	// Blocks is the expected content, one line per block (see Line).
	Blocks []string
	// Drawings counts the page's ink drawings among Blocks' files: the
	// converter renders them, so they cost no Graph request.
	Drawings int
}

// ErrSource is wrapped by Expect's errors about its Source.
var ErrSource = errors.New("verify: bad source")

// maxResourceBytes bounds one resource download of the reference reads.
const maxResourceBytes = 256 << 20

// Expect builds the expectation of src: it serves src.Notebooks from an
// unlimited Graph emulator of its own, reads every migrated page with its
// ink (includeInkML=true, as the pipeline does), converts it, and hashes
// every resource and every drawing.
func Expect(ctx context.Context, src Source) (*Expected, error) {
	if src.User == "" || len(src.Notebooks) == 0 {
		return nil, fmt.Errorf("%w: Source needs a User and the Notebooks the migration's emulator was seeded with", ErrSource)
	}
	ref := graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})
	ref.AddNotebooks(src.User, src.Notebooks...)
	nb, err := pick(src)
	if err != nil {
		return nil, err
	}
	ts := httptest.NewServer(ref)
	defer ts.Close()
	tok := ref.IssueToken(src.User, []string{"Notes.Read"}, 24*time.Hour)
	c, err := onenote.New(onenote.Config{BaseURL: ts.URL + "/v1.0",
		Tokens: onenote.TokenSourceFunc(func(context.Context) (string, error) { return tok, nil })})
	if err != nil {
		return nil, fmt.Errorf("verify: reference Graph client: %w", err)
	}

	exp := &Expected{NotebookID: nb.ID, Title: nb.DisplayName, byID: map[string]int{}, byGUID: map[string]string{}}
	type secAt struct {
		sec  *graph.Section
		path string
	}
	var secs []secAt
	var walk func(prefix string, ss []*graph.Section, gs []*graph.SectionGroup)
	walk = func(prefix string, ss []*graph.Section, gs []*graph.SectionGroup) {
		names := uniqueNames{}
		for _, s := range ss {
			secs = append(secs, secAt{s, prefix + names.next(s.DisplayName)})
		}
		for _, g := range gs {
			walk(prefix+names.next(g.DisplayName)+"/", g.Sections, g.SectionGroups)
		}
	}
	walk("", nb.Sections, nb.SectionGroups)
	secs = slices.DeleteFunc(secs, func(s secAt) bool { return !selected(src, s.sec) })

	// First the content of every page: a page deleted in OneNote is not
	// expected in Notion, and links to it are plain text.
	type read struct {
		page    *graph.Page
		section string
		conv    *convert.Result
	}
	var pages []read
	for _, s := range secs {
		exp.Sections = append(exp.Sections, s.path)
		for _, p := range sortedPages(s.sec.Pages) {
			pc, _, err := c.GetPageContent(ctx, p.ID, onenote.ContentOptions{IncludeInkML: true})
			if errors.Is(err, onenote.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("verify: reference content of page %s: %w", p.ID, err)
			}
			res, err := convert.Page(pc.HTML, convert.Options{InkML: pc.InkML})
			if err != nil {
				return nil, fmt.Errorf("verify: convert page %s: %w", p.ID, err)
			}
			pages = append(pages, read{p, s.path, res})
			exp.byGUID[normGUID(p.GUID)] = p.ID
		}
	}

	hashes := map[string]string{} // resource ID -> line text
	var stack []read              // the parent chain, as the section lists its pages
	for _, rd := range pages {
		p, res := rd.page, rd.conv
		for len(stack) > 0 && (stack[len(stack)-1].section != rd.section || stack[len(stack)-1].page.Level >= p.Level) {
			stack = stack[:len(stack)-1]
		}
		parent := ""
		if len(stack) > 0 {
			parent = stack[len(stack)-1].page.ID
		}
		stack = append(stack, rd)
		for _, r := range res.Resources {
			if _, ok := hashes[r.ID]; ok {
				continue
			}
			var buf bytes.Buffer
			if _, _, err := c.DownloadResource(ctx, r.URL, &buf, maxResourceBytes); err != nil {
				return nil, fmt.Errorf("verify: reference resource %s of page %s: %w", r.ID, p.ID, err)
			}
			hashes[r.ID] = fileText(sha256Hex(buf.Bytes()), buf.Len())
		}
		title := res.Title
		if title == "" {
			title = p.Title
		}
		ep := ExpectedPage{ID: p.ID, GUID: normGUID(p.GUID), Title: title, Section: rd.section, Parent: parent,
			LastModified: p.LastModifiedDateTime, Drawings: len(res.Ink)}
		ep.Blocks = Lines(res.Blocks, exp.expectedRun, func(m *blocks.Media) string {
			if m.Resource == nil {
				return m.URL
			}
			// A drawing's ID ("ink:1") is the page's own: never in hashes.
			if im, ok := convert.Drawing(*m.Resource, res.Ink); ok {
				return fileText(sha256Hex(im.Data), len(im.Data))
			}
			return hashes[m.Resource.ID]
		})
		exp.byID[p.ID] = len(exp.Pages)
		exp.Pages = append(exp.Pages, ep)
	}
	return exp, nil
}

// expectedRun is how a converted run should read back from Notion: an
// internal link to a migrated page as a mention of it, any other internal
// link as its plain text followed by the note the link pass adds.
func (e *Expected) expectedRun(r blocks.RichText) blocks.RichText {
	ref := r.PageRef
	if ref == "" {
		ref = oneNoteLinkGUID(r.Link)
	}
	if ref == "" {
		return r
	}
	r.PageRef, r.Link = "", ""
	if id, ok := e.byGUID[normGUID(ref)]; ok {
		r.Mention, r.Text = id, ""
	} else {
		r.Text += " (OneNote page not migrated)"
	}
	return r
}

// pick finds the notebook src names.
func pick(src Source) (*graph.Notebook, error) {
	if src.Notebook == "" {
		return src.Notebooks[0], nil
	}
	for _, nb := range src.Notebooks {
		if nb.ID == src.Notebook || nb.DisplayName == src.Notebook {
			return nb, nil
		}
	}
	return nil, fmt.Errorf("%w: no notebook %q among the %d given; name one by ID or display name", ErrSource, src.Notebook, len(src.Notebooks))
}

func selected(src Source, s *graph.Section) bool {
	named := func(list []string) bool {
		return slices.ContainsFunc(list, func(n string) bool { return n == s.ID || n == s.DisplayName })
	}
	if len(src.Include) > 0 && !named(src.Include) {
		return false
	}
	return !named(src.Exclude)
}

// sortedPages orders a section's pages as the listing does (by Order).
func sortedPages(ps []*graph.Page) []*graph.Page {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b *graph.Page) int { return a.Order - b.Order })
	return out
}

// uniqueNames disambiguates sibling titles as the Notion layout does:
// " (2)", " (3)"… in order.
type uniqueNames map[string]int

func (u uniqueNames) next(name string) string {
	u[name]++
	if n := u[name]; n > 1 {
		return name + " (" + strconv.Itoa(n) + ")"
	}
	return name
}

// normGUID is a page-id GUID without braces, in lower case.
func normGUID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "%7B"), "%7b")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "%7D"), "%7d")
	return strings.ToLower(strings.Trim(s, "{}"))
}

// oneNoteLinkGUID is the page-id of a onenote: link, or "".
func oneNoteLinkGUID(link string) string {
	low := strings.ToLower(link)
	if !strings.HasPrefix(low, "onenote:") {
		return ""
	}
	i := strings.Index(low, "page-id=")
	if i < 0 {
		return ""
	}
	s := link[i+len("page-id="):]
	if j := strings.IndexAny(s, "&#"); j >= 0 {
		s = s[:j]
	}
	return normGUID(s)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// fileText is how a media block's file shows in a line.
func fileText(sha string, size int) string {
	if len(sha) > 12 {
		sha = sha[:12]
	}
	return fmt.Sprintf("file sha256:%s %dB", sha, size)
}
