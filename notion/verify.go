package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/notion/readback"
	"github.com/notebridge/notebridge/report"
)

// The row properties of read-back verification.
const (
	// PropVerification is the page's verdict (readback.State): verified,
	// differs, or edited (a person changed it since it was written).
	PropVerification = "Verification"
	// PropWritten records what was written (readback.Summary.Encode), so
	// a later check (starter verify) compares the page with it.
	PropWritten = "Written content"
)

// LossVerification is the loss kind of a page that still differs from
// what was written after it was written twice.
const LossVerification = "verification"

// verificationSchema is the section database's verification properties.
func verificationSchema() map[string]any {
	return map[string]any{
		PropWritten: map[string]any{"rich_text": map[string]any{}},
		PropVerification: map[string]any{"select": map[string]any{"options": []map[string]any{
			{"name": string(readback.Verified), "color": "green"}, {"name": string(readback.Differs), "color": "red"},
			{"name": string(readback.Edited), "color": "blue"}}}},
	}
}

// Check is the outcome of reading a page back.
type Check struct {
	Verdict readback.Verdict
	// Reads counts the Notion requests the check sent.
	Reads int
}

// VerifyPage reads the block children of page pageID (every level) and
// compares them with want, what was written. With edits set, it first
// reads the page itself: a page or block last edited by someone other
// than the page's creator (the integration that wrote it) was edited by a
// person since, and is reported readback.Edited rather than compared.
func (c *Client) VerifyPage(ctx context.Context, pageID string, want readback.Summary, edits bool) (chk Check, err error) {
	ctx, n := withCounter(ctx)
	defer func() { chk.Reads = int(n.Load()) }()
	creator := ""
	if edits {
		var p editedObject
		if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/pages/" + pageID, out: &p}); err != nil {
			return chk, fmt.Errorf("notion: reading page %s back: %w", pageID, err)
		}
		creator = p.CreatedBy.ID
		if p.LastEditedBy.ID != "" && p.LastEditedBy.ID != creator {
			chk.Verdict = readback.Verdict{State: readback.Edited, Summary: "edited in Notion since it was written"}
			return chk, nil
		}
	}
	got, edited, err := c.readBack(ctx, pageID, creator)
	if err != nil {
		return chk, fmt.Errorf("notion: reading page %s back: %w", pageID, err)
	}
	if edited {
		chk.Verdict = readback.Verdict{State: readback.Edited, Summary: "edited in Notion since it was written"}
		return chk, nil
	}
	chk.Verdict = readback.Compare(want, readback.Summarize(got, nil))
	return chk, nil
}

// editedObject is who created and last edited a page or block.
type editedObject struct {
	ID           string `json:"id"`
	HasChildren  bool   `json:"has_children"`
	Archived     bool   `json:"archived"`
	InTrash      bool   `json:"in_trash"`
	CreatedBy    user   `json:"created_by"`
	LastEditedBy user   `json:"last_edited_by"`
}

type user struct {
	ID string `json:"id"`
}

// readBack reads the live blocks under id, children included. When
// creator is set, it also tells whether a block was last edited by
// someone else.
func (c *Client) readBack(ctx context.Context, id, creator string) ([]blocks.Block, bool, error) {
	raws, err := c.listChildrenRaw(ctx, id)
	if err != nil {
		return nil, false, err
	}
	var out []blocks.Block
	for _, raw := range raws {
		var b blocks.Block
		var state editedObject
		if err := json.Unmarshal(raw, &state); err != nil {
			return nil, false, fmt.Errorf("notion: decoding children of %s: %w", id, err)
		}
		if state.Archived || state.InTrash {
			continue
		}
		if creator != "" && state.LastEditedBy.ID != "" && state.LastEditedBy.ID != creator {
			return nil, true, nil
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, false, fmt.Errorf("notion: decoding children of %s: %w", id, err)
		}
		if state.HasChildren {
			kids, edited, err := c.readBack(ctx, state.ID, creator)
			if err != nil || edited {
				return nil, edited, err
			}
			b.Children = kids
		}
		out = append(out, b)
	}
	return out, false, nil
}

// VerifiedResult is what a verified page write did.
type VerifiedResult struct {
	Result
	// Verdict is the page's verdict after the last write (zero when the
	// page was unchanged and not written).
	Verdict readback.Verdict
	// Rewritten is set when the first write read back differently and
	// the page was written again.
	Rewritten bool
	// Reads counts the Notion requests of the read-backs.
	Reads int
}

// WriteVerifiedPage writes a page (WritePage), reads it back and compares
// it with what was written. If it differs, the page is written again
// once: its "Last modified in OneNote" is cleared, so WritePage replaces
// its content. If it still differs, a loss of kind LossVerification names
// what is missing ("verification: 12 words and 1 image missing after two
// writes"). The verdict goes on the row (PropVerification), beside what
// was written (PropWritten, which WritePage stores). An unchanged page
// whose row has a verdict is not read; one without (a read-back that
// failed after the write, or a write with verification off) is checked
// against its record, a person's edits since reported as edited.
func (c *Client) WriteVerifiedPage(ctx context.Context, db string, in PageInput) (VerifiedResult, error) {
	res, err := c.WritePage(ctx, db, in)
	out := VerifiedResult{Result: res}
	if err != nil {
		return out, err
	}
	want := res.Planned
	if res.Unchanged {
		if res.Verification != "" || res.Written == "" {
			return out, nil
		}
		if want, err = readback.Decode(res.Written); err != nil {
			// A person edited the record: nothing to compare with.
			return out, nil
		}
	}
	chk, err := c.VerifyPage(ctx, res.PageID, want, res.Unchanged)
	out.Reads += chk.Reads
	if err != nil {
		return out, err
	}
	if chk.Verdict.State == readback.Differs {
		c.log.LogAttrs(ctx, slog.LevelWarn, "notion page read back differs from what was written; writing it again",
			slog.String("page", res.PageID), slog.String("differs", chk.Verdict.Summary))
		if err := c.updateRow(ctx, res.PageID, map[string]any{
			PropStatus: map[string]any{"select": map[string]any{"name": StatusWriting}}, PropLastModified: map[string]any{"date": nil}}); err != nil {
			return out, err
		}
		again, err := c.WritePage(ctx, db, in)
		out.Rewritten, out.Unchanged = true, false
		out.Requests += again.Requests
		out.BlocksWritten += again.BlocksWritten
		out.Losses, out.Entries, out.InternalLinks = again.Losses, again.Entries, again.InternalLinks
		if err != nil {
			return out, err
		}
		chk, err = c.VerifyPage(ctx, res.PageID, again.Planned, false)
		out.Reads += chk.Reads
		if err != nil {
			return out, err
		}
		out.Planned = again.Planned
	}
	out.Verdict = chk.Verdict
	props := map[string]any{
		PropVerification: map[string]any{"select": map[string]any{"name": string(chk.Verdict.State)}},
	}
	if chk.Verdict.State == readback.Differs {
		out.Entries = report.Merge(append(slices.Clone(out.Entries), VerificationLoss(chk.Verdict, true)))
		for k, v := range lossProperties(out.Entries) {
			props[k] = v
		}
	}
	err = c.setProps(ctx, res.PageID, props, func(p pageObject) bool {
		s := p.Properties[PropVerification].Select
		return s != nil && s.Name == string(chk.Verdict.State)
	})
	return out, err
}

// VerificationLoss is the loss entry of a page that reads back
// differently from what was written; twice says it was written twice.
func VerificationLoss(v readback.Verdict, twice bool) report.Entry {
	what := v.Summary
	if twice {
		what += " after two writes"
	}
	return report.Entry{Kind: LossVerification, Severity: report.Lost, Count: 1, What: what}
}

// inkOf tells drawn ink among the media blocks of a prepared page: an
// upload made from an ink resource ("ink:N").
func (m *media) inkOf(md blocks.Media) bool {
	if readback.IsInk(md) {
		return true
	}
	r, ok := m.res[md.FileUploadID]
	return ok && strings.HasPrefix(r.ID, "ink:")
}

// verificationLine is the report page's sentence on read-back
// verification: "160 of 160 pages verified: each was read back from
// Notion and holds what was written."
func verificationLine(v report.Verification) string {
	s := v.String() + ": each page written is read back from Notion and compared with what was written"
	if v.Differs > 0 {
		s += "; a page that still differs after a second write is listed under " + quoteName(LossVerification) + " below"
	}
	if v.Edited > 0 {
		s += "; a page edited in Notion since is not compared"
	}
	return s + "."
}
