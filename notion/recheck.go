package notion

import (
	"context"
	"fmt"

	"github.com/notebridge/notebridge/notion/readback"
)

// SectionDatabases finds the section databases of a migrated notebook:
// the child databases of its notebook page and, depth first, of its
// section group pages (the migration report page and the rows are not
// looked into). Each is named by its path under the notebook
// ("Group / Section").
func (c *Client) SectionDatabases(ctx context.Context, notebookPageID string) ([]ReportSection, error) {
	var out []ReportSection
	var walk func(id, prefix string, depth int) error
	walk = func(id, prefix string, depth int) error {
		if depth > maxGroupDepth {
			return nil
		}
		kids, err := c.listChildren(ctx, id)
		if err != nil {
			return fmt.Errorf("notion: looking for section databases under %s: %w", id, err)
		}
		for _, k := range kids {
			switch {
			case k.ChildDatabase != nil:
				out = append(out, ReportSection{Name: prefix + k.ChildDatabase.Title, DatabaseID: k.ID})
			case k.ChildPage != nil && k.ChildPage.Title != ReportTitle:
				if err := walk(k.ID, prefix+k.ChildPage.Title+" / ", depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk(notebookPageID, "", 0)
}

// maxGroupDepth bounds how deep SectionDatabases looks: OneNote nests
// section groups a few levels at most.
const maxGroupDepth = 16

// RecheckRow checks a migrated page again, at any later time: the page of
// row r is read back and compared with what was written (PropWritten). A
// page a person edited in Notion since is readback.Edited, not a
// difference; a row that records nothing written (verification off, or
// written before it existed) is readback.Unverified and costs no read.
// The row is not changed.
func (c *Client) RecheckRow(ctx context.Context, r Row) (Check, error) {
	if r.Written == "" {
		return Check{Verdict: readback.Verdict{State: readback.Unverified, Summary: "nothing recorded to compare with"}}, nil
	}
	want, err := readback.Decode(r.Written)
	if err != nil {
		// A person edited the record: the page cannot be compared.
		return Check{Verdict: readback.Verdict{State: readback.Edited, Summary: "its " + quoteName(PropWritten) + " was edited"}}, nil
	}
	return c.VerifyPage(ctx, r.PageID, want, true)
}
