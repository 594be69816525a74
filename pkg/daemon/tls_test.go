package daemon

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// testCA is a throwaway certificate authority for loopback TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// issue signs a leaf certificate for usage and returns its PEM pair.
func (ca *testCA) issue(t *testing.T, serial int64, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "leaf"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTCPListenerRequiresClientCertificates(t *testing.T) {
	ca := newTestCA(t, "robota test CA")
	dir := t.TempDir()
	serverCert, serverKey := ca.issue(t, 2, x509.ExtKeyUsageServerAuth)
	cfg := Config{
		Listen:      Address{Network: "tcp", HostPort: "127.0.0.1:0"},
		TLSCert:     writeFile(t, dir, "server.pem", serverCert),
		TLSKey:      writeFile(t, dir, "server-key.pem", serverKey),
		TLSClientCA: writeFile(t, dir, "ca.pem", ca.pem),
		Log:         zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)),
	}
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan net.Addr, 1)
	done := make(chan error, 1)
	cfg.Listening = func(a net.Addr) { listening <- a }
	go func() { done <- Run(ctx, cfg) }()
	var addr net.Addr
	select {
	case addr = <-listening:
	case err := <-done:
		t.Fatalf("Run returned early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("engine never listened")
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	}()

	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	clientCert, clientKey := ca.issue(t, 3, x509.ExtKeyUsageClientAuth)
	good, err := tls.X509KeyPair(clientCert, clientKey)
	if err != nil {
		t.Fatal(err)
	}
	rogueCert, rogueKey := newTestCA(t, "someone else's CA").issue(t, 4, x509.ExtKeyUsageClientAuth)
	rogue, err := tls.X509KeyPair(rogueCert, rogueKey)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		certs   []tls.Certificate
		serving bool
	}{
		{name: "client certificate from the CA", certs: []tls.Certificate{good}, serving: true},
		{name: "no client certificate", certs: nil},
		{name: "client certificate from another CA", certs: []tls.Certificate{rogue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			creds := credentials.NewTLS(&tls.Config{RootCAs: roots, Certificates: tt.certs, MinVersion: tls.VersionTLS12})
			conn, err := grpc.NewClient(addr.String(), grpc.WithTransportCredentials(creds))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
			defer rcancel()
			resp, err := healthpb.NewHealthClient(conn).Check(rctx, &healthpb.HealthCheckRequest{Service: "robota.v1.EngineService"})
			if tt.serving {
				if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
					t.Fatalf("health = %v, %v; want SERVING", resp, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("health answered %v to a client without a valid certificate", resp.GetStatus())
			}
		})
	}
}

func TestTCPListenerNamesTheMissingTLSFlags(t *testing.T) {
	tests := []struct {
		name              string
		cert, key, ca     string
		wantMissing       string
		wantNotMentioning string
	}{
		{name: "nothing", wantMissing: "--tls-cert, --tls-key, --tls-client-ca"},
		{name: "no client CA", cert: "c.pem", key: "k.pem", wantMissing: "missing --tls-client-ca"},
		{name: "no key", cert: "c.pem", ca: "ca.pem", wantMissing: "missing --tls-key", wantNotMentioning: "missing --tls-cert"},
		{name: "only cert", cert: "c.pem", wantMissing: "missing --tls-key, --tls-client-ca"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(context.Background(), Config{
				Listen:  Address{Network: "tcp", HostPort: "127.0.0.1:0"},
				TLSCert: tt.cert, TLSKey: tt.key, TLSClientCA: tt.ca, Log: zap.NewNop(),
			})
			if !errors.Is(err, ErrTLSRequired) || !strings.Contains(err.Error(), tt.wantMissing) ||
				!strings.Contains(err.Error(), "tcp listener requires TLS") {
				t.Fatalf("Run = %v, want ErrTLSRequired naming %q", err, tt.wantMissing)
			}
			if tt.wantNotMentioning != "" && strings.Contains(err.Error(), tt.wantNotMentioning) {
				t.Fatalf("Run = %v names a flag that was given", err)
			}
		})
	}
}

func TestClientCAMustHoldACertificate(t *testing.T) {
	ca := newTestCA(t, "ca")
	dir := t.TempDir()
	c, k := ca.issue(t, 2, x509.ExtKeyUsageServerAuth)
	err := Run(context.Background(), Config{
		Listen:  Address{Network: "tcp", HostPort: "127.0.0.1:0"},
		TLSCert: writeFile(t, dir, "c.pem", c), TLSKey: writeFile(t, dir, "k.pem", k),
		TLSClientCA: writeFile(t, dir, "ca.pem", []byte("not a certificate")), Log: zap.NewNop(),
	})
	if err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Fatalf("Run with a garbage client CA = %v", err)
	}
}
