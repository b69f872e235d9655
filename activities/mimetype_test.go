package activities

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestResourceType: the type comes from the page HTML, else from the
// bytes, else from the name; never from Graph's header, which is
// application/octet-stream for every file.
func TestResourceType(t *testing.T) {
	docx := append([]byte("PK\x03\x04\x14\x00\x06\x00"), []byte("....[Content_Types].xml....word/document.xml")...)
	xlsx := append([]byte("PK\x03\x04\x14\x00\x06\x00"), []byte("....[Content_Types].xml....xl/workbook.xml")...)
	zip := []byte("PK\x03\x04\x14\x00\x00\x00....notes.txt")
	tests := []struct {
		name, declared, file string
		head                 []byte
		want                 string
	}{
		{"declared by data-src-type", "image/jpeg", "r1", pngBytes(t), "image/jpeg"},
		{"declared with parameters", "Application/PDF; name=x.pdf", "", nil, "application/pdf"},
		{"declared octet-stream is no type", "application/octet-stream", "r1", pngBytes(t), "image/png"},
		{"png bytes", "", "r1", pngBytes(t), "image/png"},
		{"pdf bytes", "", "r2", []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n..."), "application/pdf"},
		{"docx bytes", "", "r3", docx, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"xlsx bytes", "", "Budget.xlsx", xlsx, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{"zip named .pptx", "", "Deck.pptx", zip, "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
		{"plain zip", "", "archive", zip, "application/zip"},
		{"gif bytes", "", "", []byte("GIF89a\x01\x00\x01\x00"), "image/gif"},
		{"text named .json", "", "data.json", []byte(`{"a":1}`), "application/json"},
		{"text", "", "notes", []byte("hello, world"), "text/plain"},
		{"legacy .doc by name", "", "Letter.doc", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), "application/msword"},
		{"nothing known", "", "blob", []byte{0x00, 0x01, 0x02, 0x03, 0xfe}, "application/octet-stream"},
		{"empty file, no name", "", "", nil, "application/octet-stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resourceType(tt.declared, tt.file, tt.head); got != tt.want {
				t.Errorf("resourceType(%q, %q, %.12q) = %q, want %q", tt.declared, tt.file, tt.head, got, tt.want)
			}
		})
	}
}
