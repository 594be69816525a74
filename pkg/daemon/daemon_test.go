package daemon

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func TestRunServesHealthAndStopsOnContextCancel(t *testing.T) {
	sock := filepath.Join(shortDir(t), "e.sock")
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{
			Listen:    Address{Network: "unix", Path: sock},
			Log:       zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)),
			Listening: func(a net.Addr) { listening <- a },
		})
	}()
	select {
	case <-listening:
	case err := <-done:
		t.Fatalf("Run returned early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("engine never listened")
	}
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "robota.v1.EngineService"})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health = %v, %v", resp, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after cancel = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket still present after stop: %v", err)
	}
}

func TestRunRejectsHalfTLSConfig(t *testing.T) {
	err := Run(context.Background(), Config{
		Listen: Address{Network: "tcp", HostPort: "127.0.0.1:0"}, TLSCert: "cert.pem", Log: zap.NewNop(),
	})
	if err == nil {
		t.Fatal("Run accepted a certificate without a key")
	}
}
