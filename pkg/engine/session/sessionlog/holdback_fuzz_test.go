package sessionlog_test

import (
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// FuzzHoldBack streams a text in pieces of fuzzed sizes, with a clock that moves by fuzzed
// steps (so pieces are released as they settle or fall due), optionally with a key in
// it, through all three streaming kinds. Properties: a key is never readable on disk;
// every piece is logged; without a withheld line, the text and raw delta lines joined
// are the text.
func FuzzHoldBack(f *testing.F) {
	f.Add("The quick brown fox jumps over the lazy dog. ", []byte{3, 7, 1, 200, 5}, uint8(0), false)
	f.Add("Sure, here it is: and more text follows", []byte{1, 2, 3}, uint8(10), true)
	f.Add(strings.Repeat("word ", 40), []byte{11, 250, 13, 255}, uint8(40), true)
	f.Add("{\"a\": 1}  x", []byte{2}, uint8(3), false)
	f.Fuzz(func(t *testing.T, text string, steps []byte, at uint8, withKey bool) {
		if len(text) > 4096 || len(steps) == 0 {
			return
		}
		key := "sk-ant-api03-" + strings.Repeat("Zq9", 12)
		if withKey {
			i := min(int(at), len(text))
			text = text[:i] + key + text[i:]
		} else if strings.Contains(text, "sk-ant-") {
			return
		}
		var pieces []string
		for i, rest := 0, text; len(rest) > 0; i++ {
			n := min(int(steps[i%len(steps)]%17)+1, len(rest))
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		var mu sync.Mutex
		now := epoch
		dir := t.TempDir()
		l, err := sessionlog.Open(dir, "s1", sessionlog.Options{CoalesceInterval: 50 * time.Millisecond,
			Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
		if err != nil {
			t.Fatal(err)
		}
		s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: allKinds}
		for i, p := range pieces {
			mu.Lock()
			now = now.Add(time.Duration(steps[i%len(steps)]) * time.Millisecond)
			mu.Unlock()
			s.piece(p)
		}
		s.respond(text)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if withKey {
			assertKeyUnreadable(t, dir, key, text, pieces)
		}
		c := readAll(t, l.Path())
		want := map[string]int{"text_delta": len(pieces), "provider_stream_raw_delta": len(pieces),
			"provider_native_raw_payload": len(pieces)}
		if got := piecesLogged(t, c.Entries); !maps.Equal(got, want) {
			t.Fatalf("pieces logged %v, want %v", got, want)
		}
		assertContiguous(t, c.Entries)
		if countWithheld(c.Entries) > 0 {
			return
		}
		joined := map[string]string{}
		for _, e := range c.Entries {
			var d struct {
				Delta json.RawMessage `json:"delta"`
			}
			if e.Event != sessionlog.EventTextDelta && e.Event != sessionlog.EventProviderStreamRawDelta {
				continue
			}
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			var piece string
			if e.Event == sessionlog.EventProviderStreamRawDelta {
				var inner struct {
					Delta string `json:"delta"`
				}
				if err := json.Unmarshal(d.Delta, &inner); err != nil {
					t.Fatal(err)
				}
				piece = inner.Delta
			} else if err := json.Unmarshal(d.Delta, &piece); err != nil {
				t.Fatal(err)
			}
			joined[e.Event] += piece
		}
		for ev, got := range joined {
			if got != text && !withKey {
				t.Fatalf("%s lines join to %q, want %q", ev, got, text)
			}
		}
	})
}
