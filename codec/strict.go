package codec

import (
	"fmt"
	"reflect"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// DefaultCodecEndpoint is the codec server's default address
// (cmd/codec-server), which a refusal of plaintext names unless
// Options.CodecEndpoint says otherwise.
const DefaultCodecEndpoint = "http://127.0.0.1:8234"

// Options configure DataConverterWithOptions beyond its keys. The zero
// Options lets payloads that are not encrypted through.
type Options struct {
	// RequireEncrypted refuses, with an error wrapping ErrPlaintext, every
	// payload that holds data but is not encrypted. Workers set it: a
	// workflow started by a client without the codec (the temporal CLI
	// without --codec-endpoint) then fails at its first workflow task with
	// an error naming the fix, instead of running on input Temporal stored
	// unencrypted; an update or query with such input is refused the same
	// way. Two kinds pass: payloads without data (binary/null, the SDK's
	// "no value"), which hold nothing to protect, and payloads decoded into
	// the SDK's own types, which the SDK writes with its default converter
	// (a session's creation signal). The codec server leaves it off, to
	// show histories written before the codec.
	RequireEncrypted bool
	// CodecEndpoint is the codec server's URL a refusal tells people to
	// send payloads through; DefaultCodecEndpoint when empty.
	CodecEndpoint string
}

// strictConverter is a data converter that refuses unencrypted payloads
// before the codec converter it wraps decodes them (Options.RequireEncrypted).
// It checks in FromPayload(s), where the value a payload decodes into is
// known: the codec alone cannot tell the SDK's own plaintext from a
// client's.
type strictConverter struct {
	converter.DataConverter
	endpoint string
}

// FromPayload refuses p if it is plaintext, and decodes it otherwise.
func (s strictConverter) FromPayload(p *commonpb.Payload, valuePtr any) error {
	if err := s.check(p, valuePtr, ""); err != nil {
		return err
	}
	return s.DataConverter.FromPayload(p, valuePtr)
}

// FromPayloads refuses the payloads if one that is decoded is plaintext,
// and decodes them otherwise.
func (s strictConverter) FromPayloads(payloads *commonpb.Payloads, valuePtrs ...any) error {
	for i, p := range payloads.GetPayloads() {
		if i >= len(valuePtrs) {
			break // not decoded
		}
		if err := s.check(p, valuePtrs[i], fmt.Sprintf(" %d", i)); err != nil {
			return err
		}
	}
	return s.DataConverter.FromPayloads(payloads, valuePtrs...)
}

// check returns the refusal of p (payload index: " 1" or ""), decoded
// into valuePtr, or nil.
func (s strictConverter) check(p *commonpb.Payload, valuePtr any, index string) error {
	enc := string(p.GetMetadata()[converter.MetadataEncoding])
	if p == nil || enc == EncodingEncrypted || enc == converter.MetadataEncodingNil || len(p.GetData()) == 0 || sdkType(valuePtr) {
		return nil
	}
	return &plaintextError{index: index, encoding: printable(enc), endpoint: s.endpoint}
}

// plaintextError is the refusal of an unencrypted payload. It is one
// error, not a chain, so a workflow's failure shows its message once; it
// matches ErrPlaintext.
type plaintextError struct {
	index, encoding, endpoint string
}

func (e *plaintextError) Error() string {
	return fmt.Sprintf("codec: payload%s (%s) arrived unencrypted, but this worker encrypts payloads: "+
		"a client without the codec sent it (such as the temporal CLI without --codec-endpoint), so Temporal stored it in plaintext. "+
		"Start the workflow (or send the update or query) again with --codec-endpoint %s on the temporal command, "+
		"or with starter, which encrypts; delete a run started this way (temporal workflow delete) to remove the plaintext from its history",
		e.index, e.encoding, e.endpoint)
}

// Is makes errors.Is(err, ErrPlaintext) true.
func (e *plaintextError) Is(target error) bool { return target == ErrPlaintext }

// sdkType reports whether valuePtr points to a type the Temporal SDK
// defines: such values are the SDK's own messages, which it writes with
// its default converter, never a client's input.
func sdkType(valuePtr any) bool {
	t := reflect.TypeOf(valuePtr)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && strings.HasPrefix(t.PkgPath(), "go.temporal.io/sdk/")
}
