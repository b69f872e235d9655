package notionsdk

import (
	"slices"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/emulator/notion"
)

// The SDK 5.x cases (sdk5.mjs): @notionhq/client 5.26.0, unmodified, on its
// default Notion-Version 2025-09-03 (and one case on 2026-03-11), beside
// the 4.x cases on 2022-06-28 in notionsdk_test.go.

type sdk5Error struct {
	APIResponseError bool   `json:"apiResponseError"`
	Code             string `json:"code"`
	Status           int    `json:"status"`
	Message          string `json:"message"`
}

func TestSDK5DataSources(t *testing.T) {
	f := newFixture(t, notion.Config{})
	var got struct {
		DataSourceCount   int               `json:"dataSourceCount"`
		HasProperties     bool              `json:"hasProperties"`
		SourceProperties  []string          `json:"sourceProperties"`
		UpdatedProperties []string          `json:"updatedProperties"`
		RelationTarget    string            `json:"relationTarget"`
		DataSourceID      string            `json:"dataSourceId"`
		RowParent         map[string]string `json:"rowParent"`
		SortedNames       []string          `json:"sortedNames"`
		Trashed           bool              `json:"trashed"`
		AfterTrash        int               `json:"afterTrash"`
		SecondParent      map[string]string `json:"secondParent"`
		FoundObjects      []string          `json:"foundObjects"`
		Appended          int               `json:"appended"`
		DataSourcesAfter  int               `json:"dataSourcesAfter"`
	}
	f.runScript(t, "sdk5.mjs", "dataSources", nil, &got)
	if got.DataSourceCount != 1 || got.HasProperties {
		t.Errorf("a new database: %d data sources, properties shown %v; want 1 and none (2025-09-03)", got.DataSourceCount, got.HasProperties)
	}
	if !slices.Equal(got.SourceProperties, []string{"Name", "Order", "Secret"}) {
		t.Errorf("data source properties %v", got.SourceProperties)
	}
	if !slices.Contains(got.UpdatedProperties, "Done") || got.RelationTarget != got.DataSourceID {
		t.Errorf("after update: %v, relation to %q (want %q)", got.UpdatedProperties, got.RelationTarget, got.DataSourceID)
	}
	if got.RowParent["type"] != "data_source_id" || got.RowParent["data_source_id"] != got.DataSourceID || got.RowParent["database_id"] == "" {
		t.Errorf("row parent %v", got.RowParent)
	}
	if !slices.Equal(got.SortedNames, []string{"first", "second"}) {
		t.Errorf("sorted query %v", got.SortedNames)
	}
	if !got.Trashed || got.AfterTrash != 1 {
		t.Errorf("in_trash: %v, rows after %d; want true and 1", got.Trashed, got.AfterTrash)
	}
	if got.SecondParent["type"] != "database_id" || got.DataSourcesAfter != 2 {
		t.Errorf("second data source parent %v, database lists %d", got.SecondParent, got.DataSourcesAfter)
	}
	if !slices.Equal(got.FoundObjects, []string{"data_source"}) || got.Appended != 1 {
		t.Errorf("search found %v, appended %d", got.FoundObjects, got.Appended)
	}
}

func TestSDK5Views(t *testing.T) {
	f := newFixture(t, notion.Config{})
	var got struct {
		Listed    []string         `json:"listed"`
		CreatedID string           `json:"createdId"`
		Sorts     []map[string]any `json:"sorts"`
		Hidden    []string         `json:"hidden"`
		Renamed   string           `json:"renamed"`
		BadSort   *sdk5Error       `json:"badSort"`
		Deleted   string           `json:"deleted"`
		Left      int              `json:"left"`
	}
	f.runScript(t, "sdk5.mjs", "views", nil, &got)
	if len(got.Listed) != 2 || got.Listed[0] != got.CreatedID {
		t.Errorf("views %v, want the new one first of 2 (position start, beside the default view)", got.Listed)
	}
	if len(got.Sorts) != 1 || got.Sorts[0]["property"] != "Order" || !slices.Equal(got.Hidden, []string{"Secret"}) {
		t.Errorf("view sorts %v, hidden %v", got.Sorts, got.Hidden)
	}
	if got.Renamed != "By order" || got.Deleted != got.CreatedID || got.Left != 1 {
		t.Errorf("renamed %q, deleted %q, left %d", got.Renamed, got.Deleted, got.Left)
	}
	if got.BadSort == nil || !got.BadSort.APIResponseError || got.BadSort.Status != 400 || got.BadSort.Code != "validation_error" {
		t.Errorf("a sort on a missing property: %+v, want the SDK's 400 validation_error", got.BadSort)
	}
}

func TestSDK5Version20260311(t *testing.T) {
	f := newFixture(t, notion.Config{})
	var got struct {
		Appended         int        `json:"appended"`
		Order            []string   `json:"order"`
		Archived         *sdk5Error `json:"archived"`
		After            *sdk5Error `json:"after"`
		Trashed          bool       `json:"trashed"`
		HasArchivedField bool       `json:"hasArchivedField"`
	}
	f.runScript(t, "sdk5.mjs", "version20260311", nil, &got)
	if got.Appended != 1 || !slices.Equal(got.Order, []string{"first", "second"}) {
		t.Errorf("position start: appended %d, order %v", got.Appended, got.Order)
	}
	for name, e := range map[string]*sdk5Error{"archived": got.Archived, "after": got.After} {
		if e == nil || e.Status != 400 || e.Code != "validation_error" || !strings.Contains(e.Message, name) {
			t.Errorf("%s on 2026-03-11: %+v, want 400 validation_error naming it", name, e)
		}
	}
	if !got.Trashed || got.HasArchivedField {
		t.Errorf("in_trash %v, archived field present %v; want true and absent", got.Trashed, got.HasArchivedField)
	}
}
