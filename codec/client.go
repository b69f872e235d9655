package codec

import (
	"strings"

	"go.temporal.io/sdk/client"
)

// ConfigureClient sets opts.DataConverter to one that encrypts payloads
// when keys are configured: NOTEBRIDGE_CODEC_KEY (read with getenv,
// normally os.Getenv) or keyFile. When neither is set it leaves opts as
// they are and returns "": payloads stay unencrypted. Otherwise it returns
// the ID of the key that encrypts, for the log. A key that is configured
// but unusable (a missing or group-readable file, bad base64) is an error,
// never a silent fallback to plaintext. copts configure the Codec: a
// worker sets RequireEncrypted, a client that only starts and reads
// workflows leaves it off.
func ConfigureClient(opts *client.Options, getenv func(string) string, keyFile string, copts Options) (string, error) {
	if strings.TrimSpace(getenv(EnvKey)) == "" && keyFile == "" {
		return "", nil
	}
	keys, err := LoadKeys(getenv, keyFile)
	if err != nil {
		return "", err
	}
	dc, err := DataConverterWithOptions(keys, copts)
	if err != nil {
		return "", err
	}
	opts.DataConverter = dc
	return keys[0].ID(), nil
}
