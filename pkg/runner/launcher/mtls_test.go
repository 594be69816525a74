package launcher

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

func launchTestWorker(t *testing.T, args ...string) *Worker {
	t.Helper()
	w, err := Launch(testWorker(args...), zap.NewNop(), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Kill)
	return w
}

// runTrue runs `true` in w and returns its terminal event.
func runTrue(t *testing.T, w *Worker) runnerapi.Event {
	t.Helper()
	var last runnerapi.Event
	err := w.Runner.Start(context.Background(), runnerapi.Job{ID: "t", Process: &runnerapi.ProcessJob{Command: "true"}},
		func(ev runnerapi.Event) error { last = ev; return nil })
	if err != nil || last.Kind != runnerapi.EventCompleted {
		t.Fatalf("job `true` in worker pid %d: %v, last event %+v", w.PID, err, last)
	}
	return last
}

func workerAddr(t *testing.T, w *Worker) net.Addr {
	t.Helper()
	rc := w.client.ReattachConfig()
	if rc == nil || rc.Addr == nil {
		t.Fatal("no worker address")
	}
	return rc.Addr
}

// peerCert connects to w presenting the engine's certificate and returns the
// certificate the worker presents.
func peerCert(t *testing.T, w *Worker) *x509.Certificate {
	t.Helper()
	engine, err := engineIdentity()
	if err != nil {
		t.Fatal(err)
	}
	addr := workerAddr(t, w)
	conn, err := tls.Dial(addr.Network(), addr.String(), &tls.Config{
		Certificates: []tls.Certificate{engine.cert}, InsecureSkipVerify: true, // we only look at it
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

func environ(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func isP256(c *x509.Certificate) bool {
	k, ok := c.PublicKey.(*ecdsa.PublicKey)
	return ok && k.Curve == elliptic.P256()
}

// Every launch presents the one engine certificate made for the process, and every
// worker its own P-256 certificate, made by the engine and handed over through a
// pipe: no private key is in any worker's environment (DESIGN.md decision 4).
func TestLaunchUsesOneEngineCertificateAndAP256IdentityPerWorker(t *testing.T) {
	engine, err := engineIdentity()
	if err != nil {
		t.Fatal(err)
	}
	a, b := launchTestWorker(t), launchTestWorker(t)
	for _, w := range []*Worker{a, b} {
		runTrue(t, w)
		env := environ(t, w.PID)
		if !strings.Contains(env, "PLUGIN_CLIENT_CERT="+string(engine.certPEM)+"\x00") {
			t.Errorf("worker pid %d was not given the engine's certificate", w.PID)
		}
		if strings.Contains(env, "PRIVATE KEY") {
			t.Errorf("worker pid %d has a private key in its environment", w.PID)
		}
	}
	ca, cb := peerCert(t, a), peerCert(t, b)
	if !isP256(ca) || !isP256(cb) {
		t.Fatalf("worker certificates use %T %v / %v; want P-256", ca.PublicKey, ca.PublicKeyAlgorithm, cb.PublicKeyAlgorithm)
	}
	if ca.Equal(cb) || ca.Equal(engine.leaf) {
		t.Fatal("workers share a certificate (with each other or the engine); each must have its own")
	}
}

// Mutual TLS is kept: the worker answers the engine's certificate only.
func TestWorkerRefusesClientsWithoutTheEngineCertificate(t *testing.T) {
	w := launchTestWorker(t)
	engine, err := engineIdentity()
	if err != nil {
		t.Fatal(err)
	}
	other, err := newIdentity(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		certs  []tls.Certificate
		wantOK bool
	}{
		{"engine certificate", []tls.Certificate{engine.cert}, true},
		{"another certificate", []tls.Certificate{other.cert}, false},
		{"no certificate", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := clientTLS(engine, peerCert(t, w))
			conf.Certificates = tc.certs
			addr := workerAddr(t, w)
			conn, err := grpc.NewClient("unix:"+addr.String(), grpc.WithTransportCredentials(credentials.NewTLS(conf)))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = grpc_health_v1.NewHealthClient(conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: "plugin"})
			if (err == nil) != tc.wantOK {
				t.Fatalf("health check = %v, want ok=%v", err, tc.wantOK)
			}
		})
	}
}

// The engine trusts the certificate it made for the worker it launched, and no other.
func TestClientTLSTrustsOnlyTheWorkersCertificate(t *testing.T) {
	engine, worker, impostor := mustIdentity(t), mustIdentity(t), mustIdentity(t)
	for _, tc := range []struct {
		name   string
		server *identity
		wantOK bool
	}{
		{"the worker", worker, true},
		{"an impostor", impostor, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc, sc := net.Pipe()
			defer cc.Close()
			defer sc.Close()
			pool := x509.NewCertPool()
			pool.AddCert(engine.leaf)
			srv := tls.Server(sc, &tls.Config{Certificates: []tls.Certificate{tc.server.cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert})
			go func() { _ = srv.Handshake() }()
			err := tls.Client(cc, clientTLS(engine, worker.leaf)).Handshake()
			if (err == nil) != tc.wantOK {
				t.Fatalf("handshake with %s = %v, want ok=%v", tc.name, err, tc.wantOK)
			}
		})
	}
}

func mustIdentity(t *testing.T) *identity {
	t.Helper()
	id, err := newIdentity(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A worker that does not take the handed-over identity (an older robota-worker)
// still launches: go-plugin's AutoMTLS makes its certificate and sends it in the
// handshake, against the engine's cached one.
func TestLaunchWorksWithAWorkerThatMakesItsOwnCertificate(t *testing.T) {
	w := launchTestWorker(t, legacyWorkerArg)
	runTrue(t, w)
	if c := peerCert(t, w); isP256(c) {
		t.Fatal("the legacy worker presented a P-256 certificate; want go-plugin's own (P-521)")
	}
}
