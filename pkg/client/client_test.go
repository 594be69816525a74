package client_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// A Bash call that asks (default mode), then the answer.
const bashScript = `name: client-bash
turns:
  - text: "Running it."
    toolCalls:
      - {id: call_echo, name: Bash, input: {command: "echo from-the-tool"}}
  - text: "It printed from-the-tool."
`

func TestSubmitApprovedToolRoundTrip(t *testing.T) {
	c := bufEngine(t)
	dir := project(t, bashScript)
	info := scriptSession(t, c, dir)
	if info.ID == "" || info.Cwd != dir || !info.Live || info.PermissionMode != "default" || info.Model == "" ||
		!slices.Contains(info.Tools, "Bash") || info.APIKeySource != "none" {
		t.Fatalf("session info %+v: want an id, cwd %s, live, mode default, a model, the tools, key source none", info, dir)
	}
	ctx := testCtx(t)
	p, err := c.Submit(ctx, info.ID, "run echo")
	if err != nil {
		t.Fatal(err)
	}
	if p.ID == "" || p.Queued {
		t.Fatalf("accepted prompt %+v: want an id, not queued", p)
	}
	var types []client.EventType
	var lastSeq uint64
	events := drain(t, p, func(e client.Event) {
		types = append(types, e.Type)
		if e.Seq <= lastSeq || e.PromptID != p.ID || e.SessionID != info.ID {
			t.Errorf("event %s seq %d prompt %q session %q: want increasing seq, prompt %s, session %s", e.Type, e.Seq, e.PromptID, e.SessionID, p.ID, info.ID)
		}
		lastSeq = e.Seq
		if e.Type == client.EventPermissionRequest {
			if e.Permission.ToolName != "Bash" || e.Permission.ToolCallID != "call_echo" || !strings.Contains(string(e.Permission.Input), "echo from-the-tool") {
				t.Errorf("permission request %+v: want Bash call_echo with its input", e.Permission)
			}
			if err := c.RespondPermission(ctx, info.ID, e.Permission.ID, client.AnswerAllow, ""); err != nil {
				t.Errorf("RespondPermission: %v", err)
			}
		}
	})
	var end *client.ToolState
	for _, e := range events {
		if e.Type == client.EventToolEnd {
			end = e.Tool
		}
		if e.Type == client.EventPermissionResolved && (e.Resolution.Outcome != "answered" || e.Resolution.Answer != client.AnswerAllow) {
			t.Errorf("resolution %+v: want answered allow", e.Resolution)
		}
	}
	if end == nil || end.Outcome != client.ToolSuccess || !strings.Contains(end.Output, "from-the-tool") || end.Running {
		t.Fatalf("tool_end %+v: want a finished successful Bash with its output (events %v)", end, types)
	}
	last := events[len(events)-1]
	if last.Type != client.EventComplete || last.Result.Response != "It printed from-the-tool." || last.Result.Rounds != 2 {
		t.Fatalf("last event %s %+v: want complete with the answer after 2 rounds", last.Type, last.Result)
	}
	if _, err := p.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("Next after the end: %v, want io.EOF", err)
	}

	page, err := c.History(ctx, info.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var roles []llm.Role
	var call *llm.ToolCall
	var result *llm.ToolResultPart
	for _, e := range page.Entries {
		if e.Message == nil {
			if e.Type == "" || e.Data == nil {
				t.Errorf("event entry %+v: want a type and data", e)
			}
			continue
		}
		roles = append(roles, e.Message.Role)
		for _, part := range e.Message.Content {
			if part.ToolCall != nil {
				call = part.ToolCall
			}
			if part.ToolResult != nil {
				result = part.ToolResult
			}
		}
	}
	if want := []llm.Role{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant}; !equalRoles(roles, want) {
		t.Fatalf("history roles %v, want %v", roles, want)
	}
	var input map[string]string
	if call == nil || call.ID != "call_echo" || json.Unmarshal(call.Input, &input) != nil || input["command"] != "echo from-the-tool" {
		t.Fatalf("tool call in history %+v: want call_echo with its JSON input", call)
	}
	if result == nil || result.ToolCallID != "call_echo" || result.ToolName != "Bash" || !strings.Contains(result.Content, "from-the-tool") {
		t.Fatalf("tool result in history %+v: want Bash's output for call_echo", result)
	}
	if page.Total != len(page.Entries) || page.Next != page.Total {
		t.Fatalf("page total %d next %d with %d entries: want one full page", page.Total, page.Next, len(page.Entries))
	}
}

func equalRoles(a, b []llm.Role) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDeniedPermissionAndSecondAnswer(t *testing.T) {
	c := bufEngine(t)
	info := scriptSession(t, c, project(t, bashScript))
	ctx := testCtx(t)
	p, err := c.Submit(ctx, info.ID, "run echo")
	if err != nil {
		t.Fatal(err)
	}
	var reqID string
	events := drain(t, p, func(e client.Event) {
		if e.Type == client.EventPermissionRequest {
			reqID = e.Permission.ID
			if err := c.RespondPermission(ctx, info.ID, reqID, client.AnswerDeny, "not now"); err != nil {
				t.Errorf("RespondPermission: %v", err)
			}
		}
	})
	var end *client.ToolState
	for _, e := range events {
		if e.Type == client.EventToolEnd {
			end = e.Tool
		}
	}
	if end == nil || end.Outcome != client.ToolDenied || !strings.Contains(end.Error, "not now") {
		t.Fatalf("tool_end %+v: want denied with the message", end)
	}
	err = c.RespondPermission(ctx, info.ID, reqID, client.AnswerAllow, "")
	if !errors.Is(err, client.ErrFailedPrecondition) || status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("second answer: %v, want ErrFailedPrecondition with its code", err)
	}
	if !strings.Contains(err.Error(), "respond to permission request "+reqID) {
		t.Fatalf("error %q does not name the operation", err)
	}
}

func TestErrorsMatchTheirSentinels(t *testing.T) {
	c := bufEngine(t)
	ctx := testCtx(t)
	_, err := c.GetSession(ctx, "no-such-session")
	if !errors.Is(err, client.ErrNotFound) || status.Code(err) != codes.NotFound {
		t.Errorf("GetSession(unknown): %v, want ErrNotFound", err)
	}
	_, err = c.CreateSession(ctx, client.SessionOptions{Cwd: "relative/dir", Provider: "script"})
	if !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), "cwd") {
		t.Errorf("CreateSession(relative cwd): %v, want ErrInvalidArgument naming cwd", err)
	}
	_, err = c.CreateSession(ctx, client.SessionOptions{Cwd: t.TempDir(), PermissionMode: "yolo"})
	if !errors.Is(err, client.ErrInvalidOption) || !strings.Contains(err.Error(), "yolo") {
		t.Errorf("CreateSession(bad mode): %v, want ErrInvalidOption naming it", err)
	}
	if err := c.RespondPermission(ctx, "s", "r", client.Answer(0), ""); !errors.Is(err, client.ErrInvalidOption) {
		t.Errorf("RespondPermission(no answer): %v, want ErrInvalidOption", err)
	}
	if _, err := c.Submit(ctx, "no-such-session", "hi"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Submit(unknown session): %v, want ErrNotFound", err)
	}
}

// A slow answer, aborted while it streams.
const slowScript = `name: client-slow
turns:
  - text: "Once upon a time a tiny agent streamed its words very slowly, one by one, until it was aborted."
    delay: 100ms
`

func TestAbortEndsThePromptInterrupted(t *testing.T) {
	c := bufEngine(t)
	info := scriptSession(t, c, project(t, slowScript))
	ctx := testCtx(t)
	w, err := c.Watch(ctx, info.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Submit(ctx, info.ID, "tell a story")
	if err != nil {
		t.Fatal(err)
	}
	aborted := false
	events := drain(t, p, func(e client.Event) {
		if e.Type == client.EventTextDelta && !aborted {
			aborted = true
			if was, err := c.Abort(ctx, info.ID); err != nil || !was {
				t.Errorf("Abort: %v, %v; want it to find the prompt running", was, err)
			}
		}
	})
	last := events[len(events)-1]
	if last.Type != client.EventInterrupted || !last.Result.Interrupted || last.Result.Reason != "aborted" {
		t.Fatalf("last event %s %+v: want interrupted (aborted)", last.Type, last.Result)
	}
	// The watcher saw the same prompt end.
	for {
		e, err := w.Next()
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		if e.IsEnd() {
			if e.Seq != last.Seq || e.Type != client.EventInterrupted {
				t.Fatalf("watcher's end %s seq %d, want interrupted seq %d", e.Type, e.Seq, last.Seq)
			}
			break
		}
	}
	if was, err := c.Abort(ctx, info.ID); err != nil || was {
		t.Fatalf("second Abort: %v, %v; want nothing running", was, err)
	}
	if err := c.CloseSession(ctx, info.ID, "other"); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetSession(ctx, info.ID)
	if err != nil || got.Live {
		t.Fatalf("after CloseSession: %+v, %v; want a stored, not live, session", got, err)
	}
}

// The remaining session RPCs: ListSessions pages, History pages, ContextState,
// CancelQueue with nothing queued, DeleteSession.
func TestListHistoryContextCancelDelete(t *testing.T) {
	c := bufEngine(t)
	dir := project(t, "turns:\n  - text: \"ok\"\n    repeat: true\n")
	ctx := testCtx(t)
	a, b := scriptSession(t, c, dir), scriptSession(t, c, dir)
	page1, next, err := c.ListSessions(ctx, dir, 1, "")
	if err != nil || len(page1) != 1 || next == "" {
		t.Fatalf("first page: %v, next %q, %v; want one session and a token", page1, next, err)
	}
	page2, next2, err := c.ListSessions(ctx, dir, 1, next)
	if err != nil || len(page2) != 1 || next2 != "" {
		t.Fatalf("second page: %v, next %q, %v; want the other session, no token", page2, next2, err)
	}
	if ids := []string{page1[0].ID, page2[0].ID}; !slices.Contains(ids, a.ID) || !slices.Contains(ids, b.ID) {
		t.Fatalf("pages hold %v, want %s and %s", ids, a.ID, b.ID)
	}

	p, err := c.Submit(ctx, a.ID, "hello")
	if err != nil {
		t.Fatal(err)
	}
	drain(t, p, nil)
	all, err := c.History(ctx, a.ID, 0, 0)
	if err != nil || all.Total < 3 {
		t.Fatalf("history: %+v, %v; want the system prompt, the prompt, the answer and events", all, err)
	}
	var paged []string
	for off := 0; off < all.Total; {
		pg, err := c.History(ctx, a.ID, off, 2)
		if err != nil || len(pg.Entries) == 0 || len(pg.Entries) > 2 {
			t.Fatalf("page at %d: %d entries, %v", off, len(pg.Entries), err)
		}
		for _, e := range pg.Entries {
			paged = append(paged, e.ID)
		}
		off = pg.Next
	}
	for i, e := range all.Entries {
		if paged[i] != e.ID {
			t.Fatalf("paged history %v differs from the whole %v", paged, all.Entries)
		}
	}
	st, err := c.ContextState(ctx, a.ID)
	if err != nil || st.MaxTokens <= 0 || st.UsedTokens <= 0 {
		t.Fatalf("context state %+v, %v: want a window and some use", st, err)
	}
	if had, err := c.CancelQueue(ctx, a.ID); err != nil || had {
		t.Fatalf("CancelQueue with nothing queued: %v, %v", had, err)
	}
	if err := c.DeleteSession(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetSession(ctx, b.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("GetSession after DeleteSession: %v, want ErrNotFound", err)
	}
}

// SubmitWith carries the spec's displayInput and rawInput: the model gets the prompt,
// the history's user message shows the display input, UserPromptSubmit sees the raw one.
func TestSubmitWithDisplayAndRawInput(t *testing.T) {
	c := bufEngine(t)
	dir := project(t, "turns:\n  - when: {lastUserContains: \"BUILT\"}\n    text: \"audited\"\n")
	seen := filepath.Join(dir, "hook-prompt.json")
	if err := os.MkdirAll(filepath.Join(dir, ".robota"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat > ` + seen + `"}]}]}}`
	if err := os.WriteFile(filepath.Join(dir, ".robota", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	s := scriptSession(t, c, dir)
	p, err := c.SubmitWith(ctx, s.ID, "BUILT audit prompt", client.SubmitInput{DisplayInput: "/audit", RawInput: "/audit src"})
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, p, nil)
	if end := evs[len(evs)-1]; end.Result == nil || end.Result.Response != "audited" {
		t.Fatalf("end %+v", end)
	}
	hist, err := c.History(ctx, s.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var user *llm.Message
	for _, e := range hist.Entries {
		if e.Message != nil && e.Message.Role == llm.RoleUser {
			user = e.Message
		}
	}
	if user == nil || user.Text() != "BUILT audit prompt" || user.Metadata["displayInput"] != "/audit" {
		t.Fatalf("user message %+v: want the prompt, shown as /audit", user)
	}
	b, err := os.ReadFile(seen)
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err != nil || json.Unmarshal(b, &in) != nil || in.Prompt != "/audit src" {
		t.Fatalf("UserPromptSubmit input %s (%v): want prompt /audit src", b, err)
	}
}
