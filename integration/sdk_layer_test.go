package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// streamShape is what a stream-json line says about whose work it is: its type, its
// parent_tool_use_id and the first content block (kind and tool call id).
func streamShape(line map[string]any) string {
	parent := "-"
	if p, ok := line["parent_tool_use_id"].(string); ok {
		parent = p
	}
	block := ""
	if m, ok := line["message"].(map[string]any); ok {
		if c, ok := m["content"].([]any); ok && len(c) > 0 {
			b, _ := c[0].(map[string]any)
			block = fmt.Sprint(b["type"], ":", b["id"], b["tool_use_id"], b["text"])
		}
	}
	return fmt.Sprint(line["type"], "/", line["subtype"], " parent=", parent, " ", block)
}

func streamShapes(t *testing.T, out string) []string {
	t.Helper()
	var shapes []string
	for _, l := range jsonLines(t, out) {
		if l["type"] == "system" && l["subtype"] == "init" {
			continue
		}
		shapes = append(shapes, streamShape(l))
	}
	return shapes
}

// TestEngineClientPrintsSubagentLines: robota -p --engine prints a subagent's messages
// with the Agent call as parent_tool_use_id, in the same order and shape as the
// in-process run of the same script (issue 28 §2).
func TestEngineClientPrintsSubagentLines(t *testing.T) {
	p, addr := engineProject(t)
	p.writeFile(t, "notes.txt", "remember the milk\n")
	script := p.writeScript(t, "subagent_lines.yaml", `
turns:
  - text: "Asking a helper."
    toolCalls: [{id: toolu_agent, name: Agent, input: {description: "read notes", prompt: "read the notes", subagent_type: general-purpose}}]
  - when: {lastToolResultContains: "the notes say milk"}
    text: "The helper says milk."
agents:
  general-purpose:
    - toolCalls: [{id: toolu_sub_read, name: Read, input: {file_path: "`+filepath.Join(p.Dir, "notes.txt")+`"}}]
    - when: {lastToolResultContains: "milk"}
      text: "the notes say milk"
`)
	args := []string{"-p", "what do the notes say?", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose"}
	local := p.mustRun(t, args...)
	remote := p.mustRun(t, append(args, "--engine", addr)...)
	want, got := streamShapes(t, local.Stdout), streamShapes(t, remote.Stdout)
	parented := 0
	for _, s := range want {
		if strings.Contains(s, "parent=toolu_agent") {
			parented++
		}
	}
	// The subagent's Read call, its result and its answer.
	if parented < 3 {
		t.Fatalf("in-process: %d lines with parent_tool_use_id toolu_agent, want the subagent's 3:\n%s", parented, local.Stdout)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("--engine lines differ from in-process:\n--engine:\n%s\nin-process:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := lastResult(t, remote.Stdout); r["result"] != "The helper says milk." {
		t.Fatalf("--engine result %v", r)
	}
}

// TestAgentHookLinesAreNotTheModels: an agent hook's subagent (its Grep and its verdict)
// is the hook's work: stream-json prints none of it, least of all as top-level lines
// (parent_tool_use_id null) a consumer would take for the main model's, in-process and
// under --engine (issue 28 §1).
func TestAgentHookLinesAreNotTheModels(t *testing.T) {
	p, addr := engineProject(t)
	p.writeFile(t, "main.go", "package main // TODO: remove\n")
	p.writeFile(t, filepath.Join(".claude", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "agent", "prompt": "Check that no TODO is left: $ARGUMENTS", "maxTurns": 4}]}]}}`)
	script := p.writeScript(t, "agent_hook_lines.yaml", `
turns:
  - text: "Finished."
  - when: {lastUserContains: "a TODO is left"}
    text: "Removed the TODO."
agents:
  hook-agent:
    - toolCalls: [{id: toolu_hook_grep, name: Grep, input: {pattern: "TODO", path: "`+p.Dir+`"}}]
    - when: {lastToolResultContains: "main.go"}
      text: "{\"ok\": false, \"reason\": \"a TODO is left in main.go\"}"
    - text: '{"ok": true}'
`)
	args := []string{"-p", "finish", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose"}
	for _, run := range []struct {
		name string
		args []string
	}{{"in-process", args}, {"--engine", append(append([]string{}, args...), "--engine", addr)}} {
		out := p.mustRun(t, run.args...).Stdout
		if r := lastResult(t, out); r["result"] != "Removed the TODO." {
			t.Fatalf("%s: result %v, want the hook's verdict to have made the model go on", run.name, r)
		}
		for _, l := range jsonLines(t, out) {
			s := toJSON(l)
			if strings.Contains(s, "toolu_hook_grep") || strings.Contains(s, `\"ok\"`) {
				t.Fatalf("%s: the agent hook's work is printed as a stream-json line: %s\nall:\n%s", run.name, s, out)
			}
		}
	}
}

// forkSkillProject is a project with a context: fork skill, and a script whose
// general-purpose agent answers only under the fork-worker prompt suffix.
func forkSkillProject(t *testing.T) (*project, string, string) {
	t.Helper()
	p, addr := engineProject(t)
	p.writeFile(t, "notes.txt", "remember the milk\n")
	p.writeFile(t, filepath.Join(".claude", "skills", "notes", "SKILL.md"), "---\nname: notes\ndescription: Summarize the notes\ncontext: fork\n---\nSummarize the notes about $ARGUMENTS.\n")
	script := p.writeScript(t, "fork_skill.yaml", `
turns:
  - when: {lastUserContains: "use the skill"}
    toolCalls: [{id: toolu_skill, name: Skill, input: {skill: notes, args: "groceries"}}]
  - when: {lastToolResultContains: "fork says milk"}
    text: "The skill says milk."
agents:
  general-purpose:
    - when: {systemContains: "forked worker", lastUserContains: "notes about groceries"}
      toolCalls: [{id: toolu_fork_read, name: Read, input: {file_path: "`+filepath.Join(p.Dir, "notes.txt")+`"}}]
    - when: {systemContains: "forked worker", lastToolResultContains: "milk"}
      text: "fork says milk"
`)
	return p, addr, script
}

// TestForkSkillRunsUnderItsCall: the model's Skill call of a context: fork skill runs
// the skill in a subagent with the fork-worker suffix (the script's agent answers only
// under it), and its stream-json lines carry the Skill call's id as parent_tool_use_id,
// in process and under --engine (issue 28 §3).
func TestForkSkillRunsUnderItsCall(t *testing.T) {
	p, addr, script := forkSkillProject(t)
	args := []string{"-p", "use the skill", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose"}
	for _, run := range []struct {
		name string
		args []string
	}{{"in-process", args}, {"--engine", append(append([]string{}, args...), "--engine", addr)}} {
		out := p.mustRun(t, run.args...).Stdout
		if r := lastResult(t, out); r["result"] != "The skill says milk." {
			t.Fatalf("%s: result %v\n%s", run.name, r, out)
		}
		var forked []string
		for _, s := range streamShapes(t, out) {
			if strings.Contains(s, "toolu_fork_read") || strings.Contains(s, "fork says milk") {
				forked = append(forked, s)
				if !strings.Contains(s, "parent=toolu_skill") {
					t.Errorf("%s: a forked skill's line without the Skill call as parent: %s", run.name, s)
				}
			}
		}
		if len(forked) != 3 {
			t.Fatalf("%s: %d lines of the forked skill, want its Read, the result and its answer:\n%s", run.name, len(forked), out)
		}
	}
}

// TestEngineResultToolsAndThinkingEnd: over gRPC a prompt's end carries every tool call
// of the prompt in ExecutionResult.tools (events.proto), and the model's thinking ends
// with a ThinkingEvent is_thinking=false before the answer's next event (issue 28 §5).
func TestEngineResultToolsAndThinkingEnd(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("remember the milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`
turns:
  - when: {lastUserContains: "notes"}
    thinking: "I should read the notes."
    toolCalls: [{id: r1, name: Read, input: {file_path: %q}}, {id: r2, name: Read, input: {file_path: %q}}]
  - thinking: "They mention milk."
    text: "Milk."
`, notes, filepath.Join(dir, "missing.txt"))
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, c := engineClient(t, t.TempDir())
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: dir, Provider: "script", Script: "script.yaml",
		PermissionMode: robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := c.Submit(ctx, &robotav1.SubmitRequest{SessionId: created.GetSession().GetSessionId(), Prompt: "read the notes"})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var result *robotav1.ExecutionResult
	for result == nil {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("submit: %v (events so far %v)", err, kinds)
		}
		for _, ev := range resp.GetEvents() {
			switch {
			case ev.GetThinking() != nil:
				k := fmt.Sprint("thinking:", ev.GetThinking().GetIsThinking())
				if len(kinds) == 0 || kinds[len(kinds)-1] != k {
					kinds = append(kinds, k)
				}
			case ev.GetToolStart() != nil:
				kinds = append(kinds, "tool_start")
			case strings.TrimSpace(ev.GetTextDelta().GetText()) != "":
				// (the blank line between two rounds' answers is not the model's text)
				if kinds[len(kinds)-1] != "text" {
					kinds = append(kinds, "text")
				}
			case ev.GetComplete() != nil:
				kinds, result = append(kinds, "complete"), ev.GetComplete().GetResult()
			case ev.GetError() != nil:
				t.Fatalf("error event %v", ev.GetError())
			}
		}
	}
	want := "[thinking:true thinking:false tool_start tool_start thinking:true thinking:false text complete]"
	if fmt.Sprint(kinds) != want {
		t.Fatalf("events %v, want %s", kinds, want)
	}
	var tools []string
	for _, tl := range result.GetTools() {
		tools = append(tools, tl.GetToolCallId()+":"+tl.GetToolName()+":"+tl.GetOutcome().String())
	}
	if fmt.Sprint(tools) != "[r1:Read:TOOL_OUTCOME_SUCCESS r2:Read:TOOL_OUTCOME_ERROR]" {
		t.Fatalf("ExecutionResult.tools %v, want both Reads in order", tools)
	}
	if r2 := result.GetTools()[1]; r2.GetError() == "" || r2.GetIsRunning() || r2.GetInputJson() == "" {
		t.Fatalf("the failed Read's state %v, want its input and error", r2)
	}
}

// TestHTTPHookMethod: an http hook's `method` is the request's (PUT here), in process
// and in the engine; a method without a body is a configuration error naming the
// settings file (issue 28 §6).
func TestHTTPHookMethod(t *testing.T) {
	p, addr := engineProject(t)
	methods := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(b), `"tool_name":"Bash"`) {
			http.Error(w, "no hook input", http.StatusBadRequest)
			return
		}
		methods <- r.Method
		_, _ = io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the policy server says no"}}`)
	}))
	defer srv.Close()
	settings := filepath.Join(".claude", "settings.json")
	p.writeFile(t, settings, `{"permissions": {"allow": ["Bash"]}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "`+srv.URL+`/check", "method": "PUT"}]}]}}`)
	script := p.writeScript(t, "http_hook.yaml", `
turns:
  - toolCalls: [{id: toolu_ls, name: Bash, input: {command: "ls"}}]
  - when: {lastToolResultContains: "the policy server says no"}
    text: "Denied by policy."
    repeat: true
`)
	args := []string{"-p", "list", "--provider", "script", "--script", script, "--output-format", "json"}
	for _, run := range []struct {
		name string
		args []string
	}{{"in-process", args}, {"--engine", append(append([]string{}, args...), "--engine", addr)}} {
		r := resultObject(t, p.mustRun(t, run.args...).Stdout)
		if r["result"] != "Denied by policy." {
			t.Fatalf("%s: result %v", run.name, r)
		}
		select {
		case m := <-methods:
			if m != "PUT" {
				t.Fatalf("%s: the hook sent %s, want PUT", run.name, m)
			}
		default:
			t.Fatalf("%s: the hook was not called", run.name)
		}
	}
	p.writeFile(t, settings, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "`+srv.URL+`", "method": "GET"}]}]}}`)
	res := p.run(t, args...)
	if res.Code != 2 || !strings.Contains(res.Stderr, "settings.json") || !strings.Contains(res.Stderr, `"GET"`) {
		t.Fatalf("method GET: exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
}

// timelineKinds lists a timeline's entries as category:type.
func timelineKinds(t *testing.T, entries []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, raw := range entries {
		var e struct{ Category, Type string }
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Category+":"+e.Type)
	}
	return out
}

// TestReplayRebuildsTheTimeline: the session log of robota -p runs (a tool call, then a
// resumed prompt) replays into the same timeline as the stored session's: the tool
// start/end, tool-summary and usage-summary entries where they stood (issue 28 §6).
func TestReplayRebuildsTheTimeline(t *testing.T) {
	p := newProject(t)
	notes := p.writeFile(t, "notes.txt", "remember the milk\n")
	script := p.writeScript(t, "replay.yaml", `
turns:
  - when: {lastUserContains: "read"}
    toolCalls: [{id: toolu_read, name: Read, input: {file_path: "`+notes+`"}}]
    usage: {inputTokens: 50, outputTokens: 5}
  - when: {lastToolResultContains: "milk"}
    text: "Milk."
    usage: {inputTokens: 60, outputTokens: 2}
  - when: {lastUserContains: "again"}
    text: "Still milk."
    usage: {inputTokens: 70, outputTokens: 3}
`)
	base := []string{"--provider", "script", "--script", script, "--output-format", "json"}
	id, _ := resultObject(t, p.mustRun(t, append([]string{"-p", "read the notes"}, base...)...).Stdout)["session_id"].(string)
	p.mustRun(t, append([]string{"-p", "again", "--resume", id}, base...)...)

	c, err := sessionlog.ReadLogFile(p.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := p.replayLog(t, id, c.Entries)
	if err != nil {
		t.Fatal(err)
	}
	var replayed []json.RawMessage
	for _, e := range rec.Timeline {
		b, _ := json.Marshal(e)
		replayed = append(replayed, b)
	}
	stored, err := store.NewFileStore(p.sessionsDir(), store.Options{}).Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	want, err := stored.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	got, wantKinds := timelineKinds(t, replayed), timelineKinds(t, want)
	if !slices.Equal(got, wantKinds) || !slices.Contains(got, "event:tool-end") || !slices.Contains(got, "event:usage-summary") {
		t.Fatalf("replayed timeline\n%v\nthe stored session's\n%v", got, wantKinds)
	}
}

// storedTimeline loads session id's stored messages and timeline kinds.
func storedTimeline(t *testing.T, p *project, id string) (store.Record, []string) {
	t.Helper()
	rec, err := store.NewFileStore(p.sessionsDir(), store.Options{}).Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := rec.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	return rec, timelineKinds(t, tl)
}

// TestUserForkSkillRunsInItsSubagent: the user's /notes groceries of a context: fork
// skill runs in an isolated subagent with the fork-worker suffix (not the session's
// model: the main script has no turn for it), its lines carry the invocation's id as
// parent_tool_use_id, its answer is the reply, and the session keeps the user's
// "/notes groceries", not the expanded body, in process and under --engine (issue 28
// §3, §4).
func TestUserForkSkillRunsInItsSubagent(t *testing.T) {
	p, addr, script := forkSkillProject(t)
	args := []string{"-p", "/notes groceries", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose"}
	for _, run := range []struct {
		name string
		args []string
	}{{"in-process", args}, {"--engine", append(append([]string{}, args...), "--engine", addr)}} {
		out := p.mustRun(t, run.args...).Stdout
		r := lastResult(t, out)
		if r["result"] != "fork says milk" {
			t.Fatalf("%s: result %v\n%s", run.name, r, out)
		}
		parents := map[string]int{}
		for _, l := range jsonLines(t, out) {
			if pid, ok := l["parent_tool_use_id"].(string); ok {
				parents[pid]++
			}
		}
		if len(parents) != 1 {
			t.Fatalf("%s: parent ids %v, want the invocation's one for the subagent's 3 lines\n%s", run.name, parents, out)
		}
		for pid, n := range parents {
			if !strings.HasPrefix(pid, "skill_") || n != 3 {
				t.Fatalf("%s: parent ids %v, want skill_… on the subagent's 3 lines", run.name, parents)
			}
		}
		id, _ := r["session_id"].(string)
		rec, kinds := storedTimeline(t, p, id)
		var texts []string
		for _, m := range rec.Messages {
			if m.Role != "system" {
				texts = append(texts, string(m.Role)+":"+m.Text())
			}
		}
		if fmt.Sprint(texts) != "[user:/notes groceries assistant:fork says milk]" {
			t.Fatalf("%s: stored conversation %q", run.name, texts)
		}
		if !slices.Contains(kinds, "event:skill-invocation") {
			t.Fatalf("%s: timeline %v lacks the skill invocation", run.name, kinds)
		}
	}
}

// TestUserSkillShowsTheUsersInput: a user's /name args of an inline skill gives the model
// the expanded body, while the stored user message carries "/name args" as its
// displayInput (what clients show, after a resume too) and the timeline a
// skill-invocation entry; UserPromptSubmit hooks see "/name args" (issue 28 §4).
func TestUserSkillShowsTheUsersInput(t *testing.T) {
	p, addr := engineProject(t)
	seen := filepath.Join(p.Scripts, "ups.json")
	p.writeFile(t, filepath.Join(".claude", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greet someone\n---\nSay a warm hello to $ARGUMENTS.\n")
	p.writeFile(t, filepath.Join(".claude", "settings.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >> `+seen+`"}]}]}}`)
	script := p.writeScript(t, "greet.yaml", `
turns:
  - when: {lastUserContains: "Say a warm hello to Ada"}
    text: "Hello, Ada!"
    repeat: true
`)
	args := []string{"-p", "/greet Ada", "--provider", "script", "--script", script, "--output-format", "json"}
	for _, run := range []struct {
		name string
		args []string
	}{{"in-process", args}, {"--engine", append(append([]string{}, args...), "--engine", addr)}} {
		r := resultObject(t, p.mustRun(t, run.args...).Stdout)
		if r["result"] != "Hello, Ada!" {
			t.Fatalf("%s: result %v", run.name, r)
		}
		id, _ := r["session_id"].(string)
		rec, kinds := storedTimeline(t, p, id)
		var user *llm.Message
		for i := range rec.Messages {
			if rec.Messages[i].Role == llm.RoleUser {
				user = &rec.Messages[i]
			}
		}
		if user == nil || user.Metadata["displayInput"] != "/greet Ada" || !strings.Contains(user.Text(), "warm hello") {
			t.Fatalf("%s: stored user message %+v, want the body with displayInput /greet Ada", run.name, user)
		}
		if !slices.Contains(kinds, "event:skill-invocation") {
			t.Fatalf("%s: timeline %v lacks the skill invocation", run.name, kinds)
		}
	}
	b, _ := os.ReadFile(seen)
	if strings.Count(string(b), `"prompt":"/greet Ada"`) != 2 {
		t.Fatalf("UserPromptSubmit inputs:\n%s\nwant the prompt /greet Ada twice", b)
	}
}

// TestTaskHistorySurvives: a subagent task's lifecycle reaches the session's record (a
// background-task timeline entry per change, its output summary once done) and its log
// (background_task_event lines, collected by replay), and both survive a resume
// (issue 28 §7).
func TestTaskHistorySurvives(t *testing.T) {
	t.Run("inprocess", func(t *testing.T) { testTaskHistorySurvives(t, newProject(t), nil) })
	t.Run("engine", func(t *testing.T) {
		p, addr := engineProject(t)
		testTaskHistorySurvives(t, p, []string{"--engine", addr})
	})
}

func testTaskHistorySurvives(t *testing.T, p *project, extra []string) {
	p.writeFile(t, "notes.txt", "remember the milk\n")
	script := p.writeScript(t, "task_history.yaml", `
turns:
  - when: {lastUserContains: "delegate"}
    toolCalls: [{id: toolu_agent, name: Agent, input: {description: "read notes", prompt: "read the notes", subagent_type: general-purpose}}]
  - when: {lastToolResultContains: "the notes say milk"}
    text: "The helper says milk."
  - when: {lastUserContains: "again"}
    text: "Still milk."
agents:
  general-purpose:
    - text: "the notes say milk"
`)
	base := append([]string{"--provider", "script", "--script", script, "--permission-mode", "bypassPermissions", "--output-format", "json"}, extra...)
	id, _ := resultObject(t, p.mustRun(t, append([]string{"-p", "delegate"}, base...)...).Stdout)["session_id"].(string)
	p.mustRun(t, append([]string{"-p", "again", "--resume", id}, base...)...)

	rec, _ := storedTimeline(t, p, id)
	tl, err := rec.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	summary := ""
	for _, raw := range tl {
		var e struct {
			Type string
			Data struct{ Status, OutputSummary string }
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if e.Type == "background-task" {
			statuses = append(statuses, e.Data.Status)
			summary = e.Data.OutputSummary
		}
	}
	if len(statuses) < 2 || statuses[len(statuses)-1] != "completed" || !strings.Contains(summary, "the notes say milk") {
		t.Fatalf("the record's task history %v (last output %q), want its lifecycle up to completed with its output", statuses, summary)
	}
	c, err := sessionlog.ReadLogFile(p.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := p.replayLog(t, id, c.Entries)
	if err != nil {
		t.Fatal(err)
	}
	completed := false
	for _, ev := range replayed.BackgroundTaskEvents {
		completed = completed || strings.Contains(string(ev), `"status":"completed"`)
	}
	if !completed {
		t.Fatalf("replay's task events %d, none completed", len(replayed.BackgroundTaskEvents))
	}
	var kinds []string
	for _, e := range replayed.Timeline {
		kinds = append(kinds, e.Type)
	}
	if !slices.Contains(kinds, "background-task") {
		t.Fatalf("replayed timeline %v lacks the task", kinds)
	}
}
