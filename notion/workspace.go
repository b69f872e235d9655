package notion

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// WorkspaceFacts is what the API tells about the workspace a token writes
// to, for the readiness check (package readiness). The plan, the
// connection's kind and the blocks already used are not in the API: the
// worker's flags give them.
type WorkspaceFacts struct {
	// Members counts the workspace's people (GET /v1/users lists members,
	// not guests); 0 when the connection may not read users (it lacks the
	// user information capability).
	Members int
	// MaxUploadBytes is max_file_upload_size_in_bytes of the bot user
	// (0: not reported).
	MaxUploadBytes int64
}

// WorkspaceFacts reads the workspace's member count and per-file upload
// cap: GET /v1/users/me (once per Client) and the pages of GET /v1/users.
// A refusal to list users (403) leaves Members at 0 rather than failing:
// the check then says the count is unknown.
func (c *Client) WorkspaceFacts(ctx context.Context) (WorkspaceFacts, error) {
	var f WorkspaceFacts
	var err error
	if f.MaxUploadBytes, err = c.workspaceMaxFileSize(ctx); err != nil {
		return f, err
	}
	cursor := ""
	for {
		q := url.Values{"page_size": {"100"}}
		if cursor != "" {
			q.Set("start_cursor", cursor)
		}
		var page struct {
			Results []struct {
				Type string `json:"type"`
			} `json:"results"`
			HasMore    bool   `json:"has_more"`
			NextCursor string `json:"next_cursor"`
		}
		if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/users", query: q, out: &page}); err != nil {
			if errors.Is(err, ErrUnauthorized) {
				return WorkspaceFacts{MaxUploadBytes: f.MaxUploadBytes}, nil
			}
			return f, fmt.Errorf("notion: listing the workspace's users: %w", err)
		}
		for _, u := range page.Results {
			if u.Type == "person" {
				f.Members++
			}
		}
		if !page.HasMore || page.NextCursor == "" {
			return f, nil
		}
		cursor = page.NextCursor
	}
}
