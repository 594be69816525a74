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
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// crashHelperEnv makes the test binary act as the appending process of
// TestFileStoreCrashSafety.
const crashHelperEnv = "ROBOTA_STORE_CRASH_HELPER_DIR"

// resetEvery makes every resetEvery-th round a compaction (a reset to one summary message).
const resetEvery = 20

// TestFileStoreCrashHelper is not a test: when crashHelperEnv is set it resumes the
// session "crash" as a session would (load, then append from there) and appends round
// after round until it is killed. It prints a round's number once Append returned.
func TestFileStoreCrashHelper(t *testing.T) {
	dir := os.Getenv(crashHelperEnv)
	if dir == "" {
		t.Skip("helper process for TestFileStoreCrashSafety")
	}
	s := store.NewFileStore(dir, store.Options{})
	ctx := context.Background()
	round, held := 0, 0
	if rec, err := s.Load(ctx, "crash"); err == nil {
		held = len(rec.Messages)
		round, _ = lastRound(rec.Messages[len(rec.Messages)-1].Text())
	} else if !errors.Is(err, store.ErrNotFound) {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(3)
	}
	fmt.Println("ready")
	// Pad messages so a round is tens of KB: writes take long enough to be interrupted.
	pad := strings.Repeat("x", 8<<10+rand.IntN(8<<10))
	for {
		round++
		d := &store.Delta{ID: "crash", Base: held}
		if held == 0 {
			d.Header = &store.Record{Cwd: "/crash"}
		}
		if round%resetEvery == 0 {
			d.Reset, d.Base = true, 0
			d.Messages = []llm.Message{llm.NewUserMessage(fmt.Sprintf("%d reset", round))}
		} else {
			d.Messages = []llm.Message{llm.NewUserMessage(fmt.Sprintf("%d a %s", round, pad)), llm.NewUserMessage(fmt.Sprintf("%d b %s", round, pad))}
		}
		if err := s.Append(ctx, d); err != nil {
			fmt.Fprintln(os.Stderr, "append:", err)
			os.Exit(3)
		}
		held = d.Base + len(d.Messages)
		fmt.Println(round) // written only after Append returned: the round is durable
	}
}

func lastRound(text string) (int, error) {
	n, _, _ := strings.Cut(text, " ")
	return strconv.Atoi(n)
}

// checkRounds verifies a loaded history is whole rounds in order since the last reset,
// and returns the last round it holds.
func checkRounds(msgs []llm.Message) (int, error) {
	if len(msgs) == 0 {
		return 0, errors.New("empty history")
	}
	first, err := lastRound(msgs[0].Text())
	if err != nil {
		return 0, err
	}
	i, want := 0, first
	if strings.HasPrefix(msgs[0].Text(), fmt.Sprintf("%d reset", first)) {
		i, want = 1, first+1
	} else if first != 1 {
		return 0, fmt.Errorf("history starts with round %d, neither round 1 nor a reset", first)
	}
	for ; i < len(msgs); i, want = i+2, want+1 {
		if i+1 >= len(msgs) {
			return 0, fmt.Errorf("round %d is half there", want)
		}
		a, b := msgs[i].Text(), msgs[i+1].Text()
		if !strings.HasPrefix(a, fmt.Sprintf("%d a ", want)) || !strings.HasPrefix(b, fmt.Sprintf("%d b ", want)) {
			return 0, fmt.Errorf("messages %d-%d are %.12q %.12q, want round %d", i, i+1, a, b, want)
		}
	}
	return want - 1, nil
}

// TestFileStoreCrashSafety (issue 18): a process appending rounds (with a compaction every
// 20) is killed with SIGKILL at random moments, 200 times across one long session. After
// every kill the session loads, holds whole rounds only, and holds every round the helper
// reported appended; List agrees; torn tails are dropped with a warning and cut off by the
// next append. Torn tails at every byte of a round are covered by the conformance suite
// (TornTailAtEveryByte).
func TestFileStoreCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 200 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sessions")
	var torn atomic.Int64
	s := store.NewFileStore(dir, store.Options{OnWarning: func(err error) {
		if errors.Is(err, store.ErrTornTail) {
			torn.Add(1)
		}
	}})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 6))
	const kills = 200
	deadline := time.Now().Add(90 * time.Second)
	durable, appends := 0, 0
	for kill := 1; kill <= kills; kill++ {
		if time.Now().After(deadline) {
			t.Fatalf("only %d kills before the time budget", kill-1)
		}
		cmd := exec.Command(exe, "-test.run=^TestFileStoreCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 4096)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Most kills land among the appends; every fifth may hit the start-up load.
		if kill%5 != 0 {
			if l, ok := <-lines; !ok || l != "ready" {
				t.Fatalf("kill %d: helper did not start: %q", kill, l)
			}
		}
		time.Sleep(time.Duration(rng.IntN(30_000)) * time.Microsecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		for l := range lines {
			if n, err := strconv.Atoi(l); err == nil {
				durable = max(durable, n)
				appends++
			}
		}
		rec, err := s.Load(ctx, "crash")
		switch {
		case errors.Is(err, store.ErrNotFound):
			if durable > 0 {
				t.Fatalf("kill %d: the session vanished after round %d was appended", kill, durable)
			}
			continue
		case err != nil:
			t.Fatalf("kill %d: the session does not load: %v", kill, err)
		}
		last, err := checkRounds(rec.Messages)
		if err != nil {
			t.Fatalf("kill %d: %v", kill, err)
		}
		if last < durable {
			t.Fatalf("kill %d: the session holds rounds up to %d, but %d was appended", kill, last, durable)
		}
		durable = last
		l, err := s.List(ctx)
		if err != nil || len(l.Corrupt) != 0 || len(l.Sessions) != 1 || l.Sessions[0].Messages != len(rec.Messages) {
			t.Fatalf("kill %d: List = %+v, corrupt %v, err %v", kill, l.Sessions, l.Corrupt, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	t.Logf("%d kills, %d rounds (%d appends completed across runs), %d torn tails dropped, %d dir entries",
		kills, durable, appends, torn.Load(), len(entries))
	if durable < resetEvery {
		t.Errorf("the run reached round %d only: no compaction was exercised", durable)
	}
}
