package sessionlog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

func TestParseLevel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want sessionlog.Level
		err  bool
	}{
		{"", sessionlog.LevelCompact, false},
		{"compact", sessionlog.LevelCompact, false},
		{"full", sessionlog.LevelFull, false},
		{"verbose", "", true},
	} {
		got, err := sessionlog.ParseLevel(tc.in)
		if got != tc.want || (err != nil) != tc.err || err != nil && !errors.Is(err, sessionlog.ErrInvalidLevel) {
			t.Errorf("ParseLevel(%q) = %q, %v", tc.in, got, err)
		}
	}
	if _, err := sessionlog.Open(t.TempDir(), "s1", sessionlog.Options{Level: "verbose"}); !errors.Is(err, sessionlog.ErrInvalidLevel) {
		t.Errorf("Open with level verbose: %v", err)
	}
}

// At the compact level a round writes its request (against the history, tools named by
// the request that had them) and its response without the message; the raw payloads,
// the deltas, the messages again (appends, commits, timeline entries) and a successful
// tool's events are not written; a failed tool's result is. At the full level every
// event is written.
func TestCompactLevelWritesWhatTheJournalLacks(t *testing.T) {
	sys := llm.Message{ID: "m0", Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart("sys")}}
	user := llm.Message{ID: "m1", Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("hi")}}
	answer := llm.Message{ID: "m2", Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("hello")}}
	tools := []llm.ToolSchema{{Name: "Read", Description: "read"}}
	ev := func(typ agent.EventType, round int) agent.Event {
		return agent.Event{Type: typ, ExecutionID: "e1", ConversationID: "s1", Round: round}
	}
	request := func(round int, msgs []llm.Message) agent.Event {
		e := ev(agent.EventProviderRequest, round)
		e.Request = &agent.ProviderRequestData{Provider: "p", Model: "m", Messages: msgs, Tools: tools}
		return e
	}
	tool := func(typ agent.EventType, ok bool) agent.Event {
		e := ev(typ, 1)
		r := llm.ToolResult{Success: ok, Output: "x"}
		e.Tool = &agent.ToolEventData{ToolCallID: "c1", ToolName: "Read", Result: &r}
		return e
	}
	appended := ev(agent.EventHistoryMutation, 1)
	appended.Mutation, appended.Message = &agent.MutationData{Kind: "append", Index: 2}, &answer
	resp := ev(agent.EventProviderResponseNormalized, 1)
	resp.Response = &agent.ResponseData{Response: llm.ChatResponse{Message: answer, StopReason: llm.StopReasonEndTurn}}
	resp2 := resp
	resp2.Round = 2
	native := nativeRequest("s1", "e1", 1, anthropicBody(2, ""))
	type logged struct {
		event string
		data  any
	}
	events := []logged{
		{sessionlog.EventSessionInit, sessionlog.NewSessionInit("sys", "p", "m", "/w", tools)},
		{sessionlog.EventHistoryMutation, sessionlog.ResetHistory([]llm.Message{sys})},
		{sessionlog.EventHistoryMutation, sessionlog.NewAppendMutation(1, user)},
		{string(agent.EventProviderRequest), request(1, []llm.Message{sys, user})},
		{string(native.Type), native},
		{sessionlog.EventTextDelta, sessionlog.TextDeltaData{Delta: "hello", ExecutionID: "e1"}},
		{string(resp.Type), resp},
		{string(appended.Type), appended},
		{sessionlog.EventToolExecutionRequest, tool(agent.EventToolExecutionRequest, true)},
		{sessionlog.EventToolExecutionResult, tool(agent.EventToolExecutionResult, true)},
		{sessionlog.EventToolExecutionResult, tool(agent.EventToolExecutionResult, false)},
		{sessionlog.EventTimelineEntry, sessionlog.TimelineEntryData{After: 3, Entry: []byte(`{"id":"t1"}`)}},
		{string(agent.EventProviderRequest), request(2, []llm.Message{sys, user, answer})},
		{string(resp2.Type), resp2},
		{sessionlog.EventAssistant, sessionlog.NewAssistantData("hello", []llm.Message{sys, user, answer}, 1)},
	}
	for _, tc := range []struct {
		level sessionlog.Level
		want  string
	}{
		{sessionlog.LevelFull, "session_init history_mutation history_mutation provider_request provider_native_raw_payload " +
			"text_delta provider_response_normalized history_mutation tool_execution_request tool_execution_result " +
			"tool_execution_result timeline_entry provider_request provider_response_normalized assistant"},
		{sessionlog.LevelCompact, "session_init history_mutation provider_request provider_response_normalized " +
			"tool_execution_result provider_request provider_response_normalized assistant"},
	} {
		dir := t.TempDir()
		l, err := sessionlog.Open(dir, "s1", sessionlog.Options{Now: tickingClock(), Level: tc.level})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			mustLog(t, l, e.event, e.data)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		c := readAll(t, sessionlog.LogPath(dir, "s1"))
		var got []string
		for _, e := range c.Entries {
			got = append(got, e.Event)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: wrote %v\nwant %s", tc.level, got, tc.want)
		}
		if tc.level != sessionlog.LevelCompact {
			continue
		}
		last := string(c.Entries[len(c.Entries)-3].Data)
		if d := string(c.Entries[len(c.Entries)-1].Data); strings.Contains(d, "historyStructure") || !strings.Contains(d, `"historyLength":3`) {
			t.Errorf("compact assistant %s", d)
		}
		for _, s := range []string{`"history":true,"messages":3`, `"toolsFrom":{"round":1}`, `"newMessages":[]`} {
			if !strings.Contains(last, s) {
				t.Errorf("compact request %s lacks %s", last, s)
			}
		}
		if strings.Contains(last, `"tools"`) || strings.Contains(last, "hello") || strings.Contains(last, "conversationId") {
			t.Errorf("compact request %s holds what the journal or an earlier line does", last)
		}
		if d := string(c.Entries[3].Data); strings.Contains(d, "hello") || !strings.Contains(d, `"stopReason":"end_turn"`) {
			t.Errorf("compact response %s", d)
		}
		if d := string(c.Entries[0].Data); !strings.Contains(d, `"logLevel":"compact"`) {
			t.Errorf("compact session_init %s", d)
		}
		if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir)); !v.OK {
			t.Errorf("compact log: issues %+v", v.Issues)
		}
	}
}
