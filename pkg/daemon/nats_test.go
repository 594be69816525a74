package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/robota-sdk/robota-go/pkg/runner/remote"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/natsserver"
)

// The embedded server follows the hosts' credentials files while it runs: a file the
// operator adds lets that host connect without an engine restart; a file removed
// disconnects its host at once and refuses it from then on.
func TestWatchHostCredsAddsAndRevokesHosts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hosts")
	if _, _, err := natsserver.HostCreds(dir, "h1"); err != nil {
		t.Fatal(err)
	}
	hosts, err := natsserver.LoadHostCreds(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := natsserver.Config{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), EnginePassword: "e", Hosts: hosts}
	ns, err := natsserver.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	core, logs := observer.New(zap.InfoLevel)
	stop := watchHostCreds(ns, cfg, dir, 20*time.Millisecond, zap.New(core))
	defer stop()

	connect := func(name string, onDisconnect func(error)) (*nats.Conn, error) {
		b, err := os.ReadFile(filepath.Join(dir, name+".creds"))
		pw := ""
		if err == nil {
			pw = string(b[len(name)+1 : len(b)-1])
		}
		return remote.Connect(remote.ConnConfig{URLs: ns.ClientURL(), OnDisconnect: onDisconnect},
			append(remote.HostOptions(name), nats.UserInfo(name, pw))...)
	}
	lost := make(chan error, 1)
	h1, err := connect("h1", func(err error) {
		select {
		case lost <- err:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h1.Close()
	if _, err := connect("h2", nil); !errors.Is(err, remote.ErrRefused) {
		t.Fatalf("h2 before its file exists: %v, want refused", err)
	}

	if _, _, err := natsserver.HostCreds(dir, "h2"); err != nil {
		t.Fatal(err)
	}
	h1pw, _ := os.ReadFile(filepath.Join(dir, "h1.creds"))
	deadline := time.Now().Add(5 * time.Second)
	for {
		h2, err := connect("h2", nil)
		if err == nil {
			h2.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("h2 was never let in after its file appeared: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	if err := os.Remove(filepath.Join(dir, "h1.creds")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost:
	case <-time.After(5 * time.Second):
		t.Fatal("h1 stayed connected after its file was removed")
	}
	old := string(h1pw[3 : len(h1pw)-1])
	if nc, err := remote.Connect(remote.ConnConfig{URLs: ns.ClientURL()}, nats.UserInfo("h1", old)); !errors.Is(err, remote.ErrRefused) {
		if nc != nil {
			nc.Close()
		}
		t.Fatalf("h1 after its file was removed: %v, want refused", err)
	}
	// The watcher logs a change once the server's reload returns, and the reload is what
	// dropped h1: the second line may come just after h1 saw the drop.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n := logs.FilterMessage("host credentials changed").Len()
		if n == 2 {
			break
		}
		if n > 2 || time.Now().After(deadline) {
			t.Fatalf("logged %d changes, want 2: %v", n, logs.All())
		}
	}
}
