package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// crashHelperEnv makes the test binary act as the saving process of TestFileStoreCrashSafety.
const crashHelperEnv = "ROBOTA_STORE_CRASH_HELPER_DIR"

// TestFileStoreCrashHelper is not a test: when crashHelperEnv is set it saves generation
// after generation of one record until it is killed. Every generation n holds n messages
// that all say n, so a torn write is detectable.
func TestFileStoreCrashHelper(t *testing.T) {
	dir := os.Getenv(crashHelperEnv)
	if dir == "" {
		t.Skip("helper process for TestFileStoreCrashSafety")
	}
	s := store.NewFileStore(dir, store.Options{})
	ctx := context.Background()
	gen := 0
	if rec, err := s.Load(ctx, "crash"); err == nil {
		gen = len(rec.Messages)
	}
	fmt.Println("ready")
	for {
		gen++
		if err := s.Save(ctx, generation(gen)); err != nil {
			fmt.Fprintln(os.Stderr, "save:", err)
			os.Exit(3)
		}
		fmt.Println(gen) // written only after Save returned: gen is durable
	}
}

func generation(n int) *store.Record {
	// Pad messages so one save is tens of KB: writes take long enough to be interrupted.
	pad := strings.Repeat("x", 400)
	msgs := make([]llm.Message, n)
	for i := range msgs {
		msgs[i] = llm.Message{ID: strconv.Itoa(i), Role: llm.RoleUser, State: llm.StateComplete,
			Content: []llm.Part{llm.TextPart(strconv.Itoa(n) + pad)}}
	}
	return &store.Record{ID: "crash", Cwd: "/crash", Messages: msgs}
}

// checkGeneration verifies a loaded record is one complete generation.
func checkGeneration(rec store.Record) (int, error) {
	n := len(rec.Messages)
	want := strconv.Itoa(n)
	for i, m := range rec.Messages {
		if num, _, _ := strings.Cut(m.Text(), "x"); num != want {
			return 0, fmt.Errorf("message %d says generation %q in a record of %d messages", i, num, n)
		}
	}
	return n, nil
}

// TestFileStoreCrashSafety kills a saving process with SIGKILL at random moments, 50
// times. After every kill the record must be absent (only before the first save) or a
// complete generation at least as new as the last one the helper reported saved, and List
// must report exactly that record — temp files are never taken for records.
func TestFileStoreCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 50 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sessions")
	s := store.NewFileStore(dir, store.Options{})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 6))
	deadline := time.Now().Add(18 * time.Second)
	durable, kills, saves := 0, 0, 0
	for kills < 50 && time.Now().Before(deadline) {
		cmd := exec.Command(exe, "-test.run=^TestFileStoreCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill before or during the helper's first saves (a random delay after "ready").
		if kills%5 != 0 {
			if l, ok := <-lines; !ok || l != "ready" {
				t.Fatalf("helper did not start: %q", l)
			}
		}
		time.Sleep(time.Duration(rng.IntN(25_000)) * time.Microsecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		kills++
		for l := range lines {
			if n, err := strconv.Atoi(l); err == nil {
				durable = max(durable, n)
				saves++
			}
		}

		rec, err := s.Load(ctx, "crash")
		switch {
		case errors.Is(err, store.ErrNotFound):
			if durable > 0 {
				t.Fatalf("kill %d: record vanished after generation %d was saved", kills, durable)
			}
			continue
		case err != nil:
			t.Fatalf("kill %d: record not loadable: %v", kills, err)
		}
		gen, err := checkGeneration(rec)
		if err != nil {
			t.Fatalf("kill %d: torn record: %v", kills, err)
		}
		if gen < durable {
			t.Fatalf("kill %d: loaded generation %d, but %d was reported saved", kills, gen, durable)
		}
		durable = gen
		l, err := s.List(ctx)
		if err != nil || len(l.Corrupt) != 0 || len(l.Sessions) != 1 {
			t.Fatalf("kill %d: List = %d records, corrupt %v, err %v", kills, len(l.Sessions), l.Corrupt, err)
		}
	}
	if kills < 50 {
		t.Fatalf("only %d kills before the time budget", kills)
	}
	entries, _ := os.ReadDir(dir)
	t.Logf("%d kills, final generation %d, %d saves completed across runs, %d dir entries (temp files left by kills included)",
		kills, durable, saves, len(entries))
}
