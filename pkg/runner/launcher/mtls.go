package launcher

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
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// Mutual TLS between the engine and its workers, as go-plugin's AutoMTLS does it,
// at a fraction of the cost. AutoMTLS makes a P-521 certificate on both sides at
// every launch and signs with P-521 in every handshake (about 20 ms of a ~25 ms
// launch here). Instead:
//   - the engine's client certificate (P-256) is made once per process and reused
//     for every launch; its key never leaves the engine;
//   - each worker gets its own P-256 certificate, made by the engine (~0.1 ms) and
//     handed over through an inherited pipe (workerplugin.TLSFDEnv), so the worker
//     makes none and the engine knows which certificate to trust before the worker
//     says anything. No key is ever in an environment (DESIGN.md decision 4).
// Both sides still require and verify the other's certificate, as with AutoMTLS.

// identity is a self-signed certificate and its key.
type identity struct {
	cert tls.Certificate
	leaf *x509.Certificate
	// certPEM is the certificate alone; keyPEM the key alone.
	certPEM, keyPEM []byte
}

// certValidity matches go-plugin's AutoMTLS certificates: the engine's lives as
// long as its process, however long that is.
const certValidity = 262980 * time.Hour

// newIdentity makes a P-256 key and a self-signed certificate for "localhost",
// usable as client and server and as its own root, like go-plugin's AutoMTLS.
func newIdentity(now time.Time) (*identity, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("worker tls: generate key: %w", err)
	}
	sn, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("worker tls: serial number: %w", err)
	}
	const host = "localhost"
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: host, Organization: []string{"robota"}},
		DNSNames:              []string{host},
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		NotBefore:             now.Add(-30 * time.Second),
		NotAfter:              now.Add(certValidity),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("worker tls: create certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("worker tls: parse certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("worker tls: marshal key: %w", err)
	}
	return &identity{
		cert:    tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		leaf:    leaf,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// engineIdentity is the engine's client certificate, made at the first launch, once
// per process.
func engineIdentity() (*identity, error) {
	r := engineIdentityOnce.Get()
	return r.id, r.err
}

var engineIdentityOnce = &lazy.Value[identityResult]{Build: func() identityResult {
	id, err := newIdentity(time.Now())
	return identityResult{id, err}
}}

type identityResult struct {
	id  *identity
	err error
}

// clientTLS is the engine's side of one worker's connection (and of the go-plugin
// broker's, where the engine also serves): it presents the engine's certificate
// and trusts only the worker's.
func clientTLS(engine *identity, worker *x509.Certificate) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(worker)
	return &tls.Config{
		Certificates: []tls.Certificate{engine.cert},
		RootCAs:      pool,
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS13,
		ServerName:   "localhost",
	}
}

// prepareTLS arranges mutual TLS for the worker that c starts: the engine's
// certificate in PLUGIN_CLIENT_CERT, the worker's certificate and key in a pipe
// inherited as fd 3 (named by workerplugin.TLSFDEnv). It returns the engine's
// TLS config for this worker and a function that closes the engine's end of the
// pipe, to be called once the process has started (or failed to).
//
// On Windows, where exec cannot pass a pipe (ExtraFiles), it returns a nil config
// and go-plugin's AutoMTLS does the work.
func prepareTLS(c *exec.Cmd) (*tls.Config, func(), error) {
	if runtime.GOOS == "windows" {
		return nil, func() {}, nil
	}
	engine, err := engineIdentity()
	if err != nil {
		return nil, nil, err
	}
	worker, err := newIdentity(time.Now())
	if err != nil {
		return nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("worker tls: pipe: %w", err)
	}
	// About 1 KiB: far below a pipe's buffer, so the write never waits for the
	// worker. Closing the write end now lets the worker read to EOF.
	_, err = w.Write(append(append([]byte{}, worker.certPEM...), worker.keyPEM...))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = r.Close()
		return nil, nil, fmt.Errorf("worker tls: write pipe: %w", err)
	}
	fd := 3 + len(c.ExtraFiles)
	c.ExtraFiles = append(c.ExtraFiles, r)
	c.Env = append(c.Env,
		"PLUGIN_CLIENT_CERT="+string(engine.certPEM),
		fmt.Sprintf("%s=%d", workerplugin.TLSFDEnv, fd))
	return clientTLS(engine, worker.leaf), func() { _ = r.Close() }, nil
}
