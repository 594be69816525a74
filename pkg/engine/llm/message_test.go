package llm

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"
)

func fixedFactory() Factory {
	n := 0
	return Factory{
		NewID: func() string { n++; return "m" + string(rune('0'+n)) },
		Now:   func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
}

func TestMessageFactoriesSetIDAndState(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	tests := []struct {
		name  string
		msg   Message
		role  Role
		state MessageState
	}{
		{"createUserMessage", NewUserMessage("hi"), RoleUser, StateComplete},
		{"createSystemMessage", NewSystemMessage("sys"), RoleSystem, StateComplete},
		{"createAssistantMessage default complete", NewAssistantMessage([]Part{TextPart("a")}, ""), RoleAssistant, StateComplete},
		{"createAssistantMessage interrupted", NewAssistantMessage(nil, StateInterrupted), RoleAssistant, StateInterrupted},
		{"createToolMessage", NewToolMessage(ToolResultPart{ToolCallID: "call_0", Content: "ok"}, nil), RoleTool, StateComplete},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !uuid.MatchString(tc.msg.ID) {
				t.Fatalf("id %q is not a v4 UUID", tc.msg.ID)
			}
			if tc.msg.Role != tc.role || tc.msg.State != tc.state {
				t.Fatalf("role/state = %s/%s", tc.msg.Role, tc.msg.State)
			}
			if tc.msg.Content == nil {
				t.Fatal("content is nil; want empty slice for stable JSON")
			}
		})
	}
}

func TestMessageJSONRoundTrip(t *testing.T) {
	f := fixedFactory()
	in := f.Assistant([]Part{
		ThinkingPart("hmm", "sig"),
		TextPart("hello"),
		ToolUsePart(ToolCall{ID: "call_0", Name: "Read", Input: json.RawMessage(`{"file_path":"/a"}`)}),
	}, StateInterrupted)
	in.Usage = &Usage{InputTokens: 10, OutputTokens: 2}
	in.Metadata = map[string]any{"model": "m"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Message
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip changed message:\n in %+v\nout %+v", in, out)
	}
	if out.Text() != "hello" || out.Thinking() != "hmm" || len(out.ToolCalls()) != 1 {
		t.Fatalf("accessors: text %q thinking %q calls %v", out.Text(), out.Thinking(), out.ToolCalls())
	}
}

func TestGetMessagesForAPIInterruptedSuffix(t *testing.T) {
	f := fixedFactory()
	history := []Message{
		f.User("q"),
		f.Assistant([]Part{TextPart("partial answ")}, StateInterrupted),
		f.Assistant(nil, StateInterrupted),
		f.Assistant([]Part{TextPart("done")}, StateComplete),
	}
	got := MessagesForAPI(history)
	if want := "partial answ\n\n" + InterruptedSuffix; got[1].Text() != want {
		t.Fatalf("interrupted text = %q, want %q", got[1].Text(), want)
	}
	if got[2].Text() != InterruptedSuffix {
		t.Fatalf("empty interrupted text = %q", got[2].Text())
	}
	if got[3].Text() != "done" || got[0].Text() != "q" {
		t.Fatal("complete messages were changed")
	}
	if history[1].Text() != "partial answ" {
		t.Fatal("MessagesForAPI mutated its input")
	}
}

func TestSplitSystem(t *testing.T) {
	f := fixedFactory()
	tests := []struct {
		name       string
		msgs       []Message
		sys        string
		rest       []string // texts
		sharesTail bool     // rest is msgs' own tail, not a copy
	}{
		{"system between", []Message{f.System("a"), f.User("u"), f.System("b")}, "a\n\nb", []string{"u"}, false},
		{"systems first", []Message{f.System("a"), f.System("b"), f.User("u"), f.Assistant([]Part{TextPart("x")}, StateComplete)}, "a\n\nb", []string{"u", "x"}, true},
		{"no system", []Message{f.User("u")}, "", []string{"u"}, true},
		{"only system", []Message{f.System("a")}, "a", nil, false},
		{"empty system first", []Message{f.System(""), f.System("b"), f.User("u")}, "b", []string{"u"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys, rest := SplitSystem(tt.msgs)
			var texts []string
			for _, m := range rest {
				texts = append(texts, m.Text())
			}
			if sys != tt.sys || !slices.Equal(texts, tt.rest) {
				t.Fatalf("SplitSystem = %q, %q; want %q, %q", sys, texts, tt.sys, tt.rest)
			}
			if tt.sharesTail && &rest[len(rest)-1] != &tt.msgs[len(tt.msgs)-1] {
				t.Error("rest is a copy of msgs' tail")
			}
			// Appending to rest never writes into msgs.
			before := slices.Clone(tt.msgs)
			_ = append(rest, f.User("appended"))
			if !slices.EqualFunc(before, tt.msgs, func(a, b Message) bool { return a.Text() == b.Text() }) {
				t.Error("appending to rest changed msgs")
			}
		})
	}
}

// Without an interrupted message there is nothing to annotate: the history is returned
// as it is (no copy), and appending to it does not write into the caller's array.
func TestMessagesForAPIWithoutInterruptedShares(t *testing.T) {
	f := fixedFactory()
	history := make([]Message, 2, 4)
	history[0], history[1] = f.User("q"), f.Assistant([]Part{TextPart("a")}, StateComplete)
	got := MessagesForAPI(history)
	if len(got) != 2 || &got[0] != &history[0] {
		t.Fatalf("MessagesForAPI copied an unchanged history")
	}
	got = append(got, f.User("next"))
	if spare := history[:3]; spare[2].Role != "" {
		t.Errorf("appending to the result wrote into the input's spare capacity: %+v", spare[2])
	}
}
