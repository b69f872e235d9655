package codec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// Metadata of an encrypted payload.
const (
	// EncodingEncrypted is the metadata encoding of a payload this package
	// encrypted.
	EncodingEncrypted = "binary/encrypted"
	// MetadataKeyID names the key that sealed the payload (Key.ID).
	MetadataKeyID = "encryption-key-id"
	// MetadataCipher names the cipher, CipherAES256GCM.
	MetadataCipher = "encryption-cipher"
	// CipherAES256GCM is AES-256 in GCM mode with a random 96-bit nonce
	// before the ciphertext.
	CipherAES256GCM = "AES256-GCM"
)

// Codec encrypts and decrypts payloads. It is a converter.PayloadCodec and
// is safe for concurrent use.
type Codec struct {
	current string                 // ID of the key that encrypts
	aeads   map[string]cipher.AEAD // by key ID
	ids     []string               // configured key IDs, in order
}

var _ converter.PayloadCodec = (*Codec)(nil)

// New returns a Codec that encrypts with keys[0] and decrypts with any of
// keys.
func New(keys []Key) (*Codec, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("codec: no key given (set %s or give a key file): %w", EnvKey, ErrNoKey)
	}
	c := &Codec{current: keys[0].id, aeads: make(map[string]cipher.AEAD, len(keys))}
	for i, k := range keys {
		if k.IsZero() {
			return nil, fmt.Errorf("codec: key %d is empty: %w", i+1, ErrInvalidKey)
		}
		if _, dup := c.aeads[k.id]; dup {
			continue
		}
		block, err := aes.NewCipher(k.b[:])
		if err != nil {
			return nil, fmt.Errorf("codec: key %d: %w", i+1, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("codec: key %d: %w", i+1, err)
		}
		c.aeads[k.id] = aead
		c.ids = append(c.ids, k.id)
	}
	return c, nil
}

// KeyID returns the ID of the key that encrypts.
func (c *Codec) KeyID() string { return c.current }

// KeyIDs returns the IDs of every key that decrypts, the current one first.
func (c *Codec) KeyIDs() []string { return append([]string(nil), c.ids...) }

// String names the codec's key IDs, never the keys.
func (c *Codec) String() string {
	return fmt.Sprintf("codec.Codec{%s, keys %s}", CipherAES256GCM, strings.Join(c.ids, ","))
}

// Format prints String for every verb, so no verb reaches the key schedule.
func (c *Codec) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(c.String())) }

// LogValue makes slog print String.
func (c *Codec) LogValue() slog.Value { return slog.StringValue(c.String()) }

// additionalData binds a ciphertext to the cipher and key ID it claims.
func additionalData(keyID string) []byte {
	return []byte("notebridge payload v1\x00" + CipherAES256GCM + "\x00" + keyID)
}

// Encode encrypts each payload, metadata included, with the current key.
// A nil entry stays nil.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	aead := c.aeads[c.current]
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if p == nil {
			continue
		}
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("codec: payload %d: marshal: %w", i, err)
		}
		sealed := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
		if _, err := rand.Read(sealed); err != nil {
			return nil, fmt.Errorf("codec: payload %d: nonce: %w", i, err)
		}
		sealed = aead.Seal(sealed, sealed, plain, additionalData(c.current))
		clear(plain)
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				converter.MetadataEncoding: []byte(EncodingEncrypted),
				MetadataKeyID:              []byte(c.current),
				MetadataCipher:             []byte(CipherAES256GCM),
			},
			Data: sealed,
		}
	}
	return out, nil
}

// Decode decrypts each encrypted payload with the key its metadata names.
// Payloads that are not encrypted (another encoding, or nil) pass through
// unchanged: a worker that must refuse them checks before (see
// Options.RequireEncrypted). A payload sealed with a key that is not
// configured gives an error wrapping ErrUnknownKey; one that fails
// authentication, ErrDecrypt.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		d, err := c.decode(p)
		if err != nil {
			return nil, fmt.Errorf("codec: payload %d: %w", i, err)
		}
		out[i] = d
	}
	return out, nil
}

// DecodePayload decodes one payload as Decode does: nil stays nil, an
// encrypted payload is decrypted, and one that is not encrypted passes
// through.
func (c *Codec) DecodePayload(p *commonpb.Payload) (*commonpb.Payload, error) {
	d, err := c.decode(p)
	if err != nil {
		return nil, fmt.Errorf("codec: %w", err)
	}
	return d, nil
}

func (c *Codec) decode(p *commonpb.Payload) (*commonpb.Payload, error) {
	if p == nil || string(p.GetMetadata()[converter.MetadataEncoding]) != EncodingEncrypted {
		return p, nil
	}
	return c.decodeOne(p)
}

func (c *Codec) decodeOne(p *commonpb.Payload) (*commonpb.Payload, error) {
	md := p.GetMetadata()
	if ci := string(md[MetadataCipher]); ci != CipherAES256GCM {
		return nil, fmt.Errorf("cipher %q is not %s; it was written by something other than this codec: %w",
			printable(ci), CipherAES256GCM, ErrMalformed)
	}
	id := string(md[MetadataKeyID])
	aead, ok := c.aeads[id]
	if !ok {
		return nil, fmt.Errorf("sealed with key %s; configured keys are %s: add the key with that ID to %s or the key file (after the current key) and restart: %w",
			printable(id), strings.Join(c.ids, ", "), EnvKey, ErrUnknownKey)
	}
	data := p.GetData()
	if len(data) < aead.NonceSize()+aead.Overhead() {
		return nil, fmt.Errorf("%d bytes is too short for an %s ciphertext: %w", len(data), CipherAES256GCM, ErrMalformed)
	}
	nonce, sealed := data[:aead.NonceSize()], data[aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, sealed, additionalData(id))
	if err != nil {
		return nil, fmt.Errorf("key %s did not authenticate it (modified, truncated, or not sealed by this key): %w", id, ErrDecrypt)
	}
	var dec commonpb.Payload
	if err := proto.Unmarshal(plain, &dec); err != nil {
		return nil, fmt.Errorf("decrypted bytes are not a payload: %w", ErrMalformed)
	}
	return &dec, nil
}

// printable keeps untrusted metadata short and printable in an error.
func printable(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return '?'
		}
		return r
	}, s)
}

// DataConverter returns the SDK's default data converter with payloads
// encrypted by a Codec of keys (the first encrypts, any decrypts), letting
// unencrypted payloads through. Give it to client.Options.DataConverter
// of every client that starts, signals or queries workflows; workers take
// DataConverterWithOptions with RequireEncrypted.
func DataConverter(keys []Key) (converter.DataConverter, error) {
	return DataConverterWithOptions(keys, Options{})
}

// DataConverterWithOptions is DataConverter that treats unencrypted
// payloads as opts say.
func DataConverterWithOptions(keys []Key, opts Options) (converter.DataConverter, error) {
	c, err := New(keys)
	if err != nil {
		return nil, err
	}
	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
	if !opts.RequireEncrypted {
		return dc, nil
	}
	endpoint := strings.TrimSpace(opts.CodecEndpoint)
	if endpoint == "" {
		endpoint = DefaultCodecEndpoint
	}
	return strictConverter{DataConverter: dc, endpoint: endpoint}, nil
}
