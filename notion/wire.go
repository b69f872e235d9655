package notion

import (
	"encoding/json"
	"time"

	"github.com/notebridge/notebridge/notion/blocks"
)

// The JSON shapes below are the subset of Notion's 2026-03-11 objects the
// writer reads. Request bodies are built as maps where Notion's shape is
// a union (properties), so that only what is meant is sent.

// listResponse is a page of a paginated list.
type listResponse struct {
	Results    []json.RawMessage `json:"results"`
	HasMore    bool              `json:"has_more"`
	NextCursor *string           `json:"next_cursor"`
}

// childBlock is a block as a children listing returns it, reduced to what
// the writer needs to find, count and delete children.
type childBlock struct {
	ID            string `json:"id"`
	Type          string `json:"type"`
	HasChildren   bool   `json:"has_children"`
	Archived      bool   `json:"archived"`
	InTrash       bool   `json:"in_trash"`
	ChildPage     *title `json:"child_page,omitempty"`
	ChildDatabase *title `json:"child_database,omitempty"`
	// Paragraph and Code hold those blocks' text: Note Bridge's stamp
	// and record on a container page (see identity.go).
	Paragraph *textBlock `json:"paragraph,omitempty"`
	Code      *textBlock `json:"code,omitempty"`
}

// textBlock is the text of a paragraph or code block.
type textBlock struct {
	RichText []blocks.RichText `json:"rich_text"`
}

type title struct {
	Title string `json:"title"`
}

// pageObject is a page (or a database row) as Notion returns it.
type pageObject struct {
	ID          string                   `json:"id"`
	CreatedTime time.Time                `json:"created_time"`
	Archived    bool                     `json:"archived"`
	InTrash     bool                     `json:"in_trash"`
	Properties  map[string]propertyValue `json:"properties"`
	Parent      struct {
		DatabaseID   string `json:"database_id"`
		DataSourceID string `json:"data_source_id"`
		PageID       string `json:"page_id"`
	} `json:"parent"`
}

// propertyValue is a page property value of the types the writer uses.
type propertyValue struct {
	Type     string            `json:"type"`
	Title    []blocks.RichText `json:"title,omitempty"`
	RichText []blocks.RichText `json:"rich_text,omitempty"`
	Date     *struct {
		Start string `json:"start"`
	} `json:"date,omitempty"`
	URL    *string `json:"url,omitempty"`
	Select *struct {
		Name string `json:"name"`
	} `json:"select,omitempty"`
	Relation []struct {
		ID string `json:"id"`
	} `json:"relation,omitempty"`
	Checkbox *bool    `json:"checkbox,omitempty"`
	Number   *float64 `json:"number,omitempty"`
}

// databaseObject is a database as Notion returns it.
type databaseObject struct {
	ID          string            `json:"id"`
	Title       []blocks.RichText `json:"title"`
	Description []blocks.RichText `json:"description"`
	Archived    bool              `json:"archived"`
	InTrash     bool              `json:"in_trash"`
	Parent      struct {
		PageID string `json:"page_id"`
	} `json:"parent"`
	DataSources []dataSourceRef `json:"data_sources"`
}

// schemaProperty is one property of a database's schema.
type schemaProperty struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Relation *struct {
		DatabaseID   string `json:"database_id"`
		DataSourceID string `json:"data_source_id"`
	} `json:"relation,omitempty"`
	Select *struct {
		Options []struct {
			Name string `json:"name"`
		} `json:"options"`
	} `json:"select,omitempty"`
}

// fileUpload is a File Upload object.
type fileUpload struct {
	ID            string     `json:"id"`
	Status        string     `json:"status"` // pending, uploaded, expired, failed
	ExpiryTime    *time.Time `json:"expiry_time"`
	Filename      string     `json:"filename"`
	ContentType   string     `json:"content_type"`
	NumberOfParts *struct {
		Total int `json:"total"`
		Sent  int `json:"sent"`
	} `json:"number_of_parts,omitempty"`
}

// text is a rich-text array holding s, split into items of at most
// blocks.MaxTextLen UTF-16 units.
func text(s string) []blocks.RichText {
	out := []blocks.RichText{}
	for _, part := range blocks.SplitUTF16(s, blocks.MaxTextLen) {
		out = append(out, blocks.RichText{Text: part})
	}
	return out
}
