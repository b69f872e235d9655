package graph

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// TLSCert is a self-signed loopback certificate for serving the emulator
// over HTTPS, as real Graph is https only (reference fact 26: the
// JavaScript SDK sends its token only to https hosts). It is an ECDSA P-256
// certificate for 127.0.0.1, ::1 and localhost, valid from an hour ago for
// 30 days, and its own CA, so a client trusts it by adding CertPEM to its
// roots (Node: NODE_EXTRA_CA_CERTS=<file written by WritePEM>).
type TLSCert struct {
	// Certificate is the key pair for tls.Config.Certificates.
	Certificate tls.Certificate
	// CertPEM is the certificate (no key) in PEM form.
	CertPEM []byte
	leaf    *x509.Certificate
}

// NewTLSCert generates a fresh loopback certificate.
func NewTLSCert() (*TLSCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("graph emulator: tls key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, fmt.Errorf("graph emulator: tls serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "Note Bridge Graph emulator", Organization: []string{"Note Bridge emulator"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("graph emulator: tls certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("graph emulator: tls certificate: %w", err)
	}
	return &TLSCert{
		Certificate: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		CertPEM:     pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		leaf:        leaf,
	}, nil
}

// ServerConfig returns a tls.Config that serves the certificate.
func (c *TLSCert) ServerConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{c.Certificate}, MinVersion: tls.VersionTLS12}
}

// Pool returns a certificate pool that trusts only this certificate.
func (c *TLSCert) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c.leaf)
	return p
}

// Client returns an HTTP client that trusts this certificate.
func (c *TLSCert) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.Pool(), MinVersion: tls.VersionTLS12}}}
}

// WritePEM writes the certificate (not the key) to path, e.g. for
// NODE_EXTRA_CA_CERTS.
func (c *TLSCert) WritePEM(path string) error {
	if err := os.WriteFile(path, c.CertPEM, 0o644); err != nil {
		return fmt.Errorf("graph emulator: write certificate: %w", err)
	}
	return nil
}

// NewTLSTestServer starts h (usually a *Server) on an HTTPS loopback
// listener with a fresh TLSCert and closes it when tb ends. ts.URL is
// "https://127.0.0.1:<port>", ts.Client() trusts the certificate, and every
// absolute URL the emulator writes (nextLinks, self, contentUrl, resource
// src in HTML) then uses https and that host.
func NewTLSTestServer(tb testing.TB, h http.Handler) (*httptest.Server, *TLSCert) {
	tb.Helper()
	cert, err := NewTLSCert()
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = cert.ServerConfig()
	ts.StartTLS()
	tb.Cleanup(ts.Close)
	return ts, cert
}
