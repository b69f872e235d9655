package onenote

import (
	"context"
	"net/http"
	"net/url"
)

// ContentOptions tunes GetPageContent.
type ContentOptions struct {
	// IncludeInkML asks for the page's ink as InkML alongside the HTML
	// (includeInkML=true). Graph then answers multipart, or plain HTML for
	// a page without ink.
	IncludeInkML bool
}

// PageContent is a page's output HTML and, if asked for and present, its
// InkML.
type PageContent struct {
	HTML []byte
	// InkML is nil when the page has no ink or it was not asked for.
	InkML []byte
	// Other holds any further multipart parts.
	Other []ContentPart
	// ContentType is the response's Content-Type.
	ContentType string
}

// GetPageContent fetches a page's content: GET .../pages/{id}/content. The
// body is capped at Config.MaxContentBytes (KindTooLarge beyond). A body
// that cannot be parsed is a transient error.
func (c *Client) GetPageContent(ctx context.Context, pageID string, opts ContentOptions) (PageContent, Observation, error) {
	const op = "get page content"
	if pageID == "" {
		return PageContent{}, Observation{}, &Error{Kind: KindInvalidArgument, Op: op, Message: "page ID is empty"}
	}
	var q url.Values
	if opts.IncludeInkML {
		q = url.Values{"includeInkML": {"true"}}
	}
	u := c.url("pages/"+url.PathEscape(pageID)+"/content", q)
	resp, obs, tok, err := c.send(ctx, call{op: op, method: http.MethodGet, url: u, cost: 1, class: requestClass{pageGET: true}})
	if err != nil {
		return PageContent{}, obs, err
	}
	ct := resp.Header.Get("Content-Type")
	b, err := c.readBody(resp, op, c.maxContent, tok)
	obs.Duration = c.now().Sub(obs.Sent)
	if err != nil {
		return PageContent{}, obs, err
	}
	pc := PageContent{ContentType: ct}
	if opts.IncludeInkML && isMultipart(ct, b) {
		pc.HTML, pc.InkML, pc.Other, err = ParseMultipart(ct, b)
		if err != nil {
			return PageContent{}, obs, malformed(op, obs.Status, err)
		}
		return pc, obs, nil
	}
	pc.HTML = b
	return pc, obs, nil
}
