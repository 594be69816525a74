package sessionlog_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// recorded is one event a session logged, as it handed it to its logger.
type recorded struct {
	event string
	data  any
}

type recorder struct {
	mu     sync.Mutex
	events []recorded
}

func (r *recorder) Log(event string, data any) {
	r.mu.Lock()
	r.events = append(r.events, recorded{event, data})
	r.mu.Unlock()
}

// turnEvents runs a session of the script provider for one warm-up turn and one more, and
// returns what the second turn logged: the events, and their data, a session's log is
// given for one turn.
func turnEvents(b *testing.B, yaml string) []recorded {
	p, err := script.New([]byte(yaml), "turn.yaml")
	if err != nil {
		b.Fatal(err)
	}
	rec := &recorder{}
	s, err := session.New(context.Background(), session.Config{Provider: p, Cwd: b.TempDir(), Logger: rec,
		SystemMessage: "You are a coding agent.", Tools: nil})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Run(context.Background(), "warm up"); err != nil {
		b.Fatal(err)
	}
	rec.mu.Lock()
	from := len(rec.events)
	rec.mu.Unlock()
	if _, err := s.Run(context.Background(), "hi"); err != nil {
		b.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.events[from:]
}

// benchTurns logs the events of one turn per iteration through a Background logger (as a
// session assembled by pkg/engine/interactive does) and waits for the writer at the end.
// The default write delay is kept: a turn's events are written in one run after it.
func benchTurns(b *testing.B, events []recorded) {
	l, err := sessionlog.Open(b.TempDir(), "bench", sessionlog.Options{Background: true,
		Now: func() time.Time { return epoch }})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.ReportAllocs()
	last := len(events) - 1
	for b.Loop() {
		for _, e := range events[:last] {
			l.Log(e.event, e.data)
		}
		// Append waits for the writer to have written everything queued before it (Sync
		// would add an fsync, which is not the writer's CPU).
		if err := l.Append(events[last].event, events[last].data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(events)), "events/turn")
}

// BenchmarkLogTurn logs the events of one short script turn (a one-word answer), what the
// engine's per-turn overhead benchmark (pkg/engine/server) makes a session log.
func BenchmarkLogTurn(b *testing.B) {
	events := turnEvents(b, "turns:\n  - text: \"ok\"\n    usage: {inputTokens: 10, outputTokens: 1}\n    repeat: true\n")
	benchTurns(b, events)
}

// BenchmarkLogStreamedTurn logs a turn whose answer streams as 2,000 pieces of 256 bytes
// (each logged twice, as text_delta and provider_stream_raw_delta), what the engine's
// text-delta throughput benchmark makes a session log.
func BenchmarkLogStreamedTurn(b *testing.B) {
	const chunks, size = 2000, 256
	events := turnEvents(b, fmt.Sprintf("turns:\n  - text: %q\n    chunkSize: %d\n    usage: {inputTokens: 10, outputTokens: 10}\n    repeat: true\n",
		strings.Repeat("y", chunks*size), size))
	b.SetBytes(chunks * size)
	benchTurns(b, events)
}
