package assemble

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// benchDir is a project directory under /dev/shm when it exists (as the server's
// benchmarks use), so the fsync of every saved turn does not drown the turn's CPU.
func benchDir(b *testing.B) string {
	b.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "robota-bench"); err == nil {
			b.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return b.TempDir()
}

// BenchmarkTurn runs one prompt of a zero-delay script session in process, from Submit
// to its end event: what a turn costs outside the provider. The session log is drained
// with the timer stopped (its writer works after the turn), and the session is replaced
// every few turns so the history stays bounded: every 20 as in the server's turn
// benchmark, every 2 for 512 KB answers, whose third turn would start with an automatic
// compaction.
func BenchmarkTurn(b *testing.B) {
	for _, bc := range []struct {
		name, turn string
		every      int
	}{
		{"short", "text: \"ok\"", 20},
		{"answer512KB", fmt.Sprintf("text: %q\n    chunkSize: 256", strings.Repeat("y", 512<<10)), 2},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir := benchDir(b)
			yaml := "turns:\n  - " + bc.turn + "\n    usage: {inputTokens: 10, outputTokens: 1}\n    repeat: true\n"
			provider, err := script.New([]byte(yaml), "turn.yaml") // parsed once: sessions share it
			if err != nil {
				b.Fatal(err)
			}
			home := b.TempDir()
			var s *InteractiveSession
			fresh := func() {
				if s != nil {
					_ = s.Close(context.Background(), "other")
				}
				var err error
				s, err = New(context.Background(), Options{Cwd: dir, Home: home, Env: envOf(nil), LLM: provider})
				if err != nil {
					b.Fatal(err)
				}
			}
			fresh()
			defer func() { _ = s.Close(context.Background(), "other") }()
			benchPrompt(b, s, "warm")
			b.ReportAllocs()
			var cpu time.Duration // process CPU (user + system) of the timed parts
			b.ResetTimer()
			for i := range b.N {
				if i > 0 && i%bc.every == 0 {
					b.StopTimer()
					fresh()
					b.StartTimer()
				}
				c0 := processCPU(b)
				benchPrompt(b, s, "hi")
				cpu += processCPU(b) - c0
				b.StopTimer()
				if err := Of(s).SyncLog(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the CPU time the process has used: on a shared machine it varies less
// than the wall time of a turn.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchPrompt(b *testing.B, s *InteractiveSession, prompt string) {
	sub := s.Subscribe()
	defer sub.Close()
	sent, err := s.Submit(prompt)
	if err != nil {
		b.Fatal(err)
	}
	for {
		ev, err := sub.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if ev.PromptID != sent.PromptID {
			continue
		}
		switch ev.Type {
		case EventComplete:
			return
		case EventError, EventInterrupted:
			b.Fatalf("prompt ended with %s: %+v", ev.Type, ev.Result)
		}
	}
}
