package convert

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// Options tune a conversion. The zero value is the default.
type Options struct {
	// MaxHeading is the deepest heading level emitted, 1 to 3 (Notion API
	// 2022-06-28 has heading_1 to heading_3). Deeper headings are capped at
	// it and reported. 0 means 3.
	MaxHeading int
	// PreferWebImages makes images refer to the web-optimised copy in src
	// instead of the full-resolution original in data-fullres-src, which is
	// the default.
	PreferWebImages bool
	// InkML is the page's ink, the InkML part of a content request with
	// includeInkML=true, or nil. Each ink group is then drawn as an image
	// placed where it was drawn (see Result.Ink), and only ink that could
	// not be placed is reported.
	InkML []byte
	// ImageAlt says what becomes of an image's alt attribute: AltDrop
	// (the default, "" too) or AltCaption.
	ImageAlt ImageAlt
	// SkipImages, SkipAttachments and SkipInk leave every image, every
	// attachment (<object>) or all ink out of the page, each reported as
	// skipped by option (LossSkippedImage, LossSkippedAttachment,
	// LossSkippedInk; severity Skipped), not as a loss.
	// A skipped image or attachment is not in Result.Resources, so the
	// pipeline never fetches it; with SkipInk, InkML is ignored.
	SkipImages      bool
	SkipAttachments bool
	SkipInk         bool
}

// ImageAlt is what becomes of an image's alt text.
type ImageAlt string

// The ImageAlt modes.
const (
	// AltDrop keeps alt out of the page. OneNote writes the text it
	// recognised in a picture (OCR) into alt, and Graph's output marks no
	// difference between that and alt text a person wrote, so this is
	// the default.
	AltDrop ImageAlt = "drop"
	// AltCaption makes alt the image's caption (whitespace collapsed,
	// split and capped to Notion's rich-text limits), for notebooks whose
	// images carry alt text written by people.
	AltCaption ImageAlt = "caption"
)

// ImageAltModes lists the ImageAlt values, for messages.
const ImageAltModes = `"drop" or "caption"`

// ParseImageAlt reads an ImageAlt mode; "" is AltDrop. Its error names
// the allowed values.
func ParseImageAlt(s string) (ImageAlt, error) {
	switch m := ImageAlt(strings.ToLower(strings.TrimSpace(s))); m {
	case "", AltDrop:
		return AltDrop, nil
	case AltCaption:
		return AltCaption, nil
	}
	return "", fmt.Errorf("convert: image alt mode %q is not %s", s, ImageAltModes)
}

func (o Options) maxHeading() int {
	if o.MaxHeading < 1 || o.MaxHeading > 3 {
		return 3
	}
	return o.MaxHeading
}

// Result is a converted page.
type Result struct {
	// Title is the text of <title>, entities decoded and ends trimmed.
	Title string
	// Created is the content of <meta name="created">, as written (OneNote
	// writes local time with seven fraction digits and no zone, e.g.
	// 2024-03-14T09:27:00.0000000). See CreatedTime.
	Created string
	// Blocks are the page's top-level blocks in reading order, children
	// nested at any depth. Splitting them into Notion requests is the
	// writer's job.
	Blocks []blocks.Block
	// Resources are the OneNote resources the blocks refer to, each once,
	// in reading order: what the pipeline must fetch and upload.
	Resources []blocks.Resource
	// Links are the page's onenote: links, in reading order.
	Links []Link
	// Losses are what could not be carried over exactly, in the order
	// first met.
	Losses []Loss
	// Ink are the drawings rendered from Options.InkML, in reading order;
	// image blocks refer to them by Resource.ID. They are not in Resources:
	// there is nothing to fetch.
	Ink []InkImage
}

// createdLayout is the layout of OneNote's created timestamps.
const createdLayout = "2006-01-02T15:04:05.9999999"

// CreatedTime parses Created. OneNote's value has no zone; it is read as
// UTC, and values with a zone keep theirs.
func (r *Result) CreatedTime() (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, r.Created); err == nil {
		return t, nil
	}
	t, err := time.Parse(createdLayout, r.Created)
	if err != nil {
		return time.Time{}, fmt.Errorf("convert: created time: %w", err)
	}
	return t, nil
}

// ErrInternal is wrapped by the error Page returns if the converter itself
// failed: it panicked or produced blocks that break a Notion rule. Either is
// a bug in this package, never a property of the input.
var ErrInternal = errors.New("convert: internal error")

// Page converts the body of a Graph page-content response (OneNote output
// HTML) into Notion blocks. It accepts any input: markup it cannot read is
// reported in Result.Losses, never a reason to fail.
func Page(src []byte, opts Options) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("%w: panic: %v", ErrInternal, p)
		}
	}()
	c := newConverter(opts)
	doc, err := c.parse(preprocess(src))
	if err != nil {
		return nil, err
	}
	res = &Result{}
	var titleObjects int
	res.Title, res.Created, titleObjects = pageHead(doc)
	c.objectsLeftOut(titleObjects, func() string { return res.Title })
	if !opts.SkipInk {
		c.readInk(opts.InkML)
	}
	if body := findElement(doc, atom.Body); body != nil {
		res.Blocks = c.body(body)
	} else if len(c.inks) > 0 {
		res.Blocks = c.placeInk(nil, nil)
	}
	c.inkLosses()
	res.Blocks = fitLimits(res.Blocks, &c.losses)
	res.Ink = c.inkImages
	res.Resources = collectResources(res.Blocks, res.Ink)
	res.Links = collectLinks(res.Blocks)
	res.Losses = c.losses.losses
	if err := Validate(res.Blocks); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInternal, err)
	}
	return res, nil
}

// converter holds the state of one page's conversion.
type converter struct {
	opts   Options
	losses lossLog

	// inkMode is set when the page's ink was read from InkML: ink
	// comments are then counted (inkComments), not reported one by one.
	inkMode     bool
	inkComments int
	// inkStrokes counts the strokes read from InkML.
	inkStrokes int
	inks       []inkGroup
	inkImages  []InkImage

	// blockColors holds the colour losses already reported for the text
	// richText is converting, so a colour is counted once a block (or
	// table cell), however many runs it spans.
	blockColors map[string]struct{}
}

func newConverter(opts Options) *converter {
	return &converter{opts: opts}
}

// parse parses page HTML. A page the parser refuses because its elements
// nest too deeply is flattened below a safe depth and parsed again, and the
// flattening is reported.
func (c *converter) parse(src []byte) (*html.Node, error) {
	doc, err := html.Parse(bytes.NewReader(src))
	if err == nil {
		return doc, nil
	}
	doc, err2 := html.Parse(bytes.NewReader(flattenDeep(src)))
	if err2 != nil {
		doc, err2 = html.Parse(bytes.NewReader(textOnly(src)))
	}
	if err2 != nil {
		return nil, fmt.Errorf("convert: parse page: %w", err)
	}
	c.losses.add(LossTooDeep, Degraded, "markup nested deeper than the HTML parser accepts was flattened", "")
	return doc, nil
}

// pageHead returns the page title and created time from the document
// head, and how many U+FFFC it deleted from the title.
func pageHead(doc *html.Node) (title, created string, objects int) {
	if t := findElement(doc, atom.Title); t != nil {
		raw := textContent(t)
		objects = strings.Count(raw, string(objectReplacement))
		title = strings.TrimSpace(strings.ReplaceAll(removeObjectReplacement(raw), "\u00a0", " "))
	}
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.Meta && strings.EqualFold(attr(n, "name"), "created") {
			created = attr(n, "content")
			return true
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			return false
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if walk(ch) {
				return true
			}
		}
		return false
	}
	walk(doc)
	return title, created, objects
}
