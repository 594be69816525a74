package client_test

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/robota-sdk/robota-go/pkg/client"
)

// The client's receive window is fixed at the largest response it accepts (16 MiB): no
// bandwidth probe follows every response, as grpc-go's BDP estimate would send.
func TestClientAnnouncesAFixedWindow(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "e.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	c, err := client.Dial("unix://"+sock, client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { _, _ = c.GetSession(ctx, "any") }() // makes the client connect

	conn, err := lis.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(conn, preface); err != nil || string(preface) != http2.ClientPreface {
		t.Fatalf("preface %q, %v", preface, err)
	}
	f, err := http2.NewFramer(conn, conn).ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	settings, ok := f.(*http2.SettingsFrame)
	if !ok {
		t.Fatalf("first frame %v, want SETTINGS", f)
	}
	if w, _ := settings.Value(http2.SettingInitialWindowSize); w != 16<<20 {
		t.Fatalf("SETTINGS_INITIAL_WINDOW_SIZE %d, want %d (the largest response)", w, 16<<20)
	}
}
