package codec

import (
	"errors"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// FuzzDecode feeds Decode the payloads a codec server receives from
// anyone: it must never panic, and it either fails with one of the
// package's errors or returns payloads.
func FuzzDecode(f *testing.F) {
	c, _ := New([]Key{testKey(1), testKey(2)})
	sealed, _ := c.Encode([]*commonpb.Payload{plainPayload("seed")})
	f.Add([]byte(EncodingEncrypted), []byte(testKey(1).ID()), []byte(CipherAES256GCM), sealed[0].Data)
	f.Add([]byte(EncodingEncrypted), []byte(testKey(2).ID()), []byte(CipherAES256GCM), sealed[0].Data)
	f.Add([]byte(EncodingEncrypted), []byte(""), []byte(""), []byte{})
	f.Add([]byte("json/plain"), []byte(""), []byte(""), []byte(`"x"`))
	f.Fuzz(func(t *testing.T, enc, keyID, ciph, data []byte) {
		p := &commonpb.Payload{Metadata: map[string][]byte{
			converter.MetadataEncoding: enc, MetadataKeyID: keyID, MetadataCipher: ciph}, Data: data}
		out, err := c.Decode([]*commonpb.Payload{p})
		if err != nil {
			if !errors.Is(err, ErrUnknownKey) && !errors.Is(err, ErrDecrypt) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if len(out) != 1 || out[0] == nil {
			t.Fatalf("decoded %v", out)
		}
		if string(enc) != EncodingEncrypted && out[0] != p {
			t.Fatal("an unencrypted payload was changed")
		}
		// Whatever decoded re-encodes and decodes to the same payload.
		again, err := c.Encode(out)
		if err != nil {
			t.Fatal(err)
		}
		back, err := c.Decode(again)
		if err != nil || !proto.Equal(back[0], out[0]) {
			t.Fatalf("re-encode round trip: %v", err)
		}
	})
}
