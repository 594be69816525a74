package sessionlog_test

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

var update = flag.Bool("update", false, "rewrite golden files")

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// tickingClock returns epoch, epoch+1ms, epoch+2ms, …
func tickingClock() func() time.Time {
	var mu sync.Mutex
	n := 0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		n++
		return epoch.Add(time.Duration(n-1) * time.Millisecond)
	}
}

func openLogger(t *testing.T, dir, id string, threshold int) *sessionlog.FileLogger {
	t.Helper()
	l, err := sessionlog.Open(dir, id, sessionlog.Options{Now: tickingClock(), InlineThreshold: threshold})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func mustLog(t *testing.T, l *sessionlog.FileLogger, ev sessionlog.EventType, data any) {
	t.Helper()
	if err := l.Append(ev, data); err != nil {
		t.Fatalf("Log(%s): %v", ev, err)
	}
}

func readAll(t *testing.T, path string) sessionlog.Contents {
	t.Helper()
	c, err := sessionlog.ReadLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// assertNoSecretUnder fails when secret occurs in any file under root.
func assertNoSecretUnder(t *testing.T, root string, secrets ...string) int {
	t.Helper()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("secret %q found in %s", s[:12], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
