package onenote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Resource describes a downloaded resource.
type Resource struct {
	// ContentType is the response's Content-Type. Do not rely on it: real
	// Graph answers application/octet-stream for every resource
	// (graph-reality.md #15); take the type from the page HTML
	// (data-src-type, data-fullres-src-type, an object's type) or from the
	// bytes.
	ContentType string
	// Bytes is how many bytes were written.
	Bytes int64
}

// DownloadResource streams a page resource (an image or attachment) to w.
// ref is a resource URL as found in page HTML, treated as opaque: an
// absolute URL on the configured Graph host, a path such as
// "/me/onenote/resources/{id}/$value", or "resources/{id}/$value" relative
// to the user's onenote root. An absolute URL on any other host is refused,
// so the token is never sent elsewhere.
//
// At most maxBytes are written; a larger resource is a KindTooLarge error
// (checked against Content-Length before reading when possible). On any
// error w may hold a partial body, which the caller must discard.
func (c *Client) DownloadResource(ctx context.Context, ref string, w io.Writer, maxBytes int64) (Resource, Observation, error) {
	const op = "get resource"
	if maxBytes <= 0 {
		return Resource{}, Observation{}, &Error{Kind: KindInvalidArgument, Op: op, Message: "maxBytes must be positive"}
	}
	u, err := c.resourceURL(ref)
	if err != nil {
		return Resource{}, Observation{}, &Error{Kind: KindInvalidArgument, Op: op, Message: err.Error()}
	}
	resp, obs, tok, err := c.send(ctx, call{op: op, method: http.MethodGet, url: u, cost: 1})
	if err != nil {
		return Resource{}, obs, err
	}
	defer resp.Body.Close()
	res := Resource{ContentType: resp.Header.Get("Content-Type")}
	tooLarge := &Error{Kind: KindTooLarge, Op: op, Status: resp.StatusCode,
		Message: fmt.Sprintf("resource is larger than the %d-byte cap", maxBytes),
		Hint:    "raise the size cap or skip this resource and report it"}
	if resp.ContentLength > maxBytes {
		obs.Duration = c.now().Sub(obs.Sent)
		return res, obs, tooLarge
	}
	sw := &sinkWriter{w: w}
	n, err := io.Copy(sw, io.LimitReader(resp.Body, maxBytes))
	res.Bytes = n
	obs.Duration = c.now().Sub(obs.Sent)
	switch {
	case sw.err != nil:
		return res, obs, &Error{Kind: KindUnknown, Op: op, Status: resp.StatusCode, Message: "writing the resource failed", Err: sw.err}
	case err != nil:
		return res, obs, &Error{Kind: KindTransient, Op: op, Status: resp.StatusCode, Message: "resource body was cut short", Err: scrubErr(err, tok)}
	case resp.ContentLength >= 0 && n < resp.ContentLength:
		return res, obs, &Error{Kind: KindTransient, Op: op, Status: resp.StatusCode,
			Message: fmt.Sprintf("resource body was cut short: %d of %d bytes", n, resp.ContentLength)}
	}
	if n == maxBytes {
		var one [1]byte
		if m, _ := io.ReadFull(resp.Body, one[:]); m > 0 {
			return res, obs, tooLarge
		}
	}
	return res, obs, nil
}

// sinkWriter remembers the destination's write error, to tell it apart
// from a read error in io.Copy.
type sinkWriter struct {
	w   io.Writer
	err error
}

func (s *sinkWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// resourceURL resolves a resource reference to an absolute URL on the
// Graph host.
func (c *Client) resourceURL(ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", errors.New("resource URL is empty")
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("resource URL does not parse: %w", err)
	}
	switch {
	case u.IsAbs():
		if !c.sameOrigin(u) {
			return "", fmt.Errorf("resource URL host %q is not the Graph host %q; refusing to send the token to it", u.Host, c.base.Host)
		}
		return ref, nil
	case strings.HasPrefix(ref, "/"):
		basePath := strings.TrimRight(c.base.Path, "/")
		if basePath != "" && strings.HasPrefix(ref, basePath+"/") {
			return c.base.Scheme + "://" + c.base.Host + ref, nil
		}
		return c.baseStr + ref, nil
	case strings.HasPrefix(ref, "resources/"):
		return c.baseStr + c.OneNotePath(ref), nil
	}
	return "", fmt.Errorf("resource URL %q is neither absolute nor a resources/ path", ref)
}
