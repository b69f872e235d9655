package codec

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

// testKey returns a fixed key derived from seed.
func testKey(seed byte) Key {
	var b [KeySize]byte
	for i := range b {
		b[i] = seed + byte(i)
	}
	return newKey(b)
}

func mustCodec(t *testing.T, keys ...Key) *Codec {
	t.Helper()
	c, err := New(keys)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type migrateInput struct {
	User     string `json:"user"`
	Notebook string `json:"notebook"`
	Secret   string `json:"secret"`
}

func TestDataConverterRoundTrip(t *testing.T) {
	dc, err := DataConverter([]Key{testKey(1)})
	if err != nil {
		t.Fatal(err)
	}
	in := migrateInput{User: "alice", Notebook: "Work notes", Secret: "marker-7f3c"}
	p, err := dc.ToPayload(in)
	if err != nil {
		t.Fatal(err)
	}
	if enc := string(p.Metadata[converter.MetadataEncoding]); enc != EncodingEncrypted {
		t.Errorf("encoding %q, want %q", enc, EncodingEncrypted)
	}
	if id := string(p.Metadata[MetadataKeyID]); id != testKey(1).ID() {
		t.Errorf("key ID %q, want %q", id, testKey(1).ID())
	}
	raw, _ := proto.Marshal(p)
	for _, plain := range []string{"marker-7f3c", "alice", "Work notes", "json/plain"} {
		if bytes.Contains(raw, []byte(plain)) {
			t.Errorf("encoded payload contains %q in clear", plain)
		}
	}
	var out migrateInput
	if err := dc.FromPayload(p, &out); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Errorf("round trip: got %+v, want %+v", out, in)
	}
	// Multiple values, as workflow arguments travel.
	ps, err := dc.ToPayloads("a", 42, in)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	var n int
	var got migrateInput
	if err := dc.FromPayloads(ps, &s, &n, &got); err != nil {
		t.Fatal(err)
	}
	if s != "a" || n != 42 || got != in {
		t.Errorf("FromPayloads: %q %d %+v", s, n, got)
	}
}

func TestEncodeNoncesDifferAndNilsStay(t *testing.T) {
	c := mustCodec(t, testKey(1))
	p := plainPayload("same")
	out, err := c.Encode([]*commonpb.Payload{p, nil, p})
	if err != nil {
		t.Fatal(err)
	}
	if out[1] != nil {
		t.Error("nil payload was encoded")
	}
	if bytes.Equal(out[0].Data, out[2].Data) {
		t.Error("the same payload encrypted twice gave the same ciphertext")
	}
	dec, err := c.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(dec[0], p) || dec[1] != nil || !proto.Equal(dec[2], p) {
		t.Errorf("decode: %v", dec)
	}
}

func plainPayload(s string) *commonpb.Payload {
	return &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte("json/plain")}, Data: []byte(`"` + s + `"`)}
}

func TestDecodePassesUnencryptedThrough(t *testing.T) {
	c := mustCodec(t, testKey(1))
	in := []*commonpb.Payload{plainPayload("x"), {Metadata: map[string][]byte{converter.MetadataEncoding: []byte("binary/null")}}, {}, nil}
	out, err := c.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("payload %d changed: %v", i, out[i])
		}
	}
}

func TestPlaintextByMode(t *testing.T) {
	keys := []Key{testKey(1)}
	lenient, err := DataConverter(keys)
	if err != nil {
		t.Fatal(err)
	}
	strict, err := DataConverterWithOptions(keys, Options{RequireEncrypted: true, CodecEndpoint: "http://codec.example:9000"})
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := lenient.ToPayload(migrateInput{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	plain := func(v any) *commonpb.Payload {
		p, err := converter.GetDefaultDataConverter().ToPayload(v)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		in      *commonpb.Payload
		into    func() any // a pointer to decode into
		refused bool       // strict refuses it with ErrPlaintext
	}{
		{name: "encrypted", in: sealed, into: func() any { return new(migrateInput) }},
		{name: "json plaintext", in: plain(migrateInput{User: "alice"}), into: func() any { return new(migrateInput) }, refused: true},
		{name: "plaintext string", in: plain("Section 1"), into: func() any { return new(string) }, refused: true},
		{name: "plaintext binary", in: plain([]byte{1, 2}), into: func() any { return new([]byte) }, refused: true},
		{name: "binary/null", in: plain(nil), into: func() any { return new(*migrateInput) }},
		{name: "the SDK's own type", in: plain(temporal.RetryPolicy{MaximumAttempts: 3}), into: func() any { return new(temporal.RetryPolicy) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := lenient.FromPayload(tt.in, tt.into()); err != nil {
				t.Errorf("lenient: %v", err)
			}
			err := strict.FromPayload(tt.in, tt.into())
			errs := strict.FromPayloads(&commonpb.Payloads{Payloads: []*commonpb.Payload{tt.in}}, tt.into())
			if !tt.refused {
				if err != nil || errs != nil {
					t.Errorf("strict: %v / %v", err, errs)
				}
				return
			}
			for _, e := range []error{err, errs} {
				if !errors.Is(e, ErrPlaintext) {
					t.Fatalf("strict: error %v, want ErrPlaintext", e)
				}
				for _, fix := range []string{"--codec-endpoint http://codec.example:9000", "starter", "unencrypted", "temporal workflow delete"} {
					if !strings.Contains(e.Error(), fix) {
						t.Errorf("strict: error %q does not say %q", e, fix)
					}
				}
			}
		})
	}
}

func TestStrictDataConverter(t *testing.T) {
	strict, err := DataConverterWithOptions([]Key{testKey(1)}, Options{RequireEncrypted: true})
	if err != nil {
		t.Fatal(err)
	}
	// What the codec's own clients write decodes, values and nil alike.
	ps, err := strict.ToPayloads("a", nil, migrateInput{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	var s string
	var none *migrateInput
	var in migrateInput
	if err := strict.FromPayloads(ps, &s, &none, &in); err != nil || s != "a" || none != nil || in.User != "alice" {
		t.Fatalf("own payloads: %q %v %+v %v", s, none, in, err)
	}
	// What a client without the codec writes is refused, naming the
	// default codec server; its "no value" is not.
	plain, err := converter.GetDefaultDataConverter().ToPayloads(migrateInput{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if err := strict.FromPayloads(plain, &in); !errors.Is(err, ErrPlaintext) || !strings.Contains(err.Error(), DefaultCodecEndpoint) {
		t.Errorf("plaintext input: %v", err)
	}
	null, err := converter.GetDefaultDataConverter().ToPayloads(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := strict.FromPayloads(null, &none); err != nil || none != nil {
		t.Errorf("plaintext null: %v %v", none, err)
	}
}

func TestKeyRotation(t *testing.T) {
	k1, k2 := testKey(1), testKey(2)
	old := mustCodec(t, k1)
	rotated := mustCodec(t, k2, k1)
	if rotated.KeyID() != k2.ID() || strings.Join(rotated.KeyIDs(), ",") != k2.ID()+","+k1.ID() {
		t.Errorf("key IDs %s / %v", rotated.KeyID(), rotated.KeyIDs())
	}
	p := plainPayload("rotate")
	sealedOld, err := old.Encode([]*commonpb.Payload{p})
	if err != nil {
		t.Fatal(err)
	}
	// The rotated codec still reads what the old key sealed.
	if dec, err := rotated.Decode(sealedOld); err != nil || !proto.Equal(dec[0], p) {
		t.Fatalf("rotated codec on an old payload: %v %v", dec, err)
	}
	// It seals with the new key...
	sealedNew, err := rotated.Encode([]*commonpb.Payload{p})
	if err != nil {
		t.Fatal(err)
	}
	if id := string(sealedNew[0].Metadata[MetadataKeyID]); id != k2.ID() {
		t.Errorf("rotated codec sealed with %s, want the first key %s", id, k2.ID())
	}
	// ...which a process that only has the old key cannot read, and says so.
	_, err = old.Decode(sealedNew)
	if !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("old codec on a new payload: %v, want ErrUnknownKey", err)
	}
	for _, want := range []string{k2.ID(), k1.ID(), EnvKey, "payload 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestDecodeRejectsBadPayloads(t *testing.T) {
	k1, k2 := testKey(1), testKey(2)
	c := mustCodec(t, k1, k2)
	seal := func() *commonpb.Payload {
		out, err := c.Encode([]*commonpb.Payload{plainPayload("x")})
		if err != nil {
			t.Fatal(err)
		}
		return out[0]
	}
	for _, tc := range []struct {
		name string
		edit func(p *commonpb.Payload)
		want error
	}{
		{"flipped bit", func(p *commonpb.Payload) { p.Data[len(p.Data)-1] ^= 1 }, ErrDecrypt},
		{"flipped nonce", func(p *commonpb.Payload) { p.Data[0] ^= 1 }, ErrDecrypt},
		{"truncated", func(p *commonpb.Payload) { p.Data = p.Data[:len(p.Data)-1] }, ErrDecrypt},
		{"too short", func(p *commonpb.Payload) { p.Data = p.Data[:20] }, ErrMalformed},
		{"empty", func(p *commonpb.Payload) { p.Data = nil }, ErrMalformed},
		// Relabelled as sealed by the other configured key: the key ID is
		// authenticated, so this fails rather than decrypting garbage.
		{"other key ID", func(p *commonpb.Payload) { p.Metadata[MetadataKeyID] = []byte(k2.ID()) }, ErrDecrypt},
		{"unknown key ID", func(p *commonpb.Payload) { p.Metadata[MetadataKeyID] = []byte("0123456789abcdef") }, ErrUnknownKey},
		{"no key ID", func(p *commonpb.Payload) { delete(p.Metadata, MetadataKeyID) }, ErrUnknownKey},
		{"other cipher", func(p *commonpb.Payload) { p.Metadata[MetadataCipher] = []byte("ROT13\x00\n") }, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := seal()
			tc.edit(p)
			_, err := c.Decode([]*commonpb.Payload{plainPayload("fine"), p})
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), "payload 1") {
				t.Errorf("error %q does not say which payload", err)
			}
			if strings.ContainsAny(err.Error(), "\x00\n") {
				t.Errorf("error %q carries control characters from the payload", err)
			}
		})
	}
}

// A payload sealed under a different key that claims a configured key's ID
// (a wrong key file with the right IDs pasted in) fails authentication.
func TestWrongKeySameIDFails(t *testing.T) {
	good, wrong := testKey(1), testKey(9)
	wrong.id = good.id
	sealed, err := mustCodec(t, wrong).Encode([]*commonpb.Payload{plainPayload("x")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mustCodec(t, good).Decode(sealed); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("got %v, want ErrDecrypt", err)
	}
}

func TestNewRefusesNoKeys(t *testing.T) {
	if _, err := New(nil); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), EnvKey) {
		t.Errorf("New(nil): %v", err)
	}
	if _, err := New([]Key{{}}); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("New(zero key): %v", err)
	}
	if _, err := DataConverter(nil); !errors.Is(err, ErrNoKey) {
		t.Errorf("DataConverter(nil): %v", err)
	}
	// Duplicates collapse.
	if c := mustCodec(t, testKey(1), testKey(1)); len(c.KeyIDs()) != 1 {
		t.Errorf("duplicate keys: %v", c.KeyIDs())
	}
}

func BenchmarkEncodeDecode(b *testing.B) {
	c, _ := New([]Key{testKey(1)})
	p := &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte("json/plain")}, Data: bytes.Repeat([]byte("x"), 4<<10)}
	b.SetBytes(int64(len(p.Data)))
	for b.Loop() {
		enc, err := c.Encode([]*commonpb.Payload{p})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}
