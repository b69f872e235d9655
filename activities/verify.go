package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"

	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/readback"
)

// Registered names of the verification activities.
const (
	FindSectionsName  = "FindSections"
	VerifySectionName = "VerifySection"
)

// FindSectionsInput asks for the section databases of a migrated
// notebook, by its Notion page.
type FindSectionsInput struct {
	NotebookPageID string `json:"notebookPageID"`
}

// FindSections lists the section databases under a notebook's page (see
// notion.Client.SectionDatabases).
func (a *Activities) FindSections(ctx context.Context, in FindSectionsInput) ([]ReportSection, error) {
	if a.cfg.Notion == nil {
		return nil, errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	secs, err := a.cfg.Notion.SectionDatabases(ctx, in.NotebookPageID)
	if err != nil {
		return nil, notionError(err)
	}
	out := make([]ReportSection, 0, len(secs))
	for _, s := range secs {
		out = append(out, ReportSection{Path: s.Name, DatabaseID: s.DatabaseID})
	}
	return out, nil
}

// VerifySectionInput asks to check the migrated pages of one section
// database again.
type VerifySectionInput struct {
	Section ReportSection `json:"section"`
}

// PageVerdict is one page's verdict that is not "verified".
type PageVerdict struct {
	Section       string `json:"section"`
	Title         string `json:"title"`
	OneNotePageID string `json:"oneNotePageID"`
	NotionPageID  string `json:"notionPageID"`
	// Verdict is "differs", "edited" or "" (not checked); Summary says
	// what differs.
	Verdict string `json:"verdict"`
	Summary string `json:"summary,omitempty"`
}

// VerifySectionResult counts a section's verdicts.
type VerifySectionResult struct {
	Pages      int `json:"pages"`
	Verified   int `json:"verified"`
	Differs    int `json:"differs"`
	Edited     int `json:"edited"`
	Unverified int `json:"unverified"`
	// Reads counts the Notion reads of the page checks (not the row
	// queries: one per 100 rows).
	Reads int `json:"reads"`
	// NotVerified names up to maxNotVerified pages that are not verified,
	// differing ones first.
	NotVerified []PageVerdict `json:"notVerified,omitempty"`
}

// maxNotVerified is how many pages a section's result names.
const maxNotVerified = 20

// VerifySection reads back every migrated page of a section database and
// compares it with what its row records was written (see
// notion.Client.RecheckRow). It changes nothing in Notion.
func (a *Activities) VerifySection(ctx context.Context, in VerifySectionInput) (VerifySectionResult, error) {
	var out VerifySectionResult
	if a.cfg.Notion == nil {
		return out, errors.New("activities: no Notion client configured")
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	var differs, others []PageVerdict
	err := a.cfg.Notion.Rows(ctx, in.Section.DatabaseID, notion.RowFilter{Done: true}, func(r notion.Row) error {
		chk, err := a.cfg.Notion.RecheckRow(ctx, r)
		if err != nil {
			return err
		}
		out.Pages++
		out.Reads += chk.Reads
		pv := PageVerdict{Section: in.Section.Path, Title: r.Title, OneNotePageID: r.OneNotePageID, NotionPageID: r.PageID,
			Verdict: string(chk.Verdict.State), Summary: chk.Verdict.Summary}
		switch chk.Verdict.State {
		case readback.Verified:
			out.Verified++
		case readback.Differs:
			out.Differs++
			differs = append(differs, pv)
		case readback.Edited:
			out.Edited++
			others = append(others, pv)
		default:
			out.Unverified++
			others = append(others, pv)
		}
		if activity.IsActivity(ctx) {
			activity.RecordHeartbeat(ctx, out.Pages)
		}
		return nil
	})
	if err != nil {
		return out, notionError(err)
	}
	out.NotVerified = append(differs, others...)
	if len(out.NotVerified) > maxNotVerified {
		out.NotVerified = out.NotVerified[:maxNotVerified]
	}
	return out, nil
}
