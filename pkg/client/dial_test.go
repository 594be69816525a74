package client_test

import (
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

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/robota-sdk/robota-go/pkg/client"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    client.Target
		wantErr string
	}{
		{in: "unix:///run/robota/e.sock", want: client.Target{Network: "unix", Path: "/run/robota/e.sock"}},
		{in: "unix:/run/e.sock", want: client.Target{Network: "unix", Path: "/run/e.sock"}},
		{in: "tcp://127.0.0.1:7070", want: client.Target{Network: "tcp", Host: "127.0.0.1:7070"}},
		{in: "tcp://[::1]:7070", want: client.Target{Network: "tcp", Host: "[::1]:7070"}},
		{in: "unix://run/e.sock", wantErr: "must be absolute"},
		{in: "tcp://localhost", wantErr: "want tcp://HOST:PORT"},
		{in: "tcp://h:1/x", wantErr: "want tcp://HOST:PORT"},
		{in: "localhost:7070", wantErr: "want unix:///ABS/PATH or tcp://HOST:PORT"},
		{in: "", wantErr: "want unix:///ABS/PATH"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := client.ParseTarget(tc.in)
			if tc.wantErr != "" {
				if !errors.Is(err, client.ErrBadTarget) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseTarget(%q) = %v, %v; want ErrBadTarget with %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseTarget(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestDialUnixSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "rc") // short: socket paths are limited to ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "e.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	serveEngine(t, lis)
	c, err := client.Dial("unix://"+sock, client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info := scriptSession(t, c, project(t, bashScript))
	if got, err := c.GetSession(testCtx(t), info.ID); err != nil || got.ID != info.ID {
		t.Fatalf("GetSession over the socket: %+v, %v", got, err)
	}
	if _, err := client.Dial("unix://"+sock, client.DialOptions{TLS: client.TLSFiles{CAFile: "ca.pem"}}); !errors.Is(err, client.ErrTLSConfig) {
		t.Fatalf("Dial unix with TLS files: %v, want ErrTLSConfig", err)
	}
	gone, err := client.Dial("unix://"+filepath.Join(dir, "none.sock"), client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	if _, err := gone.GetSession(testCtx(t), "x"); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("call to a missing engine: %v, want ErrUnavailable", err)
	}
}

// pki is a CA and the PEM files of a server and a client certificate it signed.
type pki struct{ caFile, serverCert, serverKey, clientCert, clientKey string }

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, IsCA: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, _ := x509.MarshalECPrivateKey(key)
		return write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", kder)
	}
	p := pki{caFile: write("ca.pem", "CERTIFICATE", caDER)}
	p.serverCert, p.serverKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	p.clientCert, p.clientKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return p
}

func TestDialTCPWithMutualTLS(t *testing.T) {
	p := newPKI(t)
	cert, err := tls.LoadX509KeyPair(p.serverCert, p.serverKey)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(p.caFile)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	// What robota-engine --tls-cert/--tls-key/--tls-client-ca serves.
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveEngine(t, lis, grpc.Creds(credentials.NewTLS(conf)))
	target := "tcp://" + lis.Addr().String()

	c, err := client.Dial(target, client.DialOptions{TLS: client.TLSFiles{CertFile: p.clientCert, KeyFile: p.clientKey, CAFile: p.caFile}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info := scriptSession(t, c, project(t, bashScript))
	if info.ID == "" {
		t.Fatal("no session id over TLS")
	}

	// Without a client certificate the engine refuses the handshake.
	_, err = client.Dial(target, client.DialOptions{TLS: client.TLSFiles{CAFile: p.caFile}})
	if !errors.Is(err, client.ErrTLSConfig) || !strings.Contains(err.Error(), "cert, key") {
		t.Fatalf("Dial tcp without a client cert: %v, want ErrTLSConfig naming the missing files", err)
	}
	if _, err := client.Dial(target, client.DialOptions{}); !errors.Is(err, client.ErrTLSConfig) {
		t.Fatalf("Dial tcp without TLS: %v, want ErrTLSConfig", err)
	}
	// A certificate the engine's CA did not sign is refused by the engine.
	other := newPKI(t)
	stranger, err := client.Dial(target, client.DialOptions{TLS: client.TLSFiles{CertFile: other.clientCert, KeyFile: other.clientKey, CAFile: p.caFile}})
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	if _, err := stranger.GetSession(testCtx(t), info.ID); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("call with a foreign client cert: %v, want the handshake refused (ErrUnavailable)", err)
	}
}
