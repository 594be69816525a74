package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// bigRecord is a saved session of n messages (the test system prompt, then user and
// assistant turns of textLen characters each), with IDs unlike the test generator's.
func bigRecord(id string, n, textLen int) store.Record {
	f := llm.Factory{Now: fixedClock, NewID: func() string { return "" }}
	msgs := []llm.Message{f.System(testSystem)}
	filler := strings.Repeat("lorem ipsum ", textLen/12+1)[:textLen]
	for i := 1; len(msgs) < n; i++ {
		text := fmt.Sprintf("turn %d: %s", i, filler)
		if i%2 == 1 {
			msgs = append(msgs, f.User(text))
		} else {
			msgs = append(msgs, f.Assistant([]llm.Part{llm.TextPart(text)}, llm.StateComplete))
		}
	}
	for i := range msgs {
		msgs[i].ID = fmt.Sprintf("%s-msg-%d", id, i)
	}
	return store.Record{ID: id, CreatedAt: fixedClock(), UpdatedAt: fixedClock(), Messages: msgs}
}

// dirBytes is the size of every file under dir (the log is append-only and payload files
// are only added, so a difference is what was written).
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			total += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// A long session resumed into its own log for one turn writes what the turn adds, not
// the conversation again: the reset that starts the resumed session continues the log's
// history and the turn's first request is written against it. (Before, the first request
// wrote the whole conversation again: 11.4 MB for the 10k-message session, 1.3 MB for the
// 6k-message one, and the reset a third copy unless, as here, it was byte for byte the
// payload file already written.) The log still rebuilds the conversation and every
// request.
func TestSessionLog_ResumedTurnWritesOnlyTheTurn(t *testing.T) {
	const yaml = `
turns:
  - text: "Here is a short answer to your question."
    usage: {inputTokens: 10, outputTokens: 5}
    repeat: true
`
	const prompt = "one more question about the code"
	for _, tc := range []struct {
		name          string
		messages, len int
	}{
		{"10k messages", 10_000, 1000},
		{"2000 rounds", 6_001, 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rec := bigRecord("big", tc.messages, tc.len)
			conv, _ := json.Marshal(rec.Messages)
			turn := func(prompt string) (*recordingProvider, int64) {
				lg, err := sessionlog.Open(dir, "big", sessionlog.Options{Now: fixedClock})
				if err != nil {
					t.Fatal(err)
				}
				before := dirBytes(t, dir)
				p := newProvider(t, yaml)
				s := newSession(t, session.Config{SessionID: "big", Provider: p, Logger: lg, Resume: &rec,
					AutoCompactThreshold: session.AutoCompactDisabled, ContextWindow: 1 << 30})
				if prompt != "" {
					mustRun(t, s, prompt)
				}
				if err := s.Shutdown(context.Background(), "other"); err != nil {
					t.Fatal(err)
				}
				if err := lg.Close(); err != nil {
					t.Fatal(err)
				}
				return p, dirBytes(t, dir) - before
			}
			// The log first gets the conversation whole (a session that started it, or an
			// older version's log).
			_, seeded := turn("")
			p, written := turn(prompt)
			t.Logf("%d messages (%d bytes of JSON): seeding the log wrote %d bytes, the resumed turn %d bytes",
				len(rec.Messages), len(conv), seeded, written)
			if limit := int64(1<<20 + 16*len(prompt)); written > limit {
				t.Errorf("the resumed turn wrote %d bytes, want ≤ %d (1 MiB + 16× the turn's input)", written, limit)
			}
			want := append(append([]llm.Message{}, rec.Messages...), llm.Message{})
			replayed := replayLog(t, dir, "big")
			if len(replayed) != len(rec.Messages)+2 {
				t.Fatalf("replay has %d messages, want %d", len(replayed), len(rec.Messages)+2)
			}
			wantSameMessages(t, "resumed", replayed[:len(rec.Messages)], want[:len(rec.Messages)])
			if replayed[len(rec.Messages)].Text() != prompt {
				t.Fatalf("replayed prompt %q", replayed[len(rec.Messages)].Text())
			}
			if n := len(p.requests()); n != 1 {
				t.Fatalf("the turn made %d provider requests, want 1", n)
			}
			wantSameRequests(t, "resumed", replayRequests(t, dir, "big"), p)
		})
	}
}
