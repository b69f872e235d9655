package blocks

import (
	"encoding/json"
	"fmt"
)

// The JSON forms below mirror the Notion API's request and response shapes.

type jsonTextBody struct {
	RichText     []RichText `json:"rich_text"`
	Color        string     `json:"color,omitempty"`
	Checked      *bool      `json:"checked,omitempty"`
	Icon         *jsonIcon  `json:"icon,omitempty"`
	IsToggleable bool       `json:"is_toggleable,omitempty"`
	Language     string     `json:"language,omitempty"`
	Caption      []RichText `json:"caption,omitempty"`
	Children     []Block    `json:"children,omitempty"`
}

type jsonIcon struct {
	Type  string `json:"type"`
	Emoji string `json:"emoji,omitempty"`
}

type jsonEquationBody struct {
	Expression string `json:"expression"`
}

type jsonTableBody struct {
	TableWidth      int     `json:"table_width"`
	HasColumnHeader bool    `json:"has_column_header"`
	HasRowHeader    bool    `json:"has_row_header"`
	Children        []Block `json:"children,omitempty"`
}

type jsonTableRowBody struct {
	Cells [][]RichText `json:"cells"`
}

type jsonURL struct {
	URL string `json:"url"`
}

type jsonID struct {
	ID string `json:"id"`
}

type jsonMediaBody struct {
	Type       string     `json:"type,omitempty"`
	External   *jsonURL   `json:"external,omitempty"`
	File       *jsonURL   `json:"file,omitempty"`
	FileUpload *jsonID    `json:"file_upload,omitempty"`
	URL        string     `json:"url,omitempty"`
	Name       string     `json:"name,omitempty"`
	Caption    []RichText `json:"caption,omitempty"`
}

func isTextType(t Type) bool {
	switch t {
	case Paragraph, Heading1, Heading2, Heading3, BulletedListItem, NumberedListItem,
		ToDo, Toggle, Callout, Quote, Code:
		return true
	}
	return false
}

func isHeading(t Type) bool { return t == Heading1 || t == Heading2 || t == Heading3 }

// MarshalJSON writes the block in the Notion API's request shape.
func (b Block) MarshalJSON() ([]byte, error) {
	var body any
	switch {
	case isTextType(b.Type):
		tb := jsonTextBody{RichText: nonNil(b.RichText), Color: b.Color, Children: b.Children}
		switch b.Type {
		case ToDo:
			checked := b.Checked
			tb.Checked = &checked
		case Callout:
			if b.Icon != "" {
				tb.Icon = &jsonIcon{Type: "emoji", Emoji: b.Icon}
			}
		case Code:
			tb.Language = b.Language
			if tb.Language == "" {
				tb.Language = "plain text"
			}
			tb.Caption = b.Caption
			tb.Color = ""
		}
		if isHeading(b.Type) && len(b.Children) > 0 {
			tb.IsToggleable = true
		}
		body = tb
	case b.Type == Equation:
		body = jsonEquationBody{Expression: b.Expression}
	case b.Type == Divider:
		body = struct{}{}
	case b.Type == Table:
		body = jsonTableBody{TableWidth: b.TableWidth, HasColumnHeader: b.HasColumnHeader,
			HasRowHeader: b.HasRowHeader, Children: b.Children}
	case b.Type == TableRow:
		cells := make([][]RichText, len(b.Cells))
		for i, c := range b.Cells {
			cells[i] = nonNil(c)
		}
		body = jsonTableRowBody{Cells: cells}
	case b.Type == Embed || b.Type == Bookmark:
		if b.Media == nil {
			return nil, fmt.Errorf("blocks: %s block has no URL", b.Type)
		}
		body = jsonMediaBody{URL: b.Media.URL, Caption: b.Caption}
	case b.Type == Image || b.Type == File || b.Type == PDF || b.Type == Video || b.Type == Audio:
		mb, err := mediaBody(b)
		if err != nil {
			return nil, err
		}
		body = mb
	default:
		return nil, fmt.Errorf("blocks: unknown block type %q", b.Type)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"object": "block", "type": b.Type, string(b.Type): json.RawMessage(raw)}
	if b.ID != "" {
		out["id"] = b.ID
	}
	return json.Marshal(out)
}

func mediaBody(b Block) (jsonMediaBody, error) {
	m := b.Media
	if m == nil {
		return jsonMediaBody{}, fmt.Errorf("blocks: %s block has no media", b.Type)
	}
	mb := jsonMediaBody{Caption: b.Caption}
	if b.Type == File {
		mb.Name = m.Name
	}
	switch {
	case m.FileUploadID != "":
		mb.Type, mb.FileUpload = "file_upload", &jsonID{ID: m.FileUploadID}
	case m.URL != "":
		mb.Type, mb.External = "external", &jsonURL{URL: m.URL}
	case m.HostedURL != "":
		mb.Type, mb.File = "file", &jsonURL{URL: m.HostedURL}
	case m.Resource != nil:
		return jsonMediaBody{}, fmt.Errorf("blocks: %s block still refers to OneNote resource %s: upload it first", b.Type, m.Resource.ID)
	default:
		return jsonMediaBody{}, fmt.Errorf("blocks: %s block has no source", b.Type)
	}
	return mb, nil
}

// UnmarshalJSON reads a block in the Notion API's shape (a request body, a
// response, or the Notion emulator's export).
func (b *Block) UnmarshalJSON(data []byte) error {
	var head struct {
		ID   string `json:"id"`
		Type Type   `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	raw := fields[string(head.Type)]
	*b = Block{ID: head.ID, Type: head.Type}
	if len(raw) == 0 {
		return fmt.Errorf("blocks: block of type %q has no %q object", head.Type, head.Type)
	}
	switch {
	case isTextType(head.Type):
		var tb jsonTextBody
		if err := json.Unmarshal(raw, &tb); err != nil {
			return fmt.Errorf("blocks: %s: %w", head.Type, err)
		}
		b.RichText, b.Color, b.Children, b.Language, b.Caption = tb.RichText, tb.Color, tb.Children, tb.Language, tb.Caption
		if tb.Checked != nil {
			b.Checked = *tb.Checked
		}
		if tb.Icon != nil {
			b.Icon = tb.Icon.Emoji
		}
	case head.Type == Equation:
		var eb jsonEquationBody
		if err := json.Unmarshal(raw, &eb); err != nil {
			return fmt.Errorf("blocks: equation: %w", err)
		}
		b.Expression = eb.Expression
	case head.Type == Divider:
	case head.Type == Table:
		var tb jsonTableBody
		if err := json.Unmarshal(raw, &tb); err != nil {
			return fmt.Errorf("blocks: table: %w", err)
		}
		b.TableWidth, b.HasColumnHeader, b.HasRowHeader, b.Children = tb.TableWidth, tb.HasColumnHeader, tb.HasRowHeader, tb.Children
	case head.Type == TableRow:
		var rb jsonTableRowBody
		if err := json.Unmarshal(raw, &rb); err != nil {
			return fmt.Errorf("blocks: table_row: %w", err)
		}
		b.Cells = rb.Cells
	case head.Type == Embed || head.Type == Bookmark || head.Type == Image || head.Type == File ||
		head.Type == PDF || head.Type == Video || head.Type == Audio:
		var mb jsonMediaBody
		if err := json.Unmarshal(raw, &mb); err != nil {
			return fmt.Errorf("blocks: %s: %w", head.Type, err)
		}
		m := &Media{URL: mb.URL, Name: mb.Name}
		switch {
		case mb.FileUpload != nil:
			m.FileUploadID = mb.FileUpload.ID
		case mb.External != nil:
			m.URL = mb.External.URL
		case mb.File != nil:
			m.HostedURL = mb.File.URL
		}
		b.Media, b.Caption = m, mb.Caption
	default:
		return fmt.Errorf("blocks: unknown block type %q", head.Type)
	}
	return nil
}

type jsonRichText struct {
	Type        string           `json:"type"`
	Text        *jsonText        `json:"text,omitempty"`
	Mention     *jsonMention     `json:"mention,omitempty"`
	Equation    *jsonEquationRT  `json:"equation,omitempty"`
	Annotations *jsonAnnotations `json:"annotations,omitempty"`
	PlainText   string           `json:"plain_text,omitempty"`
	Href        string           `json:"href,omitempty"`
}

type jsonText struct {
	Content string   `json:"content"`
	Link    *jsonURL `json:"link,omitempty"`
}

type jsonMention struct {
	Type string  `json:"type"`
	Page *jsonID `json:"page,omitempty"`
}

type jsonEquationRT struct {
	Expression string `json:"expression"`
}

type jsonAnnotations struct {
	Bold          bool   `json:"bold"`
	Italic        bool   `json:"italic"`
	Strikethrough bool   `json:"strikethrough"`
	Underline     bool   `json:"underline"`
	Code          bool   `json:"code"`
	Color         string `json:"color"`
}

// MarshalJSON writes the run in the Notion API's rich-text request shape.
// PageRef is not part of Notion's shape. A Link that LinkAllowed refuses
// (an onenote: link a run with a PageRef keeps, for one) is not written:
// the run goes out as plain text, so that one bad link never fails a
// whole request.
func (r RichText) MarshalJSON() ([]byte, error) {
	j := jsonRichText{}
	switch {
	case r.Equation != "":
		j.Type, j.Equation = "equation", &jsonEquationRT{Expression: r.Equation}
	case r.Mention != "":
		j.Type, j.Mention = "mention", &jsonMention{Type: "page", Page: &jsonID{ID: r.Mention}}
	default:
		j.Type, j.Text = "text", &jsonText{Content: r.Text}
		if r.Link != "" && LinkAllowed(r.Link) {
			j.Text.Link = &jsonURL{URL: r.Link}
		}
	}
	if r.Annotations != (Annotations{}) {
		a := r.Annotations
		color := a.Color
		if color == "" {
			color = "default"
		}
		j.Annotations = &jsonAnnotations{Bold: a.Bold, Italic: a.Italic, Strikethrough: a.Strikethrough,
			Underline: a.Underline, Code: a.Code, Color: color}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a rich-text item in the Notion API's shape.
func (r *RichText) UnmarshalJSON(data []byte) error {
	var j jsonRichText
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*r = RichText{}
	switch j.Type {
	case "equation":
		if j.Equation != nil {
			r.Equation = j.Equation.Expression
		}
	case "mention":
		r.Text = j.PlainText
		if j.Mention != nil && j.Mention.Page != nil {
			r.Mention = j.Mention.Page.ID
		}
	case "text", "":
		if j.Text != nil {
			r.Text = j.Text.Content
			if j.Text.Link != nil {
				r.Link = j.Text.Link.URL
			}
		}
	default:
		return fmt.Errorf("blocks: unknown rich text type %q", j.Type)
	}
	if j.Annotations != nil {
		a := *j.Annotations
		if a.Color == "default" {
			a.Color = ""
		}
		r.Annotations = Annotations(a)
	}
	return nil
}

func nonNil(rt []RichText) []RichText {
	if rt == nil {
		return []RichText{}
	}
	return rt
}
