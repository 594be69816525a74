package sessionlog_test

import (
	"encoding/json"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// TestAnswerIsWrittenOnceAndReferred: the answer in provider_response_normalized,
// assistant_message_committed and assistant is written as a reference to the line that
// holds it (the raw response, the history append); a message that differs is written
// whole; the log still validates and replays.
func TestAnswerIsWrittenOnceAndReferred(t *testing.T) {
	for _, tc := range []struct {
		name       string
		normalized func(llm.Message) llm.Message
		referred   bool
	}{
		{"same message", func(m llm.Message) llm.Message { return m }, true},
		{"changed by normalization", func(m llm.Message) llm.Message { m.State = llm.StateInterrupted; return m }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			l := openLogger(t, dir, "s1", 0)
			s := &streamer{t: t, l: l, exec: "exec-1", round: 1}
			user := withID(factory.User("hi"), "u1")
			mustLog(t, l, string(agent.EventHistoryMutation), s.event(agent.Event{Type: agent.EventHistoryMutation,
				Mutation: &agent.MutationData{Kind: "append", Index: 0}, Message: &user}))
			mustLog(t, l, string(agent.EventProviderRequest), s.event(agent.Event{Type: agent.EventProviderRequest,
				Request: &agent.ProviderRequestData{Provider: "p", Model: "m", Messages: []llm.Message{user}}}))
			mustLog(t, l, sessionlog.EventProviderNativeRawPayload, s.event(agent.Event{Type: agent.EventProviderNativeRawPayload,
				RawPayload: &llm.RawPayloadEvent{Provider: "p", PayloadKind: llm.PayloadResponse, Payload: json.RawMessage(`{}`)}}))
			answer := factory.Assistant([]llm.Part{llm.TextPart("the answer")}, "")
			s.respond("the answer") // the same message, as the provider returned it
			norm := tc.normalized(answer)
			mustLog(t, l, string(agent.EventProviderResponseNormalized), s.event(agent.Event{Type: agent.EventProviderResponseNormalized,
				Response: &agent.ResponseData{Response: llm.ChatResponse{Message: norm, StopReason: "end_turn"}}}))
			committed := withID(answer, "a1")
			mustLog(t, l, string(agent.EventHistoryMutation), s.event(agent.Event{Type: agent.EventHistoryMutation,
				Mutation: &agent.MutationData{Kind: "append", Index: 1}, Message: &committed}))
			mustLog(t, l, string(agent.EventAssistantMessageCommitted), s.event(agent.Event{Type: agent.EventAssistantMessageCommitted,
				Message: &committed}))
			mustLog(t, l, sessionlog.EventAssistant, sessionlog.NewAssistantData("the answer", []llm.Message{user, committed}, 0))
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}

			c := readAll(t, l.Path())
			seq := map[string]int64{}
			data := map[string]map[string]json.RawMessage{}
			for _, e := range c.Entries {
				seq[e.Event] = e.Sequence // the last of each: the answer's history append
				var m map[string]json.RawMessage
				if err := json.Unmarshal(e.Data, &m); err != nil {
					t.Fatal(err)
				}
				data[e.Event] = m
			}
			var resp struct {
				MessageRef *sessionlog.LineRef `json:"messageRef"`
				Response   struct {
					Message *llm.Message `json:"message"`
				} `json:"response"`
			}
			if err := json.Unmarshal(data["provider_response_normalized"]["response"], &resp); err != nil {
				t.Fatal(err)
			}
			if tc.referred {
				if resp.MessageRef == nil || resp.MessageRef.Sequence != seq["provider_response_raw"] || resp.Response.Message != nil {
					t.Errorf("normalized response %s, want a messageRef to line %d instead of the message",
						data["provider_response_normalized"]["response"], seq["provider_response_raw"])
				}
			} else if resp.MessageRef != nil || resp.Response.Message == nil || resp.Response.Message.State != llm.StateInterrupted {
				t.Errorf("normalized response %s, want its own message", data["provider_response_normalized"]["response"])
			}
			var ref sessionlog.LineRef
			if err := json.Unmarshal(data["assistant_message_committed"]["messageRef"], &ref); err != nil || ref.Sequence != seq["history_mutation"] ||
				data["assistant_message_committed"]["message"] != nil {
				t.Errorf("assistant_message_committed %v, want a messageRef to line %d", data["assistant_message_committed"], seq["history_mutation"])
			}
			if err := json.Unmarshal(data["assistant"]["contentRef"], &ref); err != nil || ref.Sequence != seq["history_mutation"] ||
				data["assistant"]["content"] != nil {
				t.Errorf("assistant %v, want a contentRef to line %d", data["assistant"], seq["history_mutation"])
			}
			if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir)); !v.OK {
				t.Errorf("validation: %+v", v.Issues)
			}
			r, err := sessionlog.ReplaySessionLogEntries(c.Entries, sessionlog.DirPayloads(dir))
			if err != nil || messageIDs(r.Messages) != "u1,a1" {
				t.Errorf("replay: %v %v", messageIDs(r.Messages), err)
			}
		})
	}
}
