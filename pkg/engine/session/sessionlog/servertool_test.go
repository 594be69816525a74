package sessionlog_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// A server_tool event arrives in the middle of its provider call's stream. It is held in
// order with the call's streaming events instead of ending the call's hold-back, so a key
// streamed in pieces around it is still judged whole; its own data is kept as logged.
func TestServerToolDoesNotSplitHeldStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	key := "sk-ant-api03-" + randomTail(rng, 40)
	text := "Sure, your key is " + key + " as you said."
	pieces := chunks(text, 5)
	mid := 0
	for i, off := 0, 0; i < len(pieces); i++ { // the piece that ends inside the key
		off += len(pieces[i])
		if off > len("Sure, your key is ")+10 {
			mid = i
			break
		}
	}
	for _, k := range []struct {
		name  string
		kinds streamKinds
	}{{"text_delta", streamKinds{text: true}}, {"all kinds", allKinds}} {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			l := openLogger(t, dir, "s1", 0)
			s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: k.kinds}
			tool := sessionlog.ServerToolData{Name: "web_search", Query: "go 1.26", Input: json.RawMessage(`{"query":"go 1.26"}`),
				ToolUseID: "srvtoolu_1", ExecutionID: "exec-1", Round: 1}
			for i, p := range pieces {
				s.piece(p)
				if i == mid {
					mustLog(t, l, sessionlog.EventServerTool, tool)
				}
			}
			s.respond(text)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			assertKeyUnreadable(t, dir, key, text, pieces)
			c := readAll(t, l.Path())
			assertContiguous(t, c.Entries)
			var before, server int
			for _, e := range c.Entries {
				if e.Event == sessionlog.EventServerTool {
					server++
					var got sessionlog.ServerToolData
					if err := json.Unmarshal(e.Data, &got); err != nil || !reflect.DeepEqual(got, tool) {
						t.Fatalf("server_tool data %s (%v), want %+v", e.Data, err, tool)
					}
					continue
				}
				if server == 0 && e.Event == sessionlog.EventTextDelta {
					before += piecesLogged(t, []sessionlog.Entry{e})[e.Event]
				}
			}
			if server != 1 || before != mid+1 {
				t.Fatalf("%d server_tool entries after %d text delta pieces, want 1 after %d", server, before, mid+1)
			}
		})
	}
}

// With nothing held, a server_tool event has nothing to wait for: it is on disk at once,
// and a stream that follows it is still held back and judged as before.
func TestServerToolWrittenAtOnceWhenNothingHeld(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 0)
	mustLog(t, l, sessionlog.EventServerTool, sessionlog.ServerToolData{Name: "web_search", Query: "q", ExecutionID: "exec-1", Round: 1})
	if c := readAll(t, l.Path()); len(c.Entries) != 1 || c.Entries[0].Event != sessionlog.EventServerTool {
		t.Fatalf("entries before Close %+v, want the server_tool event", c.Entries)
	}
	rng := rand.New(rand.NewPCG(3, 8))
	key := "sk-ant-api03-" + randomTail(rng, 40)
	text := "Found it: " + key + " in the page."
	pieces := chunks(text, 4)
	s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: allKinds}
	for _, p := range pieces {
		s.piece(p)
	}
	s.respond(text)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	assertKeyUnreadable(t, dir, key, text, pieces)
	assertContiguous(t, readAll(t, l.Path()).Entries)
}
