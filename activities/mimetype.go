package activities

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
)

// sniffBytes is how much of a staged resource is read to tell its type:
// enough for net/http's sniffer (512 bytes) and for the first entries of
// an Office file's zip directory.
const sniffBytes = 4096

// octetStream is the type that says nothing: what Graph answers for every
// resource download (graph-reality.md #15).
const octetStream = "application/octet-stream"

// resourceType decides a resource's MIME type, the one place that does.
// Graph's download header is never used: it says application/octet-stream
// for every file. The type the page HTML declares comes first
// (data-fullres-src-type, data-src-type, an object's type: convert puts it
// in blocks.Resource.MIME); failing that, the resource's first bytes
// (a small table of document signatures, then net/http.DetectContentType);
// failing that, the extension of its file name; failing that,
// application/octet-stream.
func resourceType(declared, name string, head []byte) string {
	if t := baseType(declared); t != "" && t != octetStream {
		return t
	}
	sniffed := sniff(head)
	if sniffed != "" && sniffed != octetStream && sniffed != "application/zip" && sniffed != "text/plain" {
		return sniffed
	}
	// A zip or text file is often better named by its extension (.docx,
	// .csv), which the Notion upload must agree with.
	if t := byExtension(name); t != "" {
		return t
	}
	if sniffed != "" {
		return sniffed
	}
	return octetStream
}

// baseType is a MIME type without parameters, lower case, or "".
func baseType(t string) string {
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		return mt
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// signatures are file types net/http does not sniff, or sniffs only as
// a zip, by their leading bytes.
var signatures = []struct {
	prefix []byte
	// inZip, when set, must appear among a zip's first entries.
	inZip string
	typ   string
}{
	{[]byte("%PDF-"), "", "application/pdf"},
	{[]byte("PK\x03\x04"), "word/", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	{[]byte("PK\x03\x04"), "xl/", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	{[]byte("PK\x03\x04"), "ppt/", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	{[]byte("\x00\x00\x01\x00"), "", "image/vnd.microsoft.icon"},
	{[]byte("II*\x00"), "", "image/tiff"},
	{[]byte("MM\x00*"), "", "image/tiff"},
}

// sniff tells a type from the leading bytes, or "" when there are none.
func sniff(head []byte) string {
	if len(head) == 0 {
		return ""
	}
	for _, s := range signatures {
		if bytes.HasPrefix(head, s.prefix) && (s.inZip == "" || bytes.Contains(head, []byte(s.inZip))) {
			return s.typ
		}
	}
	t := baseType(http.DetectContentType(head))
	switch t {
	case "audio/wave":
		return "audio/wav"
	case "video/avi":
		return "video/x-msvideo"
	}
	return t
}

// extensionTypes are the types of file extensions OneNote attachments
// commonly have; mime.TypeByExtension covers the rest.
var extensionTypes = map[string]string{
	".doc":  "application/msword",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xls":  "application/vnd.ms-excel",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".ppt":  "application/vnd.ms-powerpoint",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".pdf":  "application/pdf",
	".txt":  "text/plain",
	".json": "application/json",
	".mp3":  "audio/mpeg",
	".m4a":  "audio/mp4",
	".wav":  "audio/wav",
	".mp4":  "video/mp4",
	".mov":  "video/quicktime",
}

func byExtension(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if ext == "" {
		return ""
	}
	if t, ok := extensionTypes[ext]; ok {
		return t
	}
	return baseType(mime.TypeByExtension(ext))
}

// readHead reads up to sniffBytes from the start of r, which must then be
// read from the start again (the caller seeks).
func readHead(r io.Reader) []byte {
	head := make([]byte, sniffBytes)
	n, _ := io.ReadFull(r, head)
	return head[:n]
}
