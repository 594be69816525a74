package contextload

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// tree writes files (slash paths relative to base) and returns base.
func tree(t *testing.T, base string, files map[string]string) string {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// golden compares got with testdata/name after replacing the temporary directory with
// $TMP, or rewrites the file with -update.
func golden(t *testing.T, name, tmp, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, tmp, "$TMP")
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update)", p, err)
	}
	if string(want) != got {
		t.Errorf("golden %s mismatch\n--- want\n%s\n--- got\n%s", p, want, got)
	}
}

func fixedClock() time.Time { return time.Date(2026, 5, 2, 23, 59, 0, 0, time.UTC) }
