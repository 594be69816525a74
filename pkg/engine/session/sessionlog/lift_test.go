package sessionlog_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// contentFile is the payload file a line's long message content is in: the array's
// (several parts), or its one text part's.
func contentFile(raw json.RawMessage) string {
	var ref sessionlog.PayloadRef
	if json.Unmarshal(raw, &ref) == nil && ref.RelativePath != "" {
		return ref.RelativePath
	}
	var parts []struct {
		Text sessionlog.PayloadRef `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil && len(parts) == 1 {
		return parts[0].Text.RelativePath
	}
	return ""
}

// TestLongAnswerLinesAreUnchanged: a long answer's lines (coalesced deltas, response,
// history) refer to payload files as when their data is encoded whole: read back they
// carry the same data as the message logged in a form the logger does not know (a
// generic tree), redacted, and the deltas, the response and the history share one file.
func TestLongAnswerLinesAreUnchanged(t *testing.T) {
	const key = "sk-ant-api03-Zq8xYtW3vKp2LmN7rS4uJ9hG5fD1sA6e"
	plain := strings.Repeat("a long answer ", 10) + strings.Repeat("and more text ", 10)
	secret := plain + " with the key " + key + " in it"
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 64)
	s := &streamer{t: t, l: l, exec: "exec-1", round: 1, kinds: streamKinds{text: true, raw: true}}
	for _, p := range chunks(plain, 16) {
		s.piece(p)
	}
	s.respond(plain)
	answer := withID(factory.Assistant([]llm.Part{llm.TextPart(plain)}, ""), "id")
	mustLog(t, l, string(agent.EventHistoryMutation), s.event(agent.Event{Type: agent.EventHistoryMutation,
		Mutation: &agent.MutationData{Kind: "append", Index: 0}, Message: &answer}))
	msg := withID(factory.Assistant([]llm.Part{llm.TextPart(secret)}, ""), "a1")
	ev := s.event(agent.Event{Type: agent.EventHistoryMutation, Mutation: &agent.MutationData{Kind: "append", Index: 1}, Message: &msg})
	mustLog(t, l, string(agent.EventHistoryMutation), ev)
	var generic map[string]any // the same data as a generic tree: encoded, redacted and externalized whole
	b, _ := json.Marshal(ev)
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	mustLog(t, l, sessionlog.EventMemory, generic)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	assertNoSecretUnder(t, dir, key)
	c := readAll(t, l.Path())
	contents := map[string]string{} // event → the payload file of its message content
	var hydrated []json.RawMessage
	for _, e := range c.Entries {
		var m struct {
			Message *struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			Response *struct {
				Response struct {
					Message struct {
						Content json.RawMessage `json:"content"`
					} `json:"message"`
				} `json:"response"`
			} `json:"response"`
			Delta json.RawMessage `json:"delta"`
		}
		_ = json.Unmarshal(e.Data, &m)
		if m.Message != nil && contents[e.Event] == "" {
			contents[e.Event] = contentFile(m.Message.Content)
		}
		if m.Response != nil {
			contents[e.Event] = contentFile(m.Response.Response.Message.Content)
		}
		if e.Event == sessionlog.EventTextDelta {
			var ref sessionlog.PayloadRef
			_ = json.Unmarshal(m.Delta, &ref)
			contents[e.Event] = ref.RelativePath
		}
		data, err := sessionlog.Hydrate(e.Data, "s1", sessionlog.DirPayloads(dir))
		if err != nil {
			t.Fatal(err)
		}
		hydrated = append(hydrated, data)
		if e.Event == sessionlog.EventTextDelta || e.Event == sessionlog.EventProviderStreamRawDelta {
			if got := deltaTexts(t, []sessionlog.Entry{{Event: e.Event, Data: data}})[e.Event]; got != plain {
				t.Errorf("%s line reads back %q, want the answer", e.Event, got)
			}
		}
	}
	if r := contents["provider_response_raw"]; r == "" || r != contents["history_mutation"] || r != contents[sessionlog.EventTextDelta] {
		t.Errorf("deltas, response and history content in payload files %q, %q and %q, want one",
			contents[sessionlog.EventTextDelta], r, contents["history_mutation"])
	}
	var lifted, whole map[string]any
	_ = json.Unmarshal(hydrated[len(hydrated)-2], &lifted)
	_ = json.Unmarshal(hydrated[len(hydrated)-1], &whole)
	if !reflect.DeepEqual(lifted, whole) {
		t.Errorf("history append reads back\n%s\nwant as the generic tree\n%s", hydrated[len(hydrated)-2], hydrated[len(hydrated)-1])
	}
	r, err := sessionlog.ReplaySessionLogEntries(c.Entries, sessionlog.DirPayloads(dir))
	if err != nil || len(r.Messages) != 2 || r.Messages[0].Text() != plain || r.Messages[1].Text() != redact.String(secret) {
		t.Fatalf("replay: %v, %v", r.Messages, err)
	}
}
