package graph

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
)

// serveResource answers /resources/{id}/$value and /resources/{id}/content
// with deterministic bytes of the resource's size, always as
// application/octet-stream whatever the file is (reference fact 15, [M8]):
// the real type is in the page HTML (data-src-type, data-fullres-src-type,
// an object's type). A resource of a page in a locked section answers 403
// with code 20185; another user's resource is not found.
func (s *Server) serveResource(ar *apiRequest, id string) response {
	ref, ok := ar.owner.resources[id]
	if !ok || (ref.page != nil && ref.page.page.deleted) {
		// Another user's resource, a removed one, or one of a deleted page.
		return s.notFound(ar)
	}
	if ref.page != nil && ref.page.section.section.PasswordProtected {
		return s.locked(ar)
	}
	body := resourceBytes(ref.res)
	h := http.Header{"Content-Type": {"application/octet-stream"}}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return response{status: http.StatusOK, header: h, body: body}
}

// resourceBytes returns the body of r: a valid PNG (padded with an
// ancillary chunk up to Size) for image types, a PDF-looking file for PDFs,
// and seeded bytes otherwise. The same resource always gives the same bytes.
func resourceBytes(r Resource) []byte {
	rng := rand.New(rand.NewPCG(seedOf("resource", r.ID), 1))
	switch {
	case strings.HasPrefix(r.ContentType, "image/"):
		return paddedPNG(rng, r.Size)
	case r.ContentType == "application/pdf":
		head := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
		tail := []byte("\n%%EOF\n")
		return append(append(head, fill(rng, r.Size-len(head)-len(tail))...), tail...)
	}
	return fill(rng, r.Size)
}

func fill(rng *rand.Rand, n int) []byte {
	b := make([]byte, max(n, 0))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// paddedPNG encodes a small image and inserts an ancillary "npAd" chunk
// before IEND so the file is size bytes long (or the minimum).
func paddedPNG(rng *rand.Rand, size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	c := color.RGBA{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32()), 255}
	for y := range 16 {
		for x := range 16 {
			if (x/4+y/4)%2 == 0 {
				img.Set(x, y, c)
			}
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	b := buf.Bytes()
	const iend = 12 // length, type, CRC of the empty IEND chunk
	pad := size - len(b) - 12
	if pad < 0 {
		return b
	}
	chunk := make([]byte, 0, pad+12)
	chunk = binary.BigEndian.AppendUint32(chunk, uint32(pad))
	chunk = append(chunk, "npAd"...)
	chunk = append(chunk, fill(rng, pad)...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	out := make([]byte, 0, size)
	out = append(out, b[:len(b)-iend]...)
	out = append(out, chunk...)
	return append(out, b[len(b)-iend:]...)
}
