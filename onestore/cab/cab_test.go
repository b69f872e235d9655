package cab

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// buildCab writes a one-folder cabinet of files, stored or MSZIP, in
// blocks of 32 KiB; test-only.
func buildCab(t testing.TB, names []string, contents [][]byte, compress uint16) []byte {
	t.Helper()
	var all []byte
	for _, c := range contents {
		all = append(all, c...)
	}
	var data bytes.Buffer
	blocks := 0
	var prev []byte
	for off := 0; off < len(all) || blocks == 0; off += 32768 {
		chunk := all[off:min(off+32768, len(all))]
		payload := chunk
		if compress == compressMSZIP {
			var z bytes.Buffer
			z.WriteString("CK")
			w, err := flate.NewWriterDict(&z, flate.BestCompression, prev)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(chunk)
			w.Close()
			payload = z.Bytes()
			prev = chunk
		}
		binary.Write(&data, binary.LittleEndian, uint32(0))
		binary.Write(&data, binary.LittleEndian, uint16(len(payload)))
		binary.Write(&data, binary.LittleEndian, uint16(len(chunk)))
		data.Write(payload)
		blocks++
		if len(all) == 0 {
			break
		}
	}
	var files bytes.Buffer
	pos := 0
	for i, n := range names {
		binary.Write(&files, binary.LittleEndian, uint32(len(contents[i])))
		binary.Write(&files, binary.LittleEndian, uint32(pos))
		binary.Write(&files, binary.LittleEndian, [4]uint16{0, 0, 0, 0})
		files.WriteString(n)
		files.WriteByte(0)
		pos += len(contents[i])
	}
	coffFiles := 36 + 8
	coffData := coffFiles + files.Len()
	var out bytes.Buffer
	out.WriteString("MSCF")
	binary.Write(&out, binary.LittleEndian, [4]uint32{0, uint32(coffData + data.Len()), 0, uint32(coffFiles)})
	binary.Write(&out, binary.LittleEndian, uint32(0))
	out.Write([]byte{3, 1})
	binary.Write(&out, binary.LittleEndian, [5]uint16{1, uint16(len(names)), 0, 0, 0})
	binary.Write(&out, binary.LittleEndian, uint32(coffData))
	binary.Write(&out, binary.LittleEndian, [2]uint16{uint16(blocks), compress})
	out.Write(files.Bytes())
	out.Write(data.Bytes())
	return out.Bytes()
}

func TestExtract(t *testing.T) {
	big := bytes.Repeat([]byte("OneNote section bytes "), 5000) // several blocks
	names := []string{"Open Notebook.onetoc2", `Group\Inner.one`, "Notes.one"}
	contents := [][]byte{[]byte("toc"), big, []byte("notes")}
	for _, tc := range []struct {
		name     string
		compress uint16
	}{{"stored", compressNone}, {"mszip", compressMSZIP}} {
		t.Run(tc.name, func(t *testing.T) {
			b := buildCab(t, names, contents, tc.compress)
			r, err := NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := r.Extract(dir); err != nil {
				t.Fatal(err)
			}
			for i, n := range []string{"Open Notebook.onetoc2", "Group/Inner.one", "Notes.one"} {
				got, err := os.ReadFile(filepath.Join(dir, n))
				if err != nil || !bytes.Equal(got, contents[i]) {
					t.Errorf("%s: %d bytes, err %v; want %d bytes", n, len(got), err, len(contents[i]))
				}
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	good := buildCab(t, []string{"a.one"}, [][]byte{[]byte("abc")}, compressNone)
	lzx := bytes.Clone(good)
	binary.LittleEndian.PutUint16(lzx[36+6:], 3)
	escape := buildCab(t, []string{`..\evil.one`}, [][]byte{[]byte("abc")}, compressNone)
	for _, tc := range []struct {
		name        string
		b           []byte
		unsupported bool
	}{
		{"not a cabinet", []byte("PK\x03\x04 this is a zip file, not a cabinet........."), false},
		{"truncated", good[:40], false},
		{"LZX", lzx, true},
		{"name outside the folder", escape, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tc.b), int64(len(tc.b)))
			if err == nil {
				err = r.Extract(t.TempDir())
			}
			var fe *FormatError
			var ue *UnsupportedError
			if tc.unsupported && !errors.As(err, &ue) || !tc.unsupported && !errors.As(err, &fe) {
				t.Fatalf("err = %v", err)
			}
			t.Log(err)
		})
	}
}

// FuzzExtract: any bytes are refused with a typed error or extracted,
// never a panic, and never more than the bound on expansion.
func FuzzExtract(f *testing.F) {
	f.Add(buildCab(f, []string{"a.one", `g\b.one`}, [][]byte{[]byte("section"), bytes.Repeat([]byte("x"), 40000)}, compressMSZIP))
	f.Add(buildCab(f, []string{"a.one"}, [][]byte{[]byte("stored")}, compressNone))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err == nil {
			err = r.Extract(t.TempDir())
		}
		var fe *FormatError
		var ue *UnsupportedError
		if err != nil && !errors.As(err, &fe) && !errors.As(err, &ue) {
			t.Fatalf("untyped error: %v", err)
		}
	})
}

func TestExpansionBound(t *testing.T) {
	// 4 MiB of zeros compress to a few KiB: more than 200 times.
	b := buildCab(t, []string{"zeros.one"}, [][]byte{make([]byte, 4<<20)}, compressMSZIP)
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var fe *FormatError
	if err := r.Extract(t.TempDir()); !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a FormatError for the expansion (cabinet of %d bytes)", err, len(b))
	}
}
