package onestore

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
)

// GUID is a GUID as [MS-DTYP] 2.3.4.2 lays it out: the first three fields
// little-endian, the last eight bytes in order.
type GUID [16]byte

// String formats g in registry form, upper case, with braces:
// {7B5C52E4-D88C-4DA7-AEB1-5378D02996D3}.
func (g GUID) String() string {
	return fmt.Sprintf("{%08X-%04X-%04X-%04X-%012X}",
		binary.LittleEndian.Uint32(g[0:4]), binary.LittleEndian.Uint16(g[4:6]),
		binary.LittleEndian.Uint16(g[6:8]), g[8:10], g[10:16])
}

// IsZero reports whether g is all zeros.
func (g GUID) IsZero() bool { return g == GUID{} }

// ParseGUID parses the registry form, with or without braces, in any case.
func ParseGUID(s string) (GUID, error) {
	var g GUID
	h := strings.ToLower(strings.Trim(s, "{}"))
	if len(h) != 36 || h[8] != '-' || h[13] != '-' || h[18] != '-' || h[23] != '-' {
		return g, fmt.Errorf("onestore: %q is not a GUID", s)
	}
	h = strings.ReplaceAll(h, "-", "")
	var raw [16]byte
	for i := range 16 {
		hi, ok1 := unhex(h[2*i])
		lo, ok2 := unhex(h[2*i+1])
		if !ok1 || !ok2 {
			return g, fmt.Errorf("onestore: %q is not a GUID", s)
		}
		raw[i] = hi<<4 | lo
	}
	// raw holds the text order; the first three fields are stored little-endian.
	g = GUID{raw[3], raw[2], raw[1], raw[0], raw[5], raw[4], raw[7], raw[6]}
	copy(g[8:], raw[8:])
	return g, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func mustGUID(s string) GUID {
	g, err := ParseGUID(s)
	if err != nil {
		panic(err) // only called on constants in this package
	}
	return g
}

// ExtendedGUID is a GUID with a number, [MS-ONESTORE] 2.2.1; it names
// object spaces, revisions, contexts and objects.
type ExtendedGUID struct {
	GUID GUID
	N    uint32
}

// IsZero reports whether e is the nil ExtendedGUID.
func (e ExtendedGUID) IsZero() bool { return e.GUID.IsZero() && e.N == 0 }

// String formats e as GUID/N.
func (e ExtendedGUID) String() string { return fmt.Sprintf("%s/%d", e.GUID, e.N) }

// buf decodes little-endian fields from a byte slice read from the file.
// The first failure is sticky: later reads return zeros, and err says
// which structure ran out of bytes at what file offset. It never panics.
type buf struct {
	b         []byte
	pos       int
	base      int64  // file offset of b[0]
	structure string // for errors
	err       error
}

func newBuf(b []byte, base int64, structure string) *buf {
	return &buf{b: b, base: base, structure: structure}
}

func (d *buf) off() int64 { return d.base + int64(d.pos) }

func (d *buf) remaining() int { return len(d.b) - d.pos }

func (d *buf) fail(expected string) {
	if d.err == nil {
		d.err = formatErr(d.structure, d.off(), expected)
	}
}

func (d *buf) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > d.remaining() {
		d.fail(fmt.Sprintf("%d more bytes, found %d", n, max(d.remaining(), 0)))
		return nil
	}
	p := d.b[d.pos : d.pos+n]
	d.pos += n
	return p
}

func (d *buf) u8() uint8 {
	if p := d.bytes(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *buf) u16() uint16 {
	if p := d.bytes(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *buf) u32() uint32 {
	if p := d.bytes(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *buf) u64() uint64 {
	if p := d.bytes(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *buf) guid() GUID {
	var g GUID
	copy(g[:], d.bytes(16))
	return g
}

func (d *buf) exGUID() ExtendedGUID {
	g := d.guid()
	return ExtendedGUID{GUID: g, N: d.u32()}
}

// utf16String decodes little-endian UTF-16, dropping a trailing NUL.
func utf16String(p []byte) string {
	u := make([]uint16, len(p)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(p[2*i:])
	}
	for len(u) > 0 && u[len(u)-1] == 0 {
		u = u[:len(u)-1]
	}
	return string(utf16.Decode(u))
}

// file is the lazily read file: every read is checked against size first,
// so no length field read from the file can make it allocate more than
// the file holds.
type file struct {
	r    io.ReaderAt
	size int64
}

// read returns n bytes at off, or a FormatError naming structure when the
// range is not inside the file.
func (f *file) read(off, n int64, structure string) ([]byte, error) {
	if off < 0 || n < 0 || off > f.size || n > f.size-off {
		return nil, formatErr(structure, off, fmt.Sprintf("%d bytes inside the file of %d bytes", n, f.size))
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(io.NewSectionReader(f.r, off, n), p); err != nil {
		return nil, &FormatError{Structure: structure, Offset: off, Expected: fmt.Sprintf("%d readable bytes", n), Err: err}
	}
	return p, nil
}
