package onenote

import (
	"fmt"
	"strings"
	"testing"
)

// shape renders a tree as "a(b(c),d),e".
func shape(nodes []*PageNode) string {
	var parts []string
	for _, n := range nodes {
		s := n.Page.ID
		if len(n.Children) > 0 {
			s += "(" + shape(n.Children) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

func TestBuildPageTree(t *testing.T) {
	type pl struct {
		id           string
		level, order int
	}
	tests := []struct {
		name  string
		pages []pl
		want  string
	}{
		{"empty", nil, ""},
		{"flat", []pl{{"a", 0, 0}, {"b", 0, 1}}, "a,b"},
		{"two levels", []pl{{"a", 0, 0}, {"b", 1, 1}, {"c", 2, 2}, {"d", 1, 3}, {"e", 0, 4}}, "a(b(c),d),e"},
		{"unsorted input", []pl{{"e", 0, 4}, {"c", 2, 2}, {"a", 0, 0}, {"d", 1, 3}, {"b", 1, 1}}, "a(b(c),d),e"},
		{"subpage first is a root", []pl{{"a", 1, 0}, {"b", 0, 1}, {"c", 1, 2}}, "a,b(c)"},
		{"level jump", []pl{{"a", 0, 0}, {"b", 2, 1}, {"c", 1, 2}}, "a(b,c)"},
		{"deep then back", []pl{{"a", 0, 0}, {"b", 1, 1}, {"c", 2, 2}, {"d", 2, 3}, {"e", 1, 4}}, "a(b(c,d),e)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pages []Page
			for _, p := range tt.pages {
				pages = append(pages, Page{ID: p.id, Level: p.level, Order: p.order})
			}
			before := fmt.Sprint(pages)
			if got := shape(BuildPageTree(pages)); got != tt.want {
				t.Errorf("tree = %q, want %q", got, tt.want)
			}
			if fmt.Sprint(pages) != before {
				t.Error("BuildPageTree modified its input")
			}
		})
	}
}

func TestPageIDFromClientURL(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"onenote:https://d.docs.live.net/abc/Documents/NB/Sec.one#Title&section-id={8C2F3A1E-1111-2222-3333-444455556666}&page-id={B7B1D2C3-AAAA-BBBB-CCCC-DDDDEEEEFFFF}&end",
			"B7B1D2C3-AAAA-BBBB-CCCC-DDDDEEEEFFFF", true},
		{"onenote:https://x/S.one#T&section-id=%7Bs%7D&page-id=%7B0f0f0f0f-1234-5678-9abc-def012345678%7D&end",
			"0f0f0f0f-1234-5678-9abc-def012345678", true},
		{"onenote:https://x/S.one#T&Page-ID={abc}", "abc", true},
		{"onenote:https://x/S.one#T&page-id=abc#frag", "abc", true},
		{"onenote:https://x/S.one#T&section-id={s}&end", "", false},
		{"onenote:https://x/S.one#T&page-id={}&end", "", false},
		{"", "", false},
		{"%zz page-id={x}", "x", true},
	}
	for _, tt := range tests {
		got, ok := PageIDFromClientURL(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PageIDFromClientURL(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSectionIDFromClientURL(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		// A section's own link (graph-reality.md; the emulator's form).
		{"onenote:https://d.docs.live.net/abc/Documents/NB/Sec.one#section-id={8C2F3A1E-1111-2222-3333-444455556666}&end",
			"8C2F3A1E-1111-2222-3333-444455556666", true},
		// A page's link carries its section's GUID before its own.
		{"onenote:https://x/S.one#T&section-id=%7Bf5010000-0000-0000-0000-000000000000%7D&page-id={p}&end",
			"f5010000-0000-0000-0000-000000000000", true},
		{"onenote:https://x/S.one#T&page-id={p}&end", "", false},
		{"onenote:https://x/S.one#section-id={}&end", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := SectionIDFromClientURL(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("SectionIDFromClientURL(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
