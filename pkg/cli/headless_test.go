package cli

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWithPipedInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(file, []byte("from a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(path string) *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.WriteString("from a pipe"); w.Close() }()
	tests := []struct {
		name  string
		stdin *os.File
		want  string
	}{
		{"pipe", r, "explain\n\nfrom a pipe"},
		{"regular file", open(file), "explain\n\nfrom a file"},
		{"dev null", open(os.DevNull), "explain"},
	}
	for _, tt := range tests {
		got, err := withPipedInput("explain", tt.stdin)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}
