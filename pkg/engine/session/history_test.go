package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

func TestHistory_InjectAddEntryClear(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: ok\n")
	lg := &recLogger{t: t}
	s := newSession(t, session.Config{Provider: p, Logger: lg})
	if err := s.InjectMessage(llm.RoleUser, "earlier question"); err != nil {
		t.Fatal(err)
	}
	if err := s.InjectMessage(llm.RoleAssistant, "earlier answer"); err != nil {
		t.Fatal(err)
	}
	if err := s.InjectMessage(llm.RoleTool, "x"); !errors.Is(err, session.ErrInvalidEntry) {
		t.Fatalf("tool injection: %v", err)
	}
	summary := session.HistoryEntry{Category: session.CategoryEvent, Type: "tool-summary", Data: json.RawMessage(`{"tools":1}`)}
	if err := s.AddHistoryEntry(summary); err != nil {
		t.Fatal(err)
	}
	chat := session.MessageToHistoryEntry(llm.NewUserMessage("via entry"))
	if err := s.AddHistoryEntry(chat); err != nil {
		t.Fatal(err)
	}
	if err := s.AddHistoryEntry(session.HistoryEntry{Category: "bogus"}); !errors.Is(err, session.ErrInvalidEntry) {
		t.Fatalf("bogus entry: %v", err)
	}
	if got := roles(s.Messages()); got != "system,user,assistant,user" {
		t.Fatalf("messages %s", got)
	}
	full := s.FullHistory()
	var kinds []string
	for _, e := range full {
		kinds = append(kinds, e.Category+":"+e.Type)
	}
	want := "[chat:system chat:user chat:assistant event:tool-summary chat:user]"
	if got := fmt.Sprint(kinds); got != want {
		t.Fatalf("full history %s, want %s", got, want)
	}
	// The starting history (the system message) as a reset, then one append per message.
	var mutations []string
	for _, e := range lg.of("history_mutation") {
		mutations = append(mutations, e.data["mutation"].(map[string]any)["kind"].(string))
	}
	if got := fmt.Sprint(mutations); got != "[reset append append append]" {
		t.Fatalf("history_mutation kinds %s, want [reset append append append]", got)
	}

	// The timeline survives a save and a resume with its events in place.
	rec := s.Record()
	resumed := newSession(t, session.Config{Provider: p, Resume: &rec})
	var again []string
	for _, e := range resumed.FullHistory() {
		again = append(again, e.Category+":"+e.Type)
	}
	if got := fmt.Sprint(again); got != want {
		t.Fatalf("resumed full history %s, want %s", got, want)
	}
	// EventEntries is the timeline's events alone.
	if ev := resumed.EventEntries(); len(ev) != 1 || ev[0].Type != "tool-summary" || string(ev[0].Data) != `{"tools":1}` {
		t.Fatalf("event entries %+v, want the tool summary alone", ev)
	}

	if err := s.ClearHistory(); err != nil {
		t.Fatal(err)
	}
	if got := roles(s.Messages()); got != "system" || len(s.FullHistory()) != 1 {
		t.Fatalf("after clear: %s, %d entries", got, len(s.FullHistory()))
	}
	if st := s.ContextState(); st.UsedTokens == 0 || st.UsedTokens > 100 {
		t.Fatalf("context after clear %+v", st)
	}
}

func TestPermissionMode_GetSet(t *testing.T) {
	p := newProvider(t, "turns:\n  - toolCalls: [{id: c1, name: T}]\n  - text: done\n")
	var seen []session.PermissionMode
	eval := &fakeEvaluator{fn: func(_ session.PermissionRequest, m session.PermissionMode) session.PermissionDecision {
		seen = append(seen, m)
		return session.PermissionDecision{Behavior: session.BehaviorAllow}
	}}
	s := newSession(t, session.Config{Provider: p, Evaluator: eval, Tools: []llm.Tool{&funcTool{name: "T"}}})
	if s.PermissionMode() != session.DefaultPermissionMode {
		t.Fatalf("initial mode %q", s.PermissionMode())
	}
	s.SetPermissionMode("plan")
	mustRun(t, s, "go")
	if len(seen) != 1 || seen[0] != "plan" {
		t.Fatalf("evaluator saw modes %v", seen)
	}
}

// TruncateHistory keeps the first n messages and the events anchored within them, and
// refuses an n outside the conversation.
func TestHistory_Truncate(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: ok\n")
	s := newSession(t, session.Config{Provider: p})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.InjectMessage(llm.RoleUser, "q1"))
	must(s.AddHistoryEntry(session.HistoryEntry{Category: session.CategoryEvent, Type: "kept", Data: json.RawMessage(`{}`)}))
	must(s.InjectMessage(llm.RoleAssistant, "a1"))
	must(s.InjectMessage(llm.RoleUser, "q2"))
	must(s.AddHistoryEntry(session.HistoryEntry{Category: session.CategoryEvent, Type: "dropped", Data: json.RawMessage(`{}`)}))
	must(s.InjectMessage(llm.RoleAssistant, "a2"))
	for _, n := range []int{-1, 0, 6} {
		if err := s.TruncateHistory(context.Background(), n); !errors.Is(err, session.ErrInvalidEntry) {
			t.Errorf("TruncateHistory(%d) = %v, want ErrInvalidEntry", n, err)
		}
	}
	must(s.TruncateHistory(context.Background(), 3))
	var kinds []string
	for _, e := range s.FullHistory() {
		kinds = append(kinds, e.Category+":"+e.Type)
	}
	if got, want := fmt.Sprint(kinds), "[chat:system chat:user event:kept chat:assistant]"; got != want {
		t.Fatalf("after truncation %s, want %s", got, want)
	}
	if rec := s.Record(); len(rec.Messages) != 3 || len(rec.Events) != 1 {
		t.Fatalf("record: %d messages, %d events", len(rec.Messages), len(rec.Events))
	}
}

// SetSystemMessage replaces the system prompt in the conversation, for the next request,
// after a clear, and in the record; the rest of the conversation and its events stay.
func TestHistory_SetSystemMessage(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: ok\n    repeat: true\n")
	s := newSession(t, session.Config{Provider: p})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.InjectMessage(llm.RoleUser, "q1"))
	must(s.AddHistoryEntry(session.HistoryEntry{Category: session.CategoryEvent, Type: "kept", Data: json.RawMessage(`{}`)}))
	if err := s.SetSystemMessage(context.Background(), ""); !errors.Is(err, session.ErrInvalidEntry) {
		t.Errorf("empty system message: %v", err)
	}
	must(s.SetSystemMessage(context.Background(), "Respond in French."))
	var kinds []string
	for _, e := range s.FullHistory() {
		kinds = append(kinds, e.Category+":"+e.Type)
	}
	if got, want := fmt.Sprint(kinds), "[chat:system chat:user event:kept]"; got != want {
		t.Fatalf("after the change %s, want %s", got, want)
	}
	if m := s.Messages(); m[0].Text() != "Respond in French." || s.SystemMessage() != "Respond in French." || s.Record().SystemPrompt != "Respond in French." {
		t.Fatalf("system message %q / %q / record %q", m[0].Text(), s.SystemMessage(), s.Record().SystemPrompt)
	}
	mustRun(t, s, "q2")
	reqs := p.requests()
	if sys := reqs[len(reqs)-1].Messages[0]; sys.Text() != "Respond in French." {
		t.Fatalf("the model got system %q", sys.Text())
	}
	must(s.ClearHistory())
	if m := s.Messages(); len(m) != 1 || m[0].Text() != "Respond in French." {
		t.Fatalf("after clear: %v", m)
	}
}

// MessagesForAPI keeps the chat entries of a timeline, in order, and prepares them for
// a provider: the event entries between them are dropped, an interrupted assistant
// message carries the note, and a chat entry that does not decode is an error.
func TestMessagesForAPI(t *testing.T) {
	user := llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("edit a.txt")}}
	cut := llm.Message{Role: llm.RoleAssistant, State: llm.StateInterrupted, Content: []llm.Part{llm.TextPart("I will ed")}}
	done := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("done")}}
	event := func(typ, data string) session.HistoryEntry {
		return session.HistoryEntry{Category: session.CategoryEvent, Type: typ, Data: json.RawMessage(data)}
	}
	texts := func(msgs []llm.Message) []string {
		var out []string
		for _, m := range msgs {
			out = append(out, string(m.Role)+": "+m.Text())
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		entries []session.HistoryEntry
		want    []string
		wantErr bool
	}{
		{name: "empty", entries: nil, want: nil},
		{name: "events only", entries: []session.HistoryEntry{event("tool-summary", `{}`)}, want: nil},
		{name: "chat and events", entries: []session.HistoryEntry{
			session.MessageToHistoryEntry(user), event("skill-invocation", `{"skillName":"x"}`),
			session.MessageToHistoryEntry(done), event("usage-summary", `{"totalTokens":3}`),
		}, want: []string{"user: edit a.txt", "assistant: done"}},
		{name: "interrupted answer", entries: []session.HistoryEntry{
			session.MessageToHistoryEntry(user), session.MessageToHistoryEntry(cut), event("tool-start", `{}`),
		}, want: []string{"user: edit a.txt", "assistant: I will ed\n\n" + llm.InterruptedSuffix}},
		{name: "undecodable chat entry", entries: []session.HistoryEntry{
			session.MessageToHistoryEntry(user), {Category: session.CategoryChat, Type: "user", Data: json.RawMessage(`{"role":`)},
		}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := session.MessagesForAPI(tc.entries)
			if tc.wantErr {
				if !errors.Is(err, session.ErrInvalidEntry) {
					t.Fatalf("err = %v, want ErrInvalidEntry", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := texts(got); fmt.Sprint(g) != fmt.Sprint(tc.want) {
				t.Fatalf("messages %q, want %q", g, tc.want)
			}
		})
	}
	// The timeline is not modified: the entry still holds the message as it was cut.
	entries := []session.HistoryEntry{session.MessageToHistoryEntry(cut)}
	if _, err := session.MessagesForAPI(entries); err != nil {
		t.Fatal(err)
	}
	if m, _ := session.ChatEntryToMessage(entries[0]); m.Text() != "I will ed" {
		t.Fatalf("entry changed to %q", m.Text())
	}
}
