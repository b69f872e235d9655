package convert

import (
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
)

// noteTag is one entry of a data-tag attribute: a shape and whether its
// check box is ticked.
type noteTag struct {
	shape     string
	completed bool
}

// parseTags reads a data-tag value: a comma-separated list of
// shape[:status] entries.
func parseTags(v string) []noteTag {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var tags []noteTag
	for entry := range strings.SplitSeq(v, ",") {
		shape, status, _ := strings.Cut(strings.TrimSpace(entry), ":")
		shape = strings.ToLower(strings.TrimSpace(shape))
		if shape == "" {
			continue
		}
		tags = append(tags, noteTag{shape: shape, completed: strings.EqualFold(strings.TrimSpace(status), "completed")})
	}
	return tags
}

// checkBoxShapes are the tag shapes OneNote draws as a check box.
var checkBoxShapes = map[string]bool{
	"to-do": true, "to-do-priority-1": true, "to-do-priority-2": true,
	"discuss-with-person-a": true, "discuss-with-person-b": true, "discuss-with-manager": true,
	"schedule-meeting": true, "call-back": true, "client-request": true,
}

// tagEmojis gives each OneNote tag shape the emoji that stands for it in
// Notion: a callout's icon, or a marker in front of a block's text. Every
// shape has its own emoji so that the shape can be read back.
var tagEmojis = map[string]string{
	"to-do":                 "☑️",
	"to-do-priority-1":      "1️⃣",
	"to-do-priority-2":      "2️⃣",
	"discuss-with-person-a": "🗣️",
	"discuss-with-person-b": "💬",
	"discuss-with-manager":  "👔",
	"schedule-meeting":      "📅",
	"call-back":             "📲",
	"client-request":        "🤝",
	"important":             "⭐",
	"question":              "❓",
	"definition":            "📖",
	"remember-for-later":    "🔖",
	"highlight":             "🖍️",
	"contact":               "👤",
	"address":               "🏠",
	"phone-number":          "📞",
	"web-site-to-visit":     "🌐",
	"idea":                  "💡",
	"password":              "🔑",
	"critical":              "❗",
	"project-a":             "🅰️",
	"project-b":             "🅱️",
	"movie-to-see":          "🎬",
	"book-to-read":          "📚",
	"music-to-listen-to":    "🎵",
	"source-for-article":    "📰",
	"remember-for-blog":     "✍️",
	"send-in-email":         "📧",
}

// unknownTagEmoji stands for a tag shape OneNote does not document.
const unknownTagEmoji = "🏷️"

// tagShapesByEmoji inverts tagEmojis.
var tagShapesByEmoji = func() map[string]string {
	m := make(map[string]string, len(tagEmojis))
	for shape, e := range tagEmojis {
		m[e] = shape
	}
	return m
}()

// TagEmoji returns the emoji the converter uses for a OneNote tag shape
// (e.g. "important" → "⭐"), or "🏷️" for an unknown shape.
func TagEmoji(shape string) string {
	if e, ok := tagEmojis[shape]; ok {
		return e
	}
	return unknownTagEmoji
}

// TagShape returns the OneNote tag shape an emoji from TagEmoji stands for.
func TagShape(emoji string) (string, bool) {
	s, ok := tagShapesByEmoji[emoji]
	return s, ok
}

// tagMarker is the text of a marker run for tags: their emojis separated
// and followed by a space.
func tagMarker(tags []noteTag) string {
	var b strings.Builder
	for _, t := range tags {
		b.WriteString(TagEmoji(t.shape))
		b.WriteByte(' ')
	}
	return b.String()
}

// SplitTagMarker reads the tag marker the converter puts in front of a
// block's text (list items, headings, to-dos with other tags, callouts with
// more than one tag) or in an image's caption. It returns the tag shapes in
// source order and the rich text after the marker. A first item that is not
// entirely tag emojis is not a marker, and then shapes is nil and rest is
// rt.
func SplitTagMarker(rt []blocks.RichText) (shapes []string, rest []blocks.RichText) {
	if len(rt) == 0 || rt[0].Equation != "" || rt[0].Mention != "" || rt[0].Link != "" ||
		rt[0].Annotations != (blocks.Annotations{}) {
		return nil, rt
	}
	fields := strings.Split(strings.TrimSpace(rt[0].Text), " ")
	for _, f := range fields {
		s, ok := TagShape(f)
		if !ok {
			return nil, rt
		}
		shapes = append(shapes, s)
	}
	return shapes, rt[1:]
}

// tagRole is what kind of block a tag is on.
type tagRole int

const (
	roleParagraph tagRole = iota
	roleListItem
	roleHeading
	roleImage
)

// applyTags turns b into the block its note tags ask for and marks it with
// the tags its type does not already show:
//   - a check-box shape on a paragraph or list item makes a to_do, checked
//     when that shape is completed; a plain "to-do" needs no marker;
//   - other tags on a paragraph make a callout with the first tag's emoji
//     as icon and the rest as a marker;
//   - on list items, headings and images every tag goes into the marker
//     (for images, into the caption).
func (c *converter) applyTags(b *blocks.Block, tags []noteTag, role tagRole) {
	if len(tags) == 0 {
		return
	}
	for _, t := range tags {
		if _, ok := tagEmojis[t.shape]; !ok {
			c.losses.add(LossTag, Degraded, "unknown note tag "+quote(t.shape)+" shown as "+unknownTagEmoji, blocks.PlainText(b.RichText))
		}
	}
	var box *noteTag
	for i := range tags {
		if checkBoxShapes[tags[i].shape] {
			box = &tags[i]
			break
		}
	}
	marked := tags
	switch {
	case box != nil && (role == roleParagraph || role == roleListItem):
		b.Type, b.Checked = blocks.ToDo, box.completed
		if len(tags) == 1 && tags[0].shape == "to-do" {
			marked = nil
		}
	case role == roleParagraph:
		b.Type, b.Icon = blocks.Callout, TagEmoji(tags[0].shape)
		marked = tags[1:]
	case box != nil && box.completed:
		c.losses.add(LossTag, Degraded, "check-box tag status on a "+string(b.Type)+" not kept", blocks.PlainText(b.RichText))
	}
	if len(marked) == 0 {
		return
	}
	marker := tagMarker(marked)
	if role == roleImage {
		b.Caption = append([]blocks.RichText{{Text: strings.TrimSpace(marker)}}, b.Caption...)
		return
	}
	b.RichText = append([]blocks.RichText{{Text: marker}}, b.RichText...)
}
