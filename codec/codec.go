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

// DefaultCodecEndpoint is the codec server's default address
// (cmd/codec-server), which a refusal of plaintext names unless
// Options.CodecEndpoint says otherwise.
const DefaultCodecEndpoint = "http://127.0.0.1:8234"

// Options configure a Codec beyond its keys. The zero Options is the
// lenient codec: payloads that are not encrypted pass through Decode.
type Options struct {
	// RequireEncrypted makes Decode refuse, with an error wrapping
	// ErrPlaintext, every payload that holds data but is not encrypted.
	// Workers set it: a workflow started by a client without the codec
	// (the temporal CLI without --codec-endpoint) then fails at once with
	// an error naming the fix, instead of running on input that Temporal
	// stored unencrypted. Payloads without data (binary/null, the SDK's
	// "no value") pass: there is nothing in them to protect. The codec
	// server leaves it off, to show histories written before the codec.
	RequireEncrypted bool
	// CodecEndpoint is the codec server's URL a refusal tells people to
	// start workflows through; DefaultCodecEndpoint when empty.
	CodecEndpoint string
}

// Codec encrypts and decrypts payloads. It is a converter.PayloadCodec and
// is safe for concurrent use.
type Codec struct {
	current  string                 // ID of the key that encrypts
	aeads    map[string]cipher.AEAD // by key ID
	ids      []string               // configured key IDs, in order
	strict   bool                   // Options.RequireEncrypted
	endpoint string                 // Options.CodecEndpoint, defaulted
}

var _ converter.PayloadCodec = (*Codec)(nil)

// New returns a lenient Codec (the zero Options) that encrypts with
// keys[0] and decrypts with any of keys.
func New(keys []Key) (*Codec, error) { return NewWithOptions(keys, Options{}) }

// NewWithOptions returns a Codec that encrypts with keys[0], decrypts
// with any of keys, and treats plaintext as opts say.
func NewWithOptions(keys []Key, opts Options) (*Codec, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("codec: no key given (set %s or give a key file): %w", EnvKey, ErrNoKey)
	}
	c := &Codec{current: keys[0].id, aeads: make(map[string]cipher.AEAD, len(keys)),
		strict: opts.RequireEncrypted, endpoint: strings.TrimSpace(opts.CodecEndpoint)}
	if c.endpoint == "" {
		c.endpoint = DefaultCodecEndpoint
	}
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
// A nil entry stays nil. Payloads that are not encrypted pass through
// unchanged, unless the codec requires encryption (see DecodePayload). A
// payload sealed with a key that is not configured gives an error
// wrapping ErrUnknownKey; one that fails authentication, ErrDecrypt.
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
// through, or, when the codec requires encryption and the payload holds
// data, is refused with an error wrapping ErrPlaintext that says where
// the payload came from and how to send it encrypted.
func (c *Codec) DecodePayload(p *commonpb.Payload) (*commonpb.Payload, error) {
	d, err := c.decode(p)
	if err != nil {
		return nil, fmt.Errorf("codec: %w", err)
	}
	return d, nil
}

func (c *Codec) decode(p *commonpb.Payload) (*commonpb.Payload, error) {
	switch enc := string(p.GetMetadata()[converter.MetadataEncoding]); {
	case p == nil:
		return nil, nil
	case enc == EncodingEncrypted:
		return c.decodeOne(p)
	case !c.strict || enc == converter.MetadataEncodingNil || len(p.GetData()) == 0:
		return p, nil
	default:
		return nil, fmt.Errorf("a %s payload arrived unencrypted, but this worker encrypts payloads: "+
			"a client without the codec sent it (such as the temporal CLI without --codec-endpoint), so Temporal stored it in plaintext. "+
			"Start the workflow (or send the update, signal or query) again with --codec-endpoint %s on the temporal command, "+
			"or with starter, which encrypts; delete a run started this way (temporal workflow delete) to remove the plaintext from its history: %w",
			printable(enc), c.endpoint, ErrPlaintext)
	}
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
// encrypted by a lenient Codec of keys (the first encrypts, any decrypts).
// Give it to client.Options.DataConverter of every client that starts,
// signals or queries workflows; workers take DataConverterWithOptions
// with RequireEncrypted.
func DataConverter(keys []Key) (converter.DataConverter, error) {
	return DataConverterWithOptions(keys, Options{})
}

// DataConverterWithOptions is DataConverter with a Codec configured by
// opts.
func DataConverterWithOptions(keys []Key, opts Options) (converter.DataConverter, error) {
	c, err := NewWithOptions(keys, opts)
	if err != nil {
		return nil, err
	}
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c), nil
}
