package activities

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/onenote"
)

// CleanPageName is the registered name of CleanPage.
const CleanPageName = "CleanPage"

// StageKey names a page's staging directory; workflows make it from the
// page ID and their run, so two runs never share one.
type StageKey string

// dir is the page's staging directory. The key is hashed: page IDs hold
// characters file systems dislike.
func (a *Activities) dir(k StageKey) string {
	sum := sha256.Sum256([]byte(k))
	return filepath.Join(a.staging, hex.EncodeToString(sum[:12]))
}

func (a *Activities) htmlPath(k StageKey) string { return filepath.Join(a.dir(k), "page.html") }

// inkPath is where a page's InkML is staged, when it has ink.
func (a *Activities) inkPath(k StageKey) string { return filepath.Join(a.dir(k), "page.inkml") }

// stageContent stages a page's HTML and, when it has ink, its InkML. The
// InkML goes first: page.html is what says the content is staged.
func (a *Activities) stageContent(k StageKey, pc onenote.PageContent) error {
	if pc.InkML != nil {
		if err := writeFile(a.inkPath(k), pc.InkML); err != nil {
			return err
		}
	} else if err := os.Remove(a.inkPath(k)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return writeFile(a.htmlPath(k), pc.HTML)
}

// stagedContent reads a page's staged HTML and InkML (nil when the page
// has no ink).
func (a *Activities) stagedContent(k StageKey) (html, inkML []byte, err error) {
	html, err = os.ReadFile(a.htmlPath(k))
	if err != nil {
		return nil, nil, err
	}
	inkML, err = os.ReadFile(a.inkPath(k))
	if errors.Is(err, os.ErrNotExist) {
		return html, nil, nil
	}
	return html, inkML, err
}

// linksPath is where a link pass's targets are staged.
func (a *Activities) linksPath(k StageKey) string { return filepath.Join(a.dir(k), "links.json") }

func (a *Activities) resourcePath(k StageKey, resourceID string) string {
	sum := sha256.Sum256([]byte(resourceID))
	return filepath.Join(a.dir(k), "res-"+hex.EncodeToString(sum[:12]))
}

// writeFile writes b to path atomically, so a crash never leaves a
// half-written file that looks complete.
func writeFile(path string, b []byte) error {
	return writeWith(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func writeWith(path string, fill func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// stagingMissing is the error when staged data is not on this worker (the
// session moved, or the staging dir was cleaned): the page must be fetched
// again.
func stagingMissing(what string, err error) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("staged %s is missing on this worker: %v", what, err),
		failure.Staging, err)
}

// opener serves a page's staged resources to the Notion writer, each with
// the type resourceType decides (never Graph's download header); a
// resource in lost is unavailable (the page is written without it). The
// page's drawn ink is served from memory, as the converter made it.
func (a *Activities) opener(k StageKey, lost []LostResource, drawn []convert.InkImage) func(ctx context.Context, r blocks.Resource) (io.ReadCloser, int64, string, error) {
	return func(ctx context.Context, r blocks.Resource) (io.ReadCloser, int64, string, error) {
		if im, ok := convert.Drawing(r, drawn); ok {
			return io.NopCloser(bytes.NewReader(im.Data)), int64(len(im.Data)), im.MIME, nil
		}
		for _, l := range lost {
			if l.ID == r.ID {
				return nil, 0, "", fmt.Errorf("%w: %s", notion.ErrResourceUnavailable, l.Reason)
			}
		}
		p := a.resourcePath(k, r.ID)
		f, err := os.Open(p)
		if err != nil {
			return nil, 0, "", fmt.Errorf("resource %s: %w", r.ID, err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, "", err
		}
		head := readHead(f)
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, 0, "", err
		}
		return f, st.Size(), resourceType(r.MIME, r.Name, head), nil
	}
}

// CleanPage removes a page's staging directory. Removing a missing one is
// not an error.
func (a *Activities) CleanPage(ctx context.Context, k StageKey) error {
	if err := os.RemoveAll(a.dir(k)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clean staging of page: %w", err)
	}
	return nil
}
