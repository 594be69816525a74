package sessionlog_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// anthropicBody is a native request body of n conversation turns; the last one carries a
// cache breakpoint, as the Anthropic provider sets it, so it changes in the next body.
func anthropicBody(n int, extra string) json.RawMessage {
	var msgs []string
	for i := range n {
		cc := ""
		if i == n-1 {
			cc = `,"cache_control":{"type":"ephemeral"}`
		}
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"turn %d%s"%s}]}`, i, extra, cc))
	}
	return json.RawMessage(`{"max_tokens":1024,"messages":[` + strings.Join(msgs, ",") + `],"model":"claude-x","system":[{"text":"sys","type":"text"}]}`)
}

func nativeRequest(conv, exec string, round int, body json.RawMessage) agent.Event {
	return agent.Event{Type: agent.EventProviderNativeRawPayload, ExecutionID: exec, ConversationID: conv, Round: round,
		RawPayload: &llm.RawPayloadEvent{Provider: "anthropic", APISurface: "messages", PayloadKind: llm.PayloadRequest, Payload: body}}
}

func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// A provider's native request body holds the whole conversation: each one is written as
// what it adds to the previous body of its conversation (the elements both share are not
// written again, a secret in a new one is redacted), and EachNativeRequest rebuilds every
// body exactly.
func TestNativeRequestBodiesAreDeltas(t *testing.T) {
	const key = "sk-ant-api03-NATIVESECRET0123456789abcdefghijk"
	for _, threshold := range []int{0, 128} {
		dir := t.TempDir()
		l := openLogger(t, dir, "s1", threshold)
		bodies := []json.RawMessage{anthropicBody(1, ""), anthropicBody(3, ""), anthropicBody(60, "")}
		evs := []agent.Event{nativeRequest("c", "e1", 1, bodies[0]), nativeRequest("c", "e1", 2, bodies[1]),
			nativeRequest("other", "e9", 1, bodies[1]), nativeRequest("c", "e2", 1, bodies[2])}
		// The last body also has a new message with a secret.
		leaky := strings.Replace(string(bodies[2]), `"model"`, `"metadata":{"note":"key `+key+`"},"model"`, 1)
		leaky = strings.Replace(leaky, `"turn 59"`, `"turn 59 `+key+`"`, 1)
		evs[3].RawPayload.Payload = json.RawMessage(leaky)
		for _, ev := range evs {
			mustLog(t, l, string(ev.Type), ev)
		}
		_ = l.Close()
		assertNoSecretUnder(t, dir, key)
		// Bodies 1 and 2 of c (body 1's turn carried the cache mark) and the body of the
		// other conversation (the same array as body 2: one payload file when moved out);
		// body 3 of c does not write it again.
		if n, want := countUnder(t, dir, `turn 0"`), map[int]int{0: 3, 128: 2}[threshold]; n != want {
			t.Errorf("threshold %d: the first turn was written %d times, want %d", threshold, n, want)
		}
		c := readAll(t, l.Path())
		var bases []string
		for _, e := range c.Entries {
			var d struct {
				RawPayload struct {
					PayloadBase *sessionlog.PayloadBase `json:"payloadBase"`
				} `json:"rawPayload"`
			}
			_ = json.Unmarshal(e.Data, &d)
			if b := d.RawPayload.PayloadBase; b != nil {
				bases = append(bases, fmt.Sprintf("%s/%d:%d", b.ExecutionID, b.Round, b.Shared))
			} else {
				bases = append(bases, "-")
			}
		}
		// Body 2 shares no element (the first body's only turn carried the cache mark), only
		// its other members.
		if want := []string{"-", "e1/1:0", "-", "e1/2:2"}; !reflect.DeepEqual(bases, want) {
			t.Errorf("threshold %d: bases %v, want %v", threshold, bases, want)
		}
		if n := countUnder(t, dir, `"text":"sys"`); n != 2 { // bodies 1 of c and of other
			t.Errorf("threshold %d: the system member was written %d times, want 2", threshold, n)
		}
		var got []string
		err := sessionlog.EachNativeRequest(c.Entries, sessionlog.DirPayloads(dir), func(exec string, round int, body json.RawMessage) error {
			got = append(got, canonical(t, body))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		redacted := strings.ReplaceAll(leaky, key, "[REDACTED]")
		want := []string{canonical(t, bodies[0]), canonical(t, bodies[1]), canonical(t, bodies[1]), canonical(t, []byte(redacted))}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("threshold %d: rebuilt bodies\n%s\nwant\n%s", threshold, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir)); len(v.Issues) != 0 {
			t.Errorf("threshold %d: issues %+v", threshold, v.Issues)
		}
		// Without its base the last body cannot be rebuilt.
		broken := append(append([]sessionlog.Entry{}, c.Entries[:1]...), c.Entries[3])
		if err := sessionlog.EachNativeRequest(broken, sessionlog.DirPayloads(dir), func(string, int, json.RawMessage) error { return nil }); !errors.Is(err, sessionlog.ErrReplay) {
			t.Errorf("threshold %d: rebuild without the base = %v", threshold, err)
		}
		v := sessionlog.ValidateSessionReplayLogEntries(broken, sessionlog.DirPayloads(dir))
		if len(v.Issues) != 1 || v.Issues[0].Code != sessionlog.IssueRequestBaseMissing {
			t.Errorf("threshold %d: issues without the base %+v", threshold, v.Issues)
		}
	}
}

// Bodies that change in every way a provider's may (a new element, a changed last one,
// numbers whose text only grows, members before or after the array changing, whitespace,
// an emptied array, a body that is not an object) are all rebuilt exactly, in one
// conversation, however they are cut.
func TestNativeRequestBodiesRebuildExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	var elems []string
	before, after := `"max_tokens":1024`, `"tools":[{"name":"Read"}]`
	var bodies []string
	for i := range 300 {
		switch rng.IntN(8) {
		case 0:
			if len(elems) > 0 {
				elems[len(elems)-1] = fmt.Sprintf(`{"role":"user","content":"changed %d"}`, i)
			}
		case 1:
			elems = append(elems, strconv.Itoa(rng.IntN(100))) // a bare number may grow: 7 → 74
		case 2:
			if len(elems) > 0 && strings.Trim(elems[len(elems)-1], "0123456789") == "" {
				elems[len(elems)-1] += strconv.Itoa(rng.IntN(10))
			}
		case 3:
			before = fmt.Sprintf(`"max_tokens":%d`, 1000+rng.IntN(3))
		case 4:
			after = fmt.Sprintf(`"tools":[{"name":"Read%d"}]`, rng.IntN(3))
		case 5:
			if rng.IntN(10) == 0 {
				elems = nil
			}
		default:
			elems = append(elems, fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"turn %d \"q\" \\"}]}`, i))
		}
		sep := ","
		if rng.IntN(5) == 0 {
			sep = " ,\n "
		}
		body := `{` + before + `,"messages":[` + strings.Join(elems, sep) + `],` + after + `}`
		if rng.IntN(40) == 0 {
			body = `"not an object"`
		}
		bodies = append(bodies, body)
	}
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 0)
	for i, b := range bodies {
		ev := nativeRequest("c", "e", i+1, json.RawMessage(b))
		mustLog(t, l, string(ev.Type), ev)
	}
	_ = l.Close()
	c := readAll(t, l.Path())
	i := 0
	err := sessionlog.EachNativeRequest(c.Entries, sessionlog.DirPayloads(dir), func(_ string, round int, body json.RawMessage) error {
		if got, want := canonical(t, body), canonical(t, []byte(bodies[round-1])); got != want {
			t.Fatalf("body %d rebuilt as\n%s\nwant\n%s", round, got, want)
		}
		i++
		return nil
	})
	if err != nil || i != len(bodies) {
		t.Fatalf("rebuilt %d of %d bodies: %v", i, len(bodies), err)
	}
	if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir)); len(v.Issues) != 0 {
		t.Errorf("issues %+v", v.Issues[0])
	}
}

// A log reopened by a later process (a session resumed into it) is not read back for the
// last native body: that process's first body of the conversation is written whole (no
// base), the later ones as deltas of it, and EachNativeRequest rebuilds every body,
// including those of logs written before, whose first bodies after a reopen are deltas of
// the earlier process's (testdata/native-reopen-before.jsonl).
func TestNativeRequestBodiesAfterReopen(t *testing.T) {
	const key = "sk-ant-api03-NATIVESECRET0123456789abcdefghijk"
	for _, threshold := range []int{0, 128, -1} {
		dir := t.TempDir()
		leaky := strings.Replace(string(anthropicBody(60, "")), `"model"`, `"metadata":{"note":"key `+key+`"},"model"`, 1)
		processes := [][]agent.Event{
			{nativeRequest("c", "e1", 1, anthropicBody(1, "")), nativeRequest("c", "e1", 2, anthropicBody(3, "")),
				nativeRequest("other", "e9", 1, anthropicBody(3, ""))},
			{nativeRequest("c", "e2", 1, json.RawMessage(leaky)), nativeRequest("c", "e2", 2, anthropicBody(61, ""))},
			{nativeRequest("c", "e3", 1, anthropicBody(62, ""))},
		}
		var want []string
		for _, evs := range processes {
			l, err := sessionlog.Open(dir, "s1", sessionlog.Options{Now: tickingClock(), InlineThreshold: threshold})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				mustLog(t, l, string(ev.Type), ev)
				want = append(want, canonical(t, []byte(strings.ReplaceAll(string(ev.RawPayload.Payload), key, "[REDACTED]"))))
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
		assertNoSecretUnder(t, dir, key)
		if n := countUnder(t, dir, `turn 5"`); n != 2 {
			t.Errorf("threshold %d: turn 5 was written %d times, want 2 (once a process that has it)", threshold, n)
		}
		c := readAll(t, sessionlog.LogPath(dir, "s1"))
		var bases []string
		for _, e := range c.Entries {
			var d struct {
				RawPayload struct {
					PayloadBase *sessionlog.PayloadBase `json:"payloadBase"`
				} `json:"rawPayload"`
			}
			_ = json.Unmarshal(e.Data, &d)
			if b := d.RawPayload.PayloadBase; b != nil {
				bases = append(bases, fmt.Sprintf("%s/%d:%d%v", b.ExecutionID, b.Round, b.Shared, b.Same))
			} else {
				bases = append(bases, "-")
			}
		}
		if w := []string{"-", "e1/1:0[max_tokens model system]", "-", "-",
			"e2/1:59[max_tokens model system]", "-"}; !reflect.DeepEqual(bases, w) {
			t.Errorf("threshold %d: bases %v, want %v", threshold, bases, w)
		}
		var got []string
		err := sessionlog.EachNativeRequest(c.Entries, sessionlog.DirPayloads(dir), func(exec string, round int, body json.RawMessage) error {
			got = append(got, canonical(t, body))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("threshold %d: rebuilt bodies\n%s\nwant\n%s", threshold, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir)); len(v.Issues) != 0 {
			t.Errorf("threshold %d: issues %+v", threshold, v.Issues)
		}
	}
}
