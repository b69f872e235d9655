package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/notebridge/notebridge/notion"
)

// ExistingRowsInput asks which listed pages are already migrated.
type ExistingRowsInput struct {
	DatabaseID string `json:"databaseID"`
	// Pages maps OneNote page IDs to their lastModified (timeFormat).
	Pages map[string]string `json:"pages"`
}

// ExistingRowsResult maps the pages whose row is done and unchanged since
// (same lastModified, to the second) to their Notion page IDs.
type ExistingRowsResult struct {
	Done map[string]string `json:"done"`
}

// ExistingRows reads a section database's finished rows, so a re-run
// skips unchanged pages before spending any Graph request on them.
//
// Package notion does not export a row listing yet, so this makes the
// database queries itself (read-only, honouring Retry-After). It shares
// no pacer with the writer.
func (a *Activities) ExistingRows(ctx context.Context, in ExistingRowsInput) (ExistingRowsResult, error) {
	out := ExistingRowsResult{Done: map[string]string{}}
	if a.cfg.NotionToken == nil || len(in.Pages) == 0 {
		return out, nil
	}
	tok, err := a.cfg.NotionToken.Token(ctx)
	if err != nil {
		return out, fmt.Errorf("notion token: %w", err)
	}
	base := strings.TrimRight(a.cfg.NotionBaseURL, "/")
	if base == "" {
		base = notion.DefaultBaseURL
	}
	q := map[string]any{
		"filter":    map[string]any{"property": notion.PropStatus, "select": map[string]any{"equals": notion.StatusDone}},
		"page_size": 100,
	}
	for {
		var page struct {
			Results []struct {
				ID         string `json:"id"`
				Archived   bool   `json:"archived"`
				Properties map[string]struct {
					RichText []struct {
						PlainText string `json:"plain_text"`
						Text      struct {
							Content string `json:"content"`
						} `json:"text"`
					} `json:"rich_text"`
					Date *struct {
						Start string `json:"start"`
					} `json:"date"`
				} `json:"properties"`
			} `json:"results"`
			HasMore    bool    `json:"has_more"`
			NextCursor *string `json:"next_cursor"`
		}
		if err := a.notionQuery(ctx, tok, base+"/v1/databases/"+in.DatabaseID+"/query", q, &page); err != nil {
			return out, err
		}
		for _, r := range page.Results {
			if r.Archived {
				continue
			}
			var id string
			for _, t := range r.Properties[notion.PropOneNoteID].RichText {
				if t.PlainText != "" {
					id += t.PlainText
				} else {
					id += t.Text.Content
				}
			}
			want, ok := in.Pages[id]
			if !ok {
				continue
			}
			d := r.Properties[notion.PropLastModified].Date
			if d != nil && sameSecond(d.Start, want) {
				out.Done[id] = r.ID
			}
		}
		if !page.HasMore || page.NextCursor == nil {
			return out, nil
		}
		q["start_cursor"] = *page.NextCursor
	}
}

func sameSecond(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && ta.Truncate(time.Second).Equal(tb.Truncate(time.Second))
}

// notionQuery POSTs a query, retrying 429, 5xx and network errors a few
// times (a query changes nothing, so resending is safe).
func (a *Activities) notionQuery(ctx context.Context, tok, url string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	var last error
	for attempt := 0; attempt < 6; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Notion-Version", notion.APIVersion)
		req.Header.Set("Content-Type", "application/json")
		wait := time.Duration(attempt+1) * 500 * time.Millisecond
		resp, err := a.cfg.NotionHTTP.Do(req)
		if err == nil {
			data, rerr := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
			resp.Body.Close()
			switch {
			case rerr != nil:
				last = rerr
			case resp.StatusCode == http.StatusOK:
				return json.Unmarshal(data, out)
			case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
				last = fmt.Errorf("notion database query: HTTP %d", resp.StatusCode)
				if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
					wait = min(time.Duration(s)*time.Second, 30*time.Second)
				}
			case resp.StatusCode == http.StatusNotFound:
				return notionError(fmt.Errorf("database %s: %w", strings.TrimPrefix(url, ""), notion.ErrNotFound))
			default:
				return notionError(fmt.Errorf("notion database query: HTTP %d: %w", resp.StatusCode, notion.ErrValidation))
			}
		} else {
			last = fmt.Errorf("notion database query: %w", scrub(err, tok))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return notionError(last)
}

// scrub removes the token from an error message.
func scrub(err error, tok string) error {
	if tok == "" || !strings.Contains(err.Error(), tok) {
		return err
	}
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), tok, "[token]"))
}
