package sessionlog_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// Which streaming events carry each piece of an answer.
type streamKinds struct{ native, raw, text bool }

var allKinds = streamKinds{native: true, raw: true, text: true}

// streamer logs a provider call's streaming events the way the agent and session do:
// per piece, the provider's stream event, then the agent's raw delta, then the
// session's text_delta.
type streamer struct {
	t     *testing.T
	l     *sessionlog.FileLogger
	exec  string
	round int
	kinds streamKinds
	seq   int64
}

func (s *streamer) piece(p string) {
	s.t.Helper()
	s.seq++
	if s.kinds.native {
		payload, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": p}})
		mustLog(s.t, s.l, sessionlog.EventProviderNativeRawPayload, s.event(agent.Event{Type: agent.EventProviderNativeRawPayload,
			RawPayload: &llm.RawPayloadEvent{Provider: "anthropic", PayloadKind: llm.PayloadStreamEvent, Sequence: s.seq, Payload: payload}}))
	}
	if s.kinds.raw {
		mustLog(s.t, s.l, sessionlog.EventProviderStreamRawDelta, s.event(agent.Event{Type: agent.EventProviderStreamRawDelta,
			Delta: &agent.DeltaData{Sequence: s.seq, Delta: p}}))
	}
	if s.kinds.text {
		mustLog(s.t, s.l, sessionlog.EventTextDelta, sessionlog.TextDeltaData{Delta: p, ExecutionID: s.exec})
	}
}

func (s *streamer) event(e agent.Event) agent.Event {
	e.ExecutionID, e.ConversationID, e.Round, e.Timestamp = s.exec, "conv-1", s.round, epoch
	return e
}

// respond logs the end of the call: the raw response with the whole answer.
func (s *streamer) respond(answer string) {
	s.t.Helper()
	resp := llm.ChatResponse{Message: factory.Assistant([]llm.Part{llm.TextPart(answer)}, ""), StopReason: "end_turn"}
	mustLog(s.t, s.l, sessionlog.EventProviderResponseRaw, s.event(agent.Event{Type: agent.EventProviderResponseRaw,
		Response: &agent.ResponseData{Response: resp, ResponseKind: agent.ResponseKindNormalized}}))
}

func chunks(s string, size int) []string {
	var out []string
	for len(s) > size {
		out = append(out, s[:size])
		s = s[size:]
	}
	return append(out, s)
}

func randomTail(rng *rand.Rand, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	b[5] = '7' // OpenAI-style keys need a digit
	return string(b)
}

// deltaTexts joins, per event kind, the streamed text the log's entries carry.
func deltaTexts(t *testing.T, entries []sessionlog.Entry) map[string]string {
	t.Helper()
	joined := map[string]*strings.Builder{}
	add := func(kind, s string) {
		if joined[kind] == nil {
			joined[kind] = &strings.Builder{}
		}
		joined[kind].WriteString(s)
	}
	for _, e := range entries {
		var d struct {
			Delta      json.RawMessage `json:"delta"`
			RawPayload *struct {
				PayloadKind string          `json:"payloadKind"`
				Payload     json.RawMessage `json:"payload"`
			} `json:"rawPayload"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("entry %d: %v", e.Sequence, err)
		}
		switch e.Event {
		case sessionlog.EventTextDelta:
			var s string
			_ = json.Unmarshal(d.Delta, &s)
			add(e.Event, s)
		case sessionlog.EventProviderStreamRawDelta:
			var dd agent.DeltaData
			_ = json.Unmarshal(d.Delta, &dd)
			add(e.Event, dd.Delta)
		case sessionlog.EventProviderNativeRawPayload:
			var p struct {
				Delta struct{ Text string } `json:"delta"`
			}
			if d.RawPayload != nil && d.RawPayload.PayloadKind == "stream_event" {
				_ = json.Unmarshal(d.RawPayload.Payload, &p)
				add(e.Event, p.Delta.Text)
			}
		}
	}
	out := map[string]string{}
	for k, b := range joined {
		out[k] = b.String()
	}
	return out
}

// assertKeyUnreadable fails when any file under dir, or the streamed text the log's
// entries reassemble, holds 12 consecutive characters of key, or when a file holds the
// part of key that one of pieces carried (when longer than 3 characters).
func assertKeyUnreadable(t *testing.T, dir, key, text string, pieces []string) {
	t.Helper()
	var keyPieces []string
	start, off := strings.Index(text, key), 0
	for _, p := range pieces {
		lo, hi := max(off, start), min(off+len(p), start+len(key))
		if hi-lo > 3 {
			keyPieces = append(keyPieces, text[lo:hi])
		}
		off += len(p)
	}
	var runs []string
	for i := 0; i+12 <= len(key); i++ {
		runs = append(runs, key[i:i+12])
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range append(runs, keyPieces...) {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q, part of the key", filepath.Base(path), s)
			}
		}
		if strings.HasSuffix(path, ".jsonl") {
			c, err := sessionlog.ReadLogFile(path)
			if err != nil {
				return err
			}
			for kind, joined := range deltaTexts(t, c.Entries) {
				for _, s := range runs {
					if strings.Contains(joined, s) {
						t.Errorf("the %s events, read in order, spell %q of the key: %q", kind, s, joined)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func assertContiguous(t *testing.T, entries []sessionlog.Entry) {
	t.Helper()
	for i, e := range entries {
		if e.Sequence != int64(i+1) {
			t.Fatalf("line %d has sequence %d", i+1, e.Sequence)
		}
		if i > 0 && e.Timestamp.Before(entries[i-1].Timestamp) {
			t.Fatalf("timestamps go backwards at line %d", i+1)
		}
	}
}

func countWithheld(entries []sessionlog.Entry) int {
	n := 0
	for _, e := range entries {
		if strings.Contains(string(e.Data), sessionlog.WithheldNote) {
			n++
		}
	}
	return n
}

// piecesLogged counts, per event kind, the streamed pieces the log's entries carry: a
// coalesced text delta line carries "pieces" of them (one when the member is absent), a
// native stream event one.
func piecesLogged(t *testing.T, entries []sessionlog.Entry) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, e := range entries {
		var d struct {
			Pieces int `json:"pieces"`
			Delta  struct {
				Pieces int `json:"pieces"`
			} `json:"delta"`
			RawPayload *struct {
				PayloadKind string `json:"payloadKind"`
			} `json:"rawPayload"`
		}
		switch e.Event {
		case sessionlog.EventTextDelta, sessionlog.EventProviderStreamRawDelta, sessionlog.EventProviderNativeRawPayload:
			_ = json.Unmarshal(e.Data, &d) // the text delta's "delta" is a string: Delta stays zero
		default:
			continue
		}
		n := max(d.Pieces, d.Delta.Pieces, 1)
		if e.Event == sessionlog.EventProviderNativeRawPayload {
			if d.RawPayload == nil || d.RawPayload.PayloadKind != "stream_event" {
				continue
			}
			n = 1
		}
		out[e.Event] += n
	}
	return out
}

// TestSplitSecretNeverReachesDisk streams answers holding a secret in small pieces,
// through each streaming event kind and all three together, ending the call with its
// response or with Close.
func TestSplitSecretNeverReachesDisk(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 5))
	secrets := []struct{ name, secret, key string }{
		{"anthropic key", "", "sk-ant-api03-" + randomTail(rng, 40)},
		{"openai key", "", "sk-proj-" + randomTail(rng, 40)},
		{"bearer token", "Authorization: Bearer ", randomTail(rng, 40)},
		{"env assignment", "OPENAI_API_KEY=", randomTail(rng, 40)},
	}
	kinds := []struct {
		name  string
		kinds streamKinds
	}{
		{"text_delta", streamKinds{text: true}},
		{"raw delta", streamKinds{raw: true}},
		{"native stream event", streamKinds{native: true}},
		{"all kinds", allKinds},
	}
	for _, sc := range secrets {
		for _, k := range kinds {
			for _, size := range []int{1, 3, 6, 7} {
				for _, end := range []string{"response", "close"} {
					t.Run(fmt.Sprintf("%s/%s/%d/%s", sc.name, k.name, size, end), func(t *testing.T) {
						dir := t.TempDir()
						l := openLogger(t, dir, "s1", 0)
						text := "Sure, your key is " + sc.secret + sc.key + " as you said. Anything else?"
						pieces := chunks(text, size)
						s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: k.kinds}
						for _, p := range pieces {
							s.piece(p)
						}
						if end == "response" {
							s.respond(text)
						}
						if err := l.Close(); err != nil {
							t.Fatal(err)
						}
						assertKeyUnreadable(t, dir, sc.key, text, pieces)
						c := readAll(t, l.Path())
						want := map[string]int{}
						for kind, on := range map[string]bool{"text_delta": k.kinds.text, "provider_stream_raw_delta": k.kinds.raw,
							"provider_native_raw_payload": k.kinds.native} {
							if on {
								want[kind] = len(pieces)
							}
						}
						if got := piecesLogged(t, c.Entries); !maps.Equal(got, want) {
							t.Fatalf("pieces logged %v, want %v (every streaming event is still logged)", got, want)
						}
						assertContiguous(t, c.Entries)
						if countWithheld(c.Entries) == 0 {
							t.Fatalf("no entry says its text was withheld")
						}
					})
				}
			}
		}
	}
}

// TestOrdinaryStreamIsLoggedUnchanged: without a secret every piece is written as it came,
// in order, with contiguous sequences, and the round still validates and replays.
func TestOrdinaryStreamIsLoggedUnchanged(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 0)
	answer := strings.Repeat("The quick brown fox jumps over the lazy dog, {twice}: a=b. ", 4) + "Done"
	pieces := chunks(answer, 5)
	s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: allKinds}
	user := withID(factory.User("tell me"), "u1")
	mustLog(t, l, string(agent.EventHistoryMutation), s.event(agent.Event{Type: agent.EventHistoryMutation,
		Mutation: &agent.MutationData{Kind: "append", Index: 0}, Message: &user}))
	mustLog(t, l, string(agent.EventProviderRequest), s.event(agent.Event{Type: agent.EventProviderRequest,
		Request: &agent.ProviderRequestData{Provider: "anthropic", Model: "m", Messages: []llm.Message{user}}}))
	for _, p := range pieces {
		s.piece(p)
	}
	s.respond(answer)
	msg := withID(factory.Assistant([]llm.Part{llm.TextPart(answer)}, ""), "a1")
	resp := llm.ChatResponse{Message: msg, StopReason: "end_turn"}
	mustLog(t, l, string(agent.EventProviderResponseNormalized), s.event(agent.Event{Type: agent.EventProviderResponseNormalized,
		Response: &agent.ResponseData{Response: resp}}))
	mustLog(t, l, string(agent.EventHistoryMutation), s.event(agent.Event{Type: agent.EventHistoryMutation,
		Mutation: &agent.MutationData{Kind: "append", Index: 1}, Message: &msg}))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	c := readAll(t, l.Path())
	assertContiguous(t, c.Entries)
	if n := countWithheld(c.Entries); n != 0 {
		t.Fatalf("%d entries withheld from an answer without a secret", n)
	}
	var events []string
	for _, e := range c.Entries {
		events = append(events, e.Event)
	}
	// The call's text deltas are coalesced, one line per kind where its first piece came;
	// the native stream events stay one a line.
	want := []string{"history_mutation", "provider_request", "provider_native_raw_payload", "provider_stream_raw_delta", "text_delta"}
	for range pieces[1:] {
		want = append(want, "provider_native_raw_payload")
	}
	want = append(want, "provider_response_raw", "provider_response_normalized", "history_mutation")
	if strings.Join(events, " ") != strings.Join(want, " ") {
		t.Fatalf("events in the log:\n%v\nwant\n%v", events, want)
	}
	var got []sessionlog.TextDeltaData
	for _, e := range c.Entries {
		if e.Event == sessionlog.EventTextDelta {
			var d sessionlog.TextDeltaData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].Delta != answer || got[0].Pieces != len(pieces) || got[0].ExecutionID != "exec-1" {
		t.Fatalf("text deltas %+v, want the answer in one line of %d pieces", got, len(pieces))
	}
	for kind, joined := range deltaTexts(t, c.Entries) {
		if joined != answer {
			t.Errorf("%s events join to %q, want the answer", kind, joined)
		}
	}
	if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir)); !v.OK {
		t.Errorf("validation: %+v", v.Issues)
	}
	r, err := sessionlog.ReplaySessionLogEntries(c.Entries, sessionlog.DirPayloads(dir))
	if err != nil || messageIDs(r.Messages) != "u1,a1" {
		t.Errorf("replay: %v %v", messageIDs(r.Messages), err)
	}
}

// loggedTextDeltas reads the text_delta entries on disk now (the logger stays open).
func loggedTextDeltas(t *testing.T, l *sessionlog.FileLogger) []string {
	t.Helper()
	var out []string
	for _, e := range readAll(t, l.Path()).Entries {
		if e.Event == sessionlog.EventTextDelta {
			var d sessionlog.TextDeltaData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d.Delta)
		}
	}
	return out
}

// TestHeldPiecesAreWrittenWhenSettled: once the oldest held piece is CoalesceInterval
// old (by the logger's clock), the pieces up to the settled cut (the text before it ends
// with whitespace, so nothing later can make it part of a secret) are on disk, in one
// line; the rest when the next non-streaming event arrives, before that event.
func TestHeldPiecesAreWrittenWhenSettled(t *testing.T) {
	// The logger's clock stands still until the test moves it; the interval is long enough
	// that the real-clock timer never fires during the test.
	var mu sync.Mutex
	now := epoch
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	l, err := sessionlog.Open(t.TempDir(), "s1", sessionlog.Options{Now: clock, CoalesceInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: streamKinds{text: true}}
	for _, p := range []string{"Once ", "upon "} {
		s.piece(p)
	}
	if got := loggedTextDeltas(t, l); len(got) != 0 {
		t.Fatalf("on disk before the interval: %q, want nothing", got)
	}
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	for _, p := range []string{"a ", "ti", "me"} {
		s.piece(p)
	}
	if got := strings.Join(loggedTextDeltas(t, l), "|"); got != "Once upon a " {
		t.Fatalf("on disk while streaming: %q, want the settled pieces in one line %q", got, "Once upon a ")
	}
	mustLog(t, l, sessionlog.EventError, sessionlog.ErrorData{Error: "boom"})
	c := readAll(t, l.Path())
	assertContiguous(t, c.Entries)
	if got := strings.Join(loggedTextDeltas(t, l), "|"); got != "Once upon a |time" || c.Entries[len(c.Entries)-1].Event != "error" {
		t.Fatalf("after the next event: %q, last %s", got, c.Entries[len(c.Entries)-1].Event)
	}

	// A piece completing a key taints the call: nothing more goes out early.
	s.piece("key sk-ant-api03-abcd")
	s.piece("efghijklmn ok ")
	s.piece("more words ")
	s.piece("and more ")
	if got := loggedTextDeltas(t, l); len(got) != 2 {
		t.Fatalf("on disk after a key: %q, want only the previous call's lines", got)
	}
}

// TestHeldPiecesAreWrittenWhenDue: pieces held while the stream pauses are written by a
// timer once the oldest is CoalesceInterval old, without waiting for another event.
func TestHeldPiecesAreWrittenWhenDue(t *testing.T) {
	l, err := sessionlog.Open(t.TempDir(), "s1", sessionlog.Options{Now: tickingClock(), CoalesceInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: streamKinds{text: true, raw: true}}
	for _, p := range []string{"Once ", "upon ", "a ti"} {
		s.piece(p)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(loggedTextDeltas(t, l)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("held pieces not written 10 s after they were due")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := strings.Join(loggedTextDeltas(t, l), "|"); got != "Once upon " {
		t.Fatalf("written when due: %q, want the settled pieces %q", got, "Once upon ")
	}
	if got := deltaTexts(t, readAll(t, l.Path()).Entries)["provider_stream_raw_delta"]; got != "Once upon " {
		t.Fatalf("raw deltas written when due: %q", got)
	}
}

// TestHeldPiecesAreWrittenOnClose: a call still streaming when the log is closed (or
// synced) is written then, unchanged without a secret and withheld with one.
func TestHeldPiecesAreWrittenOnClose(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		withheld   bool
	}{
		{"ordinary", "no secret in this stream at all", false},
		{"with a key", "my key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz", true},
	} {
		for _, sync := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sync=%v", tc.name, sync), func(t *testing.T) {
				l := openLogger(t, t.TempDir(), "s1", 0)
				s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: allKinds}
				pieces := chunks(tc.text, 4)
				for _, p := range pieces {
					s.piece(p)
				}
				if sync {
					if err := l.Sync(); err != nil {
						t.Fatal(err)
					}
				} else if err := l.Close(); err != nil {
					t.Fatal(err)
				}
				c := readAll(t, l.Path())
				assertContiguous(t, c.Entries)
				if len(c.Entries) != len(pieces)+2 { // the native events, one line per delta kind
					t.Fatalf("%d entries, want %d", len(c.Entries), len(pieces)+2)
				}
				joined := deltaTexts(t, c.Entries)
				for _, kind := range []string{"text_delta", "provider_stream_raw_delta", "provider_native_raw_payload"} {
					if tc.withheld && strings.Contains(joined[kind], "abcd") || !tc.withheld && joined[kind] != tc.text {
						t.Errorf("%s events join to %q", kind, joined[kind])
					}
				}
				if n := countWithheld(c.Entries); (n > 0) != tc.withheld {
					t.Errorf("%d of %d entries withheld", n, len(c.Entries))
				}
			})
		}
	}
}

// TestHoldBackIsBounded: a stream with no settled cut is written, withheld, once the
// queue passes its bound, and the rest of that call stays withheld; the next call
// streams normally.
func TestHoldBackIsBounded(t *testing.T) {
	l := openLogger(t, t.TempDir(), "s1", 0)
	s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: streamKinds{text: true}}
	word := strings.Repeat("x", 1<<20-1024) // no whitespace: nothing is ever settled
	for range 5 {
		s.piece(word)
	}
	c := readAll(t, l.Path())
	if len(c.Entries) != 1 || countWithheld(c.Entries) != 1 || piecesLogged(t, c.Entries)["text_delta"] != 5 {
		t.Fatalf("past 4 MiB: %d entries on disk, %d withheld, pieces %v; want the 5 pieces in 1 withheld line",
			len(c.Entries), countWithheld(c.Entries), piecesLogged(t, c.Entries))
	}
	s.piece("the rest of the same call ")
	s.respond("x")
	s.round = 2
	s.piece("next call ")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	c = readAll(t, l.Path())
	assertContiguous(t, c.Entries)
	got := loggedTextDeltas(t, l)
	if len(got) != 3 || got[1] != "" || got[2] != "next call " {
		t.Fatalf("text deltas after the bound: %d, last two %q", len(got), got[len(got)-2:])
	}
}

// TestInterleavedCallsAreJudgedApart: a secret in one execution's stream withholds that
// execution's pieces only.
func TestInterleavedCallsAreJudgedApart(t *testing.T) {
	l := openLogger(t, t.TempDir(), "s1", 0)
	a := &streamer{t: t, l: l, exec: "exec-a", round: 1, kinds: allKinds}
	b := &streamer{t: t, l: l, exec: "exec-b", round: 1, kinds: allKinds}
	secret := chunks("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz ok", 5)
	plain := chunks("an ordinary answer of the other call, streamed alongside", 5)
	for i := range max(len(secret), len(plain)) {
		if i < len(secret) {
			a.piece(secret[i])
		}
		if i < len(plain) {
			b.piece(plain[i])
		}
	}
	a.respond("done")
	c := readAll(t, l.Path())
	assertContiguous(t, c.Entries)
	texts := map[string]*strings.Builder{"exec-a": {}, "exec-b": {}}
	for _, e := range c.Entries {
		var d sessionlog.TextDeltaData
		if e.Event == sessionlog.EventTextDelta && json.Unmarshal(e.Data, &d) == nil {
			texts[d.ExecutionID].WriteString(d.Delta)
		}
	}
	if got := texts["exec-a"].String(); strings.Contains(got, "abcd") {
		t.Fatalf("exec-a's text deltas spell out its key: %q", got)
	}
	if got := texts["exec-b"].String(); got != strings.Join(plain, "") {
		t.Fatalf("exec-b's text %q, want it unchanged", got)
	}
}

// TestConcurrentStreamingAndEvents logs streams and other events from several goroutines
// (run with -race): every event is written once, in one numbering.
func TestConcurrentStreamingAndEvents(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 64)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &streamer{t: t, l: l, exec: fmt.Sprintf("exec-%d", g), round: 1, kinds: allKinds}
			for i := range 40 {
				if g%3 == 0 && i%10 == 9 {
					mustLog(t, l, sessionlog.EventError, sessionlog.ErrorData{Error: fmt.Sprintf("e%d-%d", g, i)})
					continue
				}
				s.piece(fmt.Sprintf("g%d-%d %s", g, i, strings.Repeat("z", i)))
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	c := readAll(t, l.Path())
	if len(c.Skipped) != 0 {
		t.Fatalf("%d skipped lines", len(c.Skipped))
	}
	assertContiguous(t, c.Entries)
	pieces, errs := 2*36+4*40, 0
	want := map[string]int{"text_delta": pieces, "provider_stream_raw_delta": pieces, "provider_native_raw_payload": pieces}
	if got := piecesLogged(t, c.Entries); !maps.Equal(got, want) {
		t.Fatalf("pieces logged %v, want %v", got, want)
	}
	texts := map[string]*strings.Builder{}
	for _, e := range c.Entries {
		var d sessionlog.TextDeltaData
		switch e.Event {
		case sessionlog.EventError:
			errs++
		case sessionlog.EventTextDelta:
			data, err := sessionlog.Hydrate(e.Data, "s1", sessionlog.DirPayloads(dir)) // long lines' text is in payload files
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &d); err != nil {
				t.Fatal(err)
			}
			if texts[d.ExecutionID] == nil {
				texts[d.ExecutionID] = &strings.Builder{}
			}
			texts[d.ExecutionID].WriteString(d.Delta)
		}
	}
	if errs != 8 {
		t.Fatalf("%d error entries, want 8", errs)
	}
	for g := range 6 { // each execution's pieces in the order they came
		var want strings.Builder
		for i := range 40 {
			if !(g%3 == 0 && i%10 == 9) {
				fmt.Fprintf(&want, "g%d-%d %s", g, i, strings.Repeat("z", i))
			}
		}
		if got := texts[fmt.Sprintf("exec-%d", g)].String(); got != want.String() {
			t.Errorf("exec-%d's text deltas join to %q, want %q", g, got, want.String())
		}
	}
}

// TestTextAndRawDeltasThatDiffer: a call's text and raw deltas usually carry the same
// text (the logger keeps it once); when they differ, each is still logged as it came and
// judged as its own text.
func TestTextAndRawDeltasThatDiffer(t *testing.T) {
	for _, tc := range []struct {
		name, key string
	}{{"plain", "no key here"}, {"key in the text deltas only", "key sk-ant-api03-abcdefghijklmnop"}} {
		t.Run(tc.name, func(t *testing.T) {
			l := openLogger(t, t.TempDir(), "s1", 0)
			s := &streamer{t: t, l: l, exec: "exec-1", round: 1}
			raw := func(p string) {
				mustLog(t, l, sessionlog.EventProviderStreamRawDelta, s.event(agent.Event{Type: agent.EventProviderStreamRawDelta,
					Delta: &agent.DeltaData{Delta: p}}))
			}
			text := func(p string) {
				mustLog(t, l, sessionlog.EventTextDelta, sessionlog.TextDeltaData{Delta: p, ExecutionID: "exec-1"})
			}
			raw("Hello ")
			text("Hello ")
			raw("world, ")
			text("there, ")
			text(tc.key[:len(tc.key)/2])
			raw("nothing ")
			text(tc.key[len(tc.key)/2:] + " ")
			raw("at all")
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			got := deltaTexts(t, readAll(t, l.Path()).Entries)
			if tc.name == "plain" {
				if got["provider_stream_raw_delta"] != "Hello world, nothing at all" || got["text_delta"] != "Hello there, no key here " {
					t.Errorf("deltas join to %q", got)
				}
				return
			}
			if strings.Contains(got["text_delta"], "abcd") || got["provider_stream_raw_delta"] != "" {
				t.Errorf("deltas join to %q, want the call withheld", got)
			}
		})
	}
}
