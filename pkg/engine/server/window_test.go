package server

import (
	"bytes"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"
)

// The server's receive window is fixed: it says so in its SETTINGS, and an RPC's
// request is not followed by a bandwidth probe (grpc-go's BDP PING, which a Submit
// would send alone while its prompt runs).
func TestServerWindowIsFixedAndSendsNoProbe(t *testing.T) {
	lis := bufconn.Listen(1 << 20)
	g := grpc.NewServer(ServerOptions()...)
	healthpb.RegisterHealthServer(g, health.NewServer())
	go func() { _ = g.Serve(lis) }()
	t.Cleanup(g.Stop)
	conn, err := lis.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(testWait))
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, conn)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	writeHealthCheck(t, fr)

	var window uint32
	var sawSettings bool
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading the server's frames: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			sawSettings = true
			window, _ = f.Value(http2.SettingInitialWindowSize)
			if err := fr.WriteSettingsAck(); err != nil {
				t.Fatal(err)
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				t.Fatalf("the server sent a PING %x after the request: a bandwidth probe", f.Data)
			}
		case *http2.HeadersFrame:
			if f.StreamEnded() { // the trailers: the RPC is over
				if !sawSettings || window != InitialWindowBytes {
					t.Fatalf("SETTINGS_INITIAL_WINDOW_SIZE %d (settings seen: %v), want %d", window, sawSettings, InitialWindowBytes)
				}
				return
			}
		}
	}
}

// writeHealthCheck opens stream 1 with a grpc.health.v1.Health/Check request.
func writeHealthCheck(t *testing.T, fr *http2.Framer) {
	t.Helper()
	var hdr bytes.Buffer
	enc := hpack.NewEncoder(&hdr)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", "/grpc.health.v1.Health/Check"},
		{":authority", "engine"}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
		if err := enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hdr.Bytes(), EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	// An empty HealthCheckRequest: uncompressed, zero length.
	if err := fr.WriteData(1, true, []byte{0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
}
