package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseAddress(t *testing.T) {
	tests := []struct {
		in      string
		want    Address
		wantErr bool
	}{
		{in: "unix:///run/robota/e.sock", want: Address{Network: "unix", Path: "/run/robota/e.sock"}},
		{in: "unix:/run/robota/e.sock", want: Address{Network: "unix", Path: "/run/robota/e.sock"}},
		{in: "unix:///run//robota/../robota/e.sock", want: Address{Network: "unix", Path: "/run/robota/e.sock"}},
		{in: "tcp://127.0.0.1:7777", want: Address{Network: "tcp", HostPort: "127.0.0.1:7777"}},
		{in: "tcp://[::1]:7777", want: Address{Network: "tcp", HostPort: "[::1]:7777"}},
		{in: "unix://relative/e.sock", wantErr: true},
		{in: "unix:e.sock", wantErr: true},
		{in: "tcp://127.0.0.1", wantErr: true},
		{in: "tcp://host:1/x", wantErr: true},
		{in: "/tmp/e.sock", wantErr: true},
		{in: "http://localhost:80", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAddress(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseAddress(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("ParseAddress(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDefaultAddressPrefersXDGRuntimeDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/42")
	a, err := DefaultAddress()
	if err != nil || a.Path != "/run/user/42/robota/engine.sock" {
		t.Fatalf("DefaultAddress() = %+v, %v", a, err)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("HOME", "/home/u")
	a, err = DefaultAddress()
	if err != nil || a.Path != "/home/u/.robota/engine.sock" {
		t.Fatalf("DefaultAddress() without XDG = %+v, %v", a, err)
	}
}

func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "rbd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestListenUnixCreatesPrivateSocketAndDir(t *testing.T) {
	dir := filepath.Join(shortDir(t), "sub")
	addr := Address{Network: "unix", Path: filepath.Join(dir, "e.sock")}
	ln, err := listen(addr, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	st, err := os.Stat(addr.Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket stat = %v, %v; want mode 600", st.Mode(), err)
	}
	dst, err := os.Stat(dir)
	if err != nil || dst.Mode().Perm() != 0o700 {
		t.Fatalf("socket dir mode = %v, %v; want 700", dst.Mode(), err)
	}
}

func TestListenUnixReplacesStaleSocketButNotLiveOne(t *testing.T) {
	path := filepath.Join(shortDir(t), "e.sock")
	addr := Address{Network: "unix", Path: path}
	live, err := listen(addr, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := listen(addr, false); err == nil {
		t.Fatal("a second engine could listen on a live socket")
	}
	// A dead engine leaves its socket file behind: close the socket, not the
	// wrapper that would remove it.
	live.(*unixListener).UnixListener.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
	again, err := listen(addr, false)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	again.Close()
}

func TestListenTCPRequiresTLS(t *testing.T) {
	_, err := listen(Address{Network: "tcp", HostPort: "127.0.0.1:0"}, false)
	if !errors.Is(err, ErrTLSRequired) {
		t.Fatalf("listen tcp without TLS = %v, want ErrTLSRequired", err)
	}
	ln, err := listen(Address{Network: "tcp", HostPort: "127.0.0.1:0"}, true)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

func TestListenUnixRefusesOverlongPathClearly(t *testing.T) {
	dir := shortDir(t)
	long := filepath.Join(dir, strings.Repeat("d", 100), "e.sock")
	if err := os.MkdirAll(filepath.Dir(long), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := listen(Address{Network: "unix", Path: long}, false)
	if err == nil || !strings.Contains(err.Error(), "socket path too long") {
		t.Fatalf("listen on a %d-byte path = %v, want a clear too-long error", len(long), err)
	}
}
