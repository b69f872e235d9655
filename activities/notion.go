package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/notion"
)

// Registered names of the Notion activities.
const (
	EnsureLayoutName = "EnsureLayout"
	WritePageName    = "WritePage"
	RewriteLinksName = "RewriteLinks"
	ExistingRowsName = "ExistingRows"
)

// EnsureLayoutInput asks for a notebook's Notion containers.
type EnsureLayoutInput struct {
	ParentPageID string       `json:"parentPageID"`
	Notebook     NotebookTree `json:"notebook"`
}

// EnsureLayout finds or creates the notebook's page, its section groups'
// pages and its sections' databases under the parent page.
func (a *Activities) EnsureLayout(ctx context.Context, in EnsureLayoutInput) (notion.Layout, error) {
	if a.cfg.Notion == nil {
		return notion.Layout{}, errors.New("activities: no Notion client configured")
	}
	spec := notion.NotebookSpec{ID: in.Notebook.ID, Name: in.Notebook.Name,
		Sections: sectionSpecs(in.Notebook.Sections), SectionGroups: groupSpecs(in.Notebook.SectionGroups)}
	l, err := a.cfg.Notion.EnsureLayout(ctx, in.ParentPageID, spec)
	if err != nil {
		return notion.Layout{}, notionError(err)
	}
	return l, nil
}

func sectionSpecs(ns []TreeNode) []notion.SectionSpec {
	out := make([]notion.SectionSpec, 0, len(ns))
	for _, n := range ns {
		out = append(out, notion.SectionSpec{ID: n.ID, Name: n.Name})
	}
	return out
}

func groupSpecs(gs []GroupNode) []notion.SectionGroupSpec {
	out := make([]notion.SectionGroupSpec, 0, len(gs))
	for _, g := range gs {
		out = append(out, notion.SectionGroupSpec{ID: g.ID, Name: g.Name,
			Sections: sectionSpecs(g.Sections), SectionGroups: groupSpecs(g.SectionGroups)})
	}
	return out
}

// WritePageInput asks to convert a staged page and write it to Notion.
type WritePageInput struct {
	Key        StageKey `json:"key"`
	DatabaseID string   `json:"databaseID"`
	Page       PageMeta `json:"page"`
	// SectionPath is shown on the row ("Notebook / Group / Section").
	SectionPath string `json:"sectionPath"`
	// ParentNotionID is the Notion page of the page's parent page, for a
	// subpage.
	ParentNotionID string `json:"parentNotionID,omitempty"`
}

// WritePageResult is what the write did.
type WritePageResult struct {
	NotionPageID  string `json:"notionPageID"`
	Unchanged     bool   `json:"unchanged,omitempty"`
	BlocksWritten int    `json:"blocksWritten"`
	Requests      int    `json:"requests"`
	// Links counts the page's internal links (to rewrite later).
	Links int `json:"links,omitempty"`
	// Losses counts what could not be carried over; LossSamples names a
	// few.
	Losses      int      `json:"losses,omitempty"`
	LossSamples []string `json:"lossSamples,omitempty"`
}

// WritePage converts the staged page HTML and writes the page, exactly
// once, into its section's database (see notion.Client.WritePage).
func (a *Activities) WritePage(ctx context.Context, in WritePageInput) (WritePageResult, error) {
	if a.cfg.Notion == nil {
		return WritePageResult{}, errors.New("activities: no Notion client configured")
	}
	html, err := os.ReadFile(a.htmlPath(in.Key))
	if err != nil {
		return WritePageResult{}, stagingMissing("page content", err)
	}
	conv, err := convert.Page(html, convert.Options{})
	if err != nil {
		// Conversion is a pure function: trying again cannot help.
		return WritePageResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("convert page %s: %v", in.Page.ID, err), ErrTypeConvert, err)
	}
	title := conv.Title
	if title == "" {
		title = in.Page.Title
	}
	pin := notion.PageInput{OneNotePageID: in.Page.ID, Title: title, SectionPath: in.SectionPath,
		Link: in.Page.WebURL, ParentPageID: in.ParentNotionID, Blocks: conv.Blocks, Resources: a.opener(in.Key)}
	pin.Created, _ = time.Parse(timeFormat, in.Page.Created)
	pin.LastModified, _ = time.Parse(timeFormat, in.Page.LastModified)

	stop := heartbeat(ctx, 5*time.Second)
	res, err := a.cfg.Notion.WritePage(ctx, in.DatabaseID, pin)
	stop()
	if err != nil {
		return WritePageResult{}, notionError(err)
	}
	out := WritePageResult{NotionPageID: res.PageID, Unchanged: res.Unchanged, BlocksWritten: res.BlocksWritten,
		Requests: res.Requests, Links: len(conv.Links), Losses: len(conv.Losses) + len(res.Losses)}
	for _, l := range conv.Losses {
		if len(out.LossSamples) == 3 {
			break
		}
		out.LossSamples = append(out.LossSamples, fmt.Sprint(l))
	}
	return out, nil
}

// heartbeat records a heartbeat every d until stop is called.
func heartbeat(ctx context.Context, d time.Duration) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

// RewriteLinksInput asks to rewrite the internal links of some migrated
// pages.
type RewriteLinksInput struct {
	// Pages are Notion page IDs.
	Pages []string `json:"pages"`
	// Targets maps OneNote page-id GUIDs to Notion page IDs.
	Targets map[string]string `json:"targets"`
}

// RewriteLinksResult counts what the pass did.
type RewriteLinksResult struct {
	Pages         int `json:"pages"`
	BlocksWritten int `json:"blocksWritten"`
	Losses        int `json:"losses"`
}

// RewriteLinks turns the internal onenote: links of the given pages into
// mentions of the migrated pages (the second pass).
func (a *Activities) RewriteLinks(ctx context.Context, in RewriteLinksInput) (RewriteLinksResult, error) {
	if a.cfg.Notion == nil {
		return RewriteLinksResult{}, errors.New("activities: no Notion client configured")
	}
	var out RewriteLinksResult
	for _, p := range in.Pages {
		res, err := a.cfg.Notion.RewritePageLinks(ctx, p, in.Targets)
		if err != nil {
			return out, notionError(err)
		}
		out.Pages++
		out.BlocksWritten += res.BlocksWritten
		out.Losses += len(res.Losses)
		activity.RecordHeartbeat(ctx, out.Pages)
	}
	return out, nil
}
