package tui

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTrustRemembersFolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", TrustFile)
	if ok, err := Trusted(path, "/a/b"); ok || err != nil {
		t.Fatalf("fresh: %v %v", ok, err)
	}
	if err := Trust(path, "/a/b", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{"/a/b": true, "/a/b/c": true, "/a": false, "/a/bc": false} {
		if ok, err := Trusted(path, dir); ok != want || err != nil {
			t.Errorf("Trusted(%s) = %v, %v; want %v", dir, ok, err, want)
		}
	}
	if err := os.WriteFile(path, []byte("{bad"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Trusted(path, "/a/b"); err == nil {
		t.Fatal("a corrupt trust file is not reported")
	}
}
