package workerplugin

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
	"os"
	"testing"
	"time"
)

// selfSigned returns a P-256 certificate and key in PEM.
func selfSigned(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// pipeWith returns the read end of a pipe holding data.
func pipeWith(t *testing.T, data []byte) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	return r
}

func TestServerTLSTakesTheHandedOverIdentity(t *testing.T) {
	cert, key := selfSigned(t)
	engineCert, _ := selfSigned(t)
	for _, tc := range []struct {
		name     string
		material []byte
		engine   string
		wantErr  bool
	}{
		{name: "certificate and key, engine certificate", material: append(append([]byte{}, cert...), key...), engine: string(engineCert)},
		{name: "no engine certificate", material: append(append([]byte{}, cert...), key...), wantErr: true},
		{name: "no key", material: cert, engine: string(engineCert), wantErr: true},
		{name: "garbage", material: []byte("not pem"), engine: string(engineCert), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := pipeWith(t, tc.material)
			conf, err := serverTLS(f, tc.engine)
			if !errors.Is(f.Close(), os.ErrClosed) {
				t.Error("the identity pipe was left open")
			}
			if tc.wantErr {
				if err == nil {
					t.Fatal("serverTLS accepted an incomplete identity")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(conf.Certificates) != 1 || conf.ClientAuth != tls.RequireAndVerifyClientCert || conf.ClientCAs == nil || conf.RootCAs == nil {
				t.Fatalf("config does not present the identity and require the engine's certificate: %+v", conf)
			}
		})
	}
}

func TestTLSProviderOnlyWithAHandedOverIdentity(t *testing.T) {
	t.Setenv(TLSFDEnv, "")
	if TLSProvider() != nil {
		t.Fatal("a worker without the pipe must leave TLS to go-plugin's AutoMTLS")
	}
	t.Setenv(TLSFDEnv, "1") // stdout: never an identity
	provide := TLSProvider()
	if provide == nil {
		t.Fatal("no TLS provider for a handed-over identity")
	}
	if _, err := provide(); err == nil {
		t.Fatal("fd 1 accepted as the identity pipe")
	}
	if _, set := os.LookupEnv(TLSFDEnv); set {
		t.Fatalf("%s left in the environment the worker's jobs inherit", TLSFDEnv)
	}
}
