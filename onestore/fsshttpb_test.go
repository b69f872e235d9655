package onestore

import "testing"

// TestCompactTruncated: a compact integer or ExtendedGUID cut short by
// the end of the stream is a FormatError, not a panic (found by
// FuzzReader in a truncated object group).
func TestCompactTruncated(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		read func(sr)
	}{
		{"compact of 3 bytes, 1 left", []byte{0x04}, func(d sr) { d.compact() }},
		{"compact of 9 bytes, 4 left", []byte{0x80, 1, 2, 3}, func(d sr) { d.compact() }},
		{"ExtendedGUID without its GUID", []byte{0x0C, 1, 2}, func(d sr) { d.exGUID() }},
		{"array longer than the stream", []byte{0x21}, func(d sr) { d.exGUIDs() }},
		{"binary longer than the stream", []byte{0x09, 1}, func(d sr) { d.binary() }},
		{"header cut short", []byte{0x02}, func(d sr) { d.header() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := sr{newBuf(tc.b, 100, structurePackaged)}
			tc.read(d)
			if _, ok := d.err.(*FormatError); !ok {
				t.Fatalf("err = %v, want a FormatError", d.err)
			}
		})
	}
}

func TestCompactValues(t *testing.T) {
	tests := []struct {
		b    []byte
		want uint64
	}{
		{[]byte{0x00}, 0},
		{[]byte{0x03}, 1},
		{[]byte{0xFF}, 127},
		{[]byte{0x02, 0x02}, 128},
		{[]byte{0x04, 0x00, 0x01}, 1 << 13},
		{[]byte{0x80, 1, 0, 0, 0, 0, 0, 0, 0}, 1},
	}
	for _, tc := range tests {
		d := sr{newBuf(tc.b, 0, structurePackaged)}
		if got := d.compact(); got != tc.want || d.err != nil || d.remaining() != 0 {
			t.Errorf("compact(% x) = %d (err %v, %d left), want %d", tc.b, got, d.err, d.remaining(), tc.want)
		}
	}
}
