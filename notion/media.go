package notion

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/notebridge/notebridge/notion/blocks"
)

// ResourceOpener fetches the bytes of a OneNote resource: its content, its
// size in bytes and its MIME type. The caller closes the reader.
type ResourceOpener func(ctx context.Context, r blocks.Resource) (rc io.ReadCloser, size int64, mime string, err error)

// expiryMargin is how long before its expiry an upload is replaced rather
// than attached, so that it cannot expire in flight.
const expiryMargin = 10 * time.Minute

// media uploads a page's resources and remembers them, so that an upload
// that expires before it is attached can be made again.
type media struct {
	c      *Client
	open   ResourceOpener
	byRes  map[string]Upload          // resource ID -> upload
	res    map[string]blocks.Resource // upload ID -> resource
	losses []Loss
}

func newMedia(c *Client, open ResourceOpener) *media {
	return &media{c: c, open: open, byRes: map[string]Upload{}, res: map[string]blocks.Resource{}}
}

// prepare returns a copy of bs in which every media block that refers to
// a OneNote resource refers to a Notion upload instead. A file Notion
// refuses becomes a paragraph saying so, and a Loss.
func (m *media) prepare(ctx context.Context, bs []blocks.Block) ([]blocks.Block, error) {
	return m.walk(ctx, bs, "")
}

func (m *media) walk(ctx context.Context, bs []blocks.Block, prefix string) ([]blocks.Block, error) {
	out := make([]blocks.Block, len(bs))
	for i, b := range bs {
		loc := prefix + strconv.Itoa(i+1)
		if b.Media != nil && b.Media.Resource != nil {
			nb, err := m.attach(ctx, b, loc)
			if err != nil {
				return nil, err
			}
			b = nb
		}
		if len(b.Children) > 0 {
			kids, err := m.walk(ctx, b.Children, loc+".")
			if err != nil {
				return nil, err
			}
			b.Children = kids
		}
		out[i] = b
	}
	return out, nil
}

// attach uploads the resource of media block b (once per resource).
func (m *media) attach(ctx context.Context, b blocks.Block, loc string) (blocks.Block, error) {
	r := *b.Media.Resource
	up, ok := m.byRes[r.ID]
	if !ok {
		var err error
		up, err = m.upload(ctx, r)
		if errors.Is(err, ErrUploadRefused) || errors.Is(err, ErrResourceUnavailable) {
			name := resourceName(r)
			m.losses = append(m.losses, Loss{Kind: LossAttachment, Location: fmt.Sprintf("block %s (%s)", loc, b.Type),
				Detail: fmt.Sprintf("%q could not be carried over: %v", name, err)})
			return lostAttachment(name, b.Type), nil
		}
		if err != nil {
			return blocks.Block{}, err
		}
	}
	md := *b.Media
	md.Resource, md.FileUploadID = nil, up.ID
	if b.Type == blocks.File && md.Name == "" {
		md.Name = resourceName(r)
	}
	b.Media = &md
	return b, nil
}

// upload opens and uploads one resource.
func (m *media) upload(ctx context.Context, r blocks.Resource) (Upload, error) {
	if m.open == nil {
		return Upload{}, fmt.Errorf("notion: page refers to resource %s but no ResourceOpener was given", r.ID)
	}
	rc, size, mime, err := m.open(ctx, r)
	if err != nil {
		return Upload{}, fmt.Errorf("notion: fetching resource %s: %w", r.ID, err)
	}
	defer rc.Close()
	if mime == "" {
		mime = r.MIME
	}
	up, err := m.c.UploadFile(ctx, resourceName(r), mime, size, rc)
	if err != nil {
		return Upload{}, err
	}
	m.byRes[r.ID] = up
	m.res[up.ID] = r
	return up, nil
}

// refresh replaces, in the blocks of b, every upload that has expired or
// will within expiryMargin (or every upload at all if force is set) by a
// fresh upload of the same resource.
func (m *media) refresh(ctx context.Context, b *batch, force bool) error {
	now := m.c.clock.Now()
	var visit func(bs []blocks.Block) error
	visit = func(bs []blocks.Block) error {
		for i := range bs {
			md := bs[i].Media
			if md != nil && md.FileUploadID != "" {
				r, ours := m.res[md.FileUploadID]
				up := m.byRes[r.ID]
				stale := ours && (force || (!up.Expires.IsZero() && up.Expires.Sub(now) < expiryMargin))
				if stale {
					if up.ID == md.FileUploadID {
						fresh, err := m.upload(ctx, r)
						if err != nil {
							return fmt.Errorf("notion: re-uploading expired %q: %w", resourceName(r), err)
						}
						up = fresh
					}
					nm := *md
					nm.FileUploadID = up.ID
					bs[i].Media = &nm
				}
			}
			if err := visit(bs[i].Children); err != nil {
				return err
			}
		}
		return nil
	}
	return visit(b.blocks)
}

// hasUploads reports whether any block of b attaches an upload of ours.
func (m *media) hasUploads(b batch) bool {
	var found bool
	var visit func(bs []blocks.Block)
	visit = func(bs []blocks.Block) {
		for _, x := range bs {
			if x.Media != nil && x.Media.FileUploadID != "" {
				if _, ok := m.res[x.Media.FileUploadID]; ok {
					found = true
				}
			}
			visit(x.Children)
		}
	}
	visit(b.blocks)
	return found
}

// isExpiredUpload recognises Notion's refusal of an upload that expired.
func isExpiredUpload(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 400 {
		return false
	}
	m := strings.ToLower(ae.Message)
	return strings.Contains(m, "expired") || (strings.Contains(m, "file_upload") && strings.Contains(m, "status"))
}

func resourceName(r blocks.Resource) string {
	if r.Name != "" {
		return r.Name
	}
	return r.ID
}

// lostAttachment is the paragraph that stands where a refused or
// unavailable file (an image, a PDF, an attachment) was.
func lostAttachment(name string, t blocks.Type) blocks.Block {
	what := "Attachment"
	switch t {
	case blocks.Image:
		what = "Image"
	case blocks.PDF:
		what = "PDF"
	case blocks.Video:
		what = "Video"
	}
	return blocks.Block{Type: blocks.Paragraph, RichText: []blocks.RichText{{
		Text:        fmt.Sprintf("[%s %q could not be carried over from OneNote.]", what, name),
		Annotations: blocks.Annotations{Italic: true, Color: "gray"},
	}}}
}
