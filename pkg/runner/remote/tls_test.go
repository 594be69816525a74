package remote

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/natsserver"
)

// writePair writes a certificate for cn signed by ca (self-signed when ca is nil) and
// its key under dir, and returns the paths and the parsed certificate and key.
func writePair(t *testing.T, dir, cn string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (string, string, *x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	parent, signer := tmpl, key
	if ca == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	} else {
		parent, signer = ca, caKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kb, _ := x509.MarshalECPrivateKey(key)
	certPath, keyPath := filepath.Join(dir, cn+".pem"), filepath.Join(dir, cn+".key")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certPath, keyPath, cert, key
}

// With TLS the embedded server demands client certificates: a host with one signed by
// the CA connects; without one, or in plaintext, it is refused.
func TestEmbeddedServerMutualTLS(t *testing.T) {
	dir := t.TempDir()
	caPath, _, ca, caKey := writePair(t, dir, "ca", nil, nil)
	srvCert, srvKey, _, _ := writePair(t, dir, "server", ca, caKey)
	hostCert, hostKey, _, _ := writePair(t, dir, "host", ca, caKey)
	ns, err := natsserver.Start(natsserver.Config{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), TLSCert: srvCert, TLSKey: srvKey,
		TLSCA: caPath, EnginePassword: enginePassword, Hosts: testHosts()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	url := strings.Replace(ns.ClientURL(), "nats://", "tls://", 1)
	user := nats.UserInfo("h1", hostPassword("h1"))
	nc, err := Connect(ConnConfig{URLs: url, TLSCA: caPath, TLSCert: hostCert, TLSKey: hostKey}, user)
	if err != nil {
		t.Fatalf("host with a certificate: %v", err)
	}
	nc.Close()
	if nc, err := Connect(ConnConfig{URLs: url, TLSCA: caPath}, user); err == nil {
		nc.Close()
		t.Fatal("a host without a client certificate connected")
	}
	// A plaintext client is told TLS is required before anything else.
	raw, err := net.Dial("tcp", ns.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	_ = raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, _ := raw.Read(buf)
	if info := string(buf[:n]); !strings.Contains(info, `"tls_required":true`) {
		t.Fatalf("the server greeted a plaintext client with %q, want tls_required", info)
	}
}
