package workerproc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeExec(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name    string
		beside  os.FileMode // 0: none
		onPath  bool
		want    string // "beside", "path" or "" for not found
		wantErr bool
	}{
		{name: "beside the executable wins over PATH", beside: 0o755, onPath: true, want: "beside"},
		{name: "beside the executable", beside: 0o755, want: "beside"},
		{name: "a non-executable file beside is skipped", beside: 0o644, onPath: true, want: "path"},
		{name: "on PATH", onPath: true, want: "path"},
		{name: "nowhere", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			binDir, pathDir := t.TempDir(), t.TempDir()
			if tc.beside != 0 {
				writeExec(t, filepath.Join(binDir, Name), tc.beside)
			}
			if tc.onPath {
				writeExec(t, filepath.Join(pathDir, Name), 0o755)
			}
			t.Setenv("PATH", pathDir)
			got, err := Find(filepath.Join(binDir, "robota"))
			if tc.wantErr {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("Find = %q, %v; want ErrNotFound", got, err)
				}
				for _, want := range []string{filepath.Join(binDir, Name), "make build", "go build -o", "on PATH"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not mention %q", err, want)
					}
				}
				return
			}
			want := map[string]string{"beside": filepath.Join(binDir, Name), "path": filepath.Join(pathDir, Name)}[tc.want]
			if err != nil || got != want {
				t.Fatalf("Find = %q, %v; want %q", got, err, want)
			}
		})
	}
}
