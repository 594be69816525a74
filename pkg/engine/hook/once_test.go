package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A `once` hook runs the first time it matches and is removed after that run, also when
// two events match it at the same time; the other hooks keep running.
func TestOnceHookRunsOnce(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log")
	once := cmdHook("echo once >> " + shQuote(logPath))
	once.Once = true
	every := cmdHook("echo every >> " + shQuote(logPath))
	raw, err := ParseConfig([]byte(`{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","once":true}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !raw[PreToolUse][0].Hooks[0].Once {
		t.Fatal(`"once": true was not read`)
	}
	r := NewRunner(config(PreToolUse, group("Bash", once, every)), dir)
	if got := len(r.Matching(bashCall("ls"))); got != 2 {
		t.Fatalf("%d hooks match before the first run, want 2", got)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Run(context.Background(), bashCall("ls"))
		}()
	}
	wg.Wait()
	r.Run(context.Background(), bashCall("ls"))
	var b []byte
	b, err = os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "once"); got != 1 {
		t.Errorf("the once hook ran %d times, want 1:\n%s", got, b)
	}
	if got := strings.Count(string(b), "every"); got != 5 {
		t.Errorf("the other hook ran %d times, want 5", got)
	}
	if got := r.Matching(bashCall("ls")); len(got) != 1 || got[0].Once {
		t.Errorf("after its run the once hook still matches: %+v", got)
	}
}
