package codec

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

func TestConfigureClient(t *testing.T) {
	// Nothing configured: the options are left alone.
	var opts client.Options
	id, err := ConfigureClient(&opts, env(nil), "", Options{})
	if err != nil || id != "" || opts.DataConverter != nil {
		t.Fatalf("nothing configured: %q %v %v", id, opts.DataConverter, err)
	}

	// From the environment: payloads are encrypted.
	k := testKey(3)
	id, err = ConfigureClient(&opts, env(map[string]string{EnvKey: k.encode()}), "", Options{})
	if err != nil || id != k.ID() || opts.DataConverter == nil {
		t.Fatalf("from the environment: %q %v", id, err)
	}
	p, err := opts.DataConverter.ToPayload("secret")
	if err != nil || string(p.Metadata[converter.MetadataEncoding]) != EncodingEncrypted {
		t.Fatalf("payload %v %v", p, err)
	}

	// A key file that is named but missing or readable by others is an
	// error, not plaintext.
	path := filepath.Join(t.TempDir(), "codec.key")
	if _, err := ConfigureClient(&client.Options{}, env(nil), path, Options{}); !errors.Is(err, ErrNoKey) {
		t.Errorf("missing key file: %v", err)
	}
	if _, err := GenerateKeyFile(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ConfigureClient(&client.Options{}, env(nil), path, Options{}); !errors.Is(err, ErrInsecurePermissions) {
		t.Errorf("0644 key file: %v", err)
	}
}
