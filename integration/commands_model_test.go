package integration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/client"
)

// commandFiles are a custom command the model may run and one only the user may.
func writeCommandFiles(t *testing.T, p *project) {
	t.Helper()
	p.writeFile(t, ".claude/commands/greet.md", "---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS.\n")
	p.writeFile(t, ".claude/commands/private.md", "---\ndescription: Only for the user\ndisable-model-invocation: true\n---\nPrivate body.\n")
}

// The model's SlashCommand calls: /memory add (a write), /rewind and a
// disable-model-invocation command (refused), a custom command (its text), then done.
const slashToolScript = `
turns:
  - when: {lastUserContains: "remember"}
    toolCalls: [{id: c1, name: SlashCommand, input: {command: "/memory add project build use make"}}]
  - when: {lastToolResultContains: "Saved to"}
    toolCalls: [{id: c2, name: SlashCommand, input: {command: "/rewind list"}}]
  - when: {lastToolResultContains: "/rewind cannot be run by the model"}
    toolCalls: [{id: c3, name: SlashCommand, input: {command: "/private"}}]
  - when: {lastToolResultContains: "/private cannot be run by the model"}
    toolCalls: [{id: c4, name: SlashCommand, input: {command: "/greet Ada"}}]
  - when: {lastToolResultContains: "Say hello to Ada."}
    text: "done"
  - when: {lastToolResultContains: "denied"}
    toolCalls: [{id: c5, name: SlashCommand, input: {command: "/memory list"}}]
  - when: {lastToolResultContains: "memory topic(s)"}
    text: "listed"
  - text: "unexpected"
    repeat: true
`

// Issue 28, commands the model can run, through robota -p: the model runs /memory (a
// SlashCommand(/memory:*) rule allows the write) and a custom command; /rewind and a
// disable-model-invocation command are refused saying so; the PreToolUse and
// PostToolUse hooks see every call. Without the rule, default mode (nobody to ask)
// denies the write and allows the read; a deny rule holds in bypassPermissions.
func TestHeadlessModelRunsSlashCommands(t *testing.T) {
	p := newProject(t)
	writeCommandFiles(t, p)
	pre, post := filepath.Join(p.Scripts, "pre.log"), filepath.Join(p.Scripts, "post.log")
	p.writeFile(t, ".claude/settings.json", `{"hooks": {
		"PreToolUse": [{"matcher": "SlashCommand", "hooks": [{"type": "command", "command": "cat >> `+pre+`; echo >> `+pre+`"}]}],
		"PostToolUse": [{"matcher": "SlashCommand", "hooks": [{"type": "command", "command": "cat >> `+post+`; echo >> `+post+`"}]}]}}`)
	script := p.writeScript(t, "slash_tool.yaml", slashToolScript)
	base := []string{"--provider", "script", "--script", script}

	out := p.mustRun(t, append([]string{"-p", "remember that we build with make", "--allowedTools", "SlashCommand(/memory:*)",
		"--output-format", "stream-json", "--verbose"}, base...)...).Stdout
	var result map[string]any
	toolsOffered := false
	var toolResults []string
	for _, l := range jsonLines(t, out) {
		switch {
		case l["type"] == "system" && l["subtype"] == "init":
			tools, _ := l["tools"].([]any)
			toolsOffered = slices.Contains(tools, any("SlashCommand"))
		case l["type"] == "user":
			msg, _ := l["message"].(map[string]any)
			content, _ := msg["content"].([]any)
			for _, c := range content {
				if b, _ := c.(map[string]any); b["type"] == "tool_result" {
					toolResults = append(toolResults, toolResultText(b["content"]))
				}
			}
		case l["type"] == "result":
			result = l
		}
	}
	if !toolsOffered {
		t.Errorf("the init line does not offer SlashCommand:\n%s", out)
	}
	if result == nil || result["result"] != "done" {
		t.Fatalf("result = %v; tool results %q", result, toolResults)
	}
	for i, want := range []string{"Saved to .robota/memory/topics/build.md (project).",
		"/rewind cannot be run by the model: it is not model-invocable, only the user can run it. Commands the model can run: /greet, /memory.",
		"/private cannot be run by the model", "Say hello to Ada."} {
		if i >= len(toolResults) || !strings.Contains(toolResults[i], want) {
			t.Errorf("tool result %d = %q, want %q", i, toolResults, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(p.Dir, ".robota", "memory", "topics", "build.md")); err != nil || !strings.Contains(string(b), "use make") {
		t.Fatalf("memory: %q, %v", b, err)
	}
	preLog, _ := os.ReadFile(pre)
	postLog, _ := os.ReadFile(post)
	for _, want := range []string{`"tool_name":"SlashCommand"`, `"command":"/memory add project build use make"`, `"command":"/greet Ada"`} {
		if !strings.Contains(string(preLog), want) {
			t.Errorf("PreToolUse input lacks %s:\n%s", want, preLog)
		}
	}
	if !strings.Contains(string(postLog), `"tool_name":"SlashCommand"`) || !strings.Contains(string(postLog), "Saved to .robota/memory/topics/build.md") {
		t.Errorf("PostToolUse input:\n%s", postLog)
	}

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default mode, nobody to ask", nil},
		{"deny rule in bypassPermissions", []string{"--permission-mode", "bypassPermissions", "--disallowedTools", "SlashCommand(/memory add:*)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"-p", "remember that we test with go test", "--output-format", "json"}, tc.args...), base...)
			r := resultObject(t, p.mustRun(t, args...).Stdout)
			if r["result"] != "listed" {
				t.Fatalf("result = %v", r)
			}
			denials, _ := r["permission_denials"].([]any)
			if len(denials) != 1 || !strings.Contains(toolResultText(denials[0]), "SlashCommand") {
				t.Errorf("permission_denials = %v", denials)
			}
			if b, _ := os.ReadFile(filepath.Join(p.Dir, ".robota", "memory", "topics", "build.md")); strings.Count(string(b), "use make") != 1 {
				t.Errorf("the denied /memory add wrote the memory: %q", b)
			}
		})
	}
}

// toolResultText flattens a tool_result's content (a string or text blocks) or any
// JSON value to text, for matching.
func toolResultText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, x := range c {
			b.WriteString(toolResultText(x))
		}
		return b.String()
	case map[string]any:
		if s, ok := c["text"].(string); ok {
			return s
		}
		var b strings.Builder
		for k, x := range c {
			b.WriteString(k + "=" + toolResultText(x) + " ")
		}
		return b.String()
	}
	return ""
}

// The same over the engine's gRPC API (pkg/client): the model's SlashCommand runs
// /memory and a custom command and is refused /rewind; ListCommands says which commands
// the model may run and how safe each is; a command hidden from the user is NOT_FOUND to
// ExecuteCommand.
func TestEngineModelRunsSlashCommands(t *testing.T) {
	p, addr := engineProject(t)
	writeCommandFiles(t, p)
	p.writeFile(t, ".claude/skills/house-style/SKILL.md", "---\ndescription: House style\nuser-invocable: false\n---\nWrite in the house style.\n")
	script := p.writeScript(t, "slash_tool.yaml", slashToolScript)
	c, err := client.Dial(addr, client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	info, err := c.CreateSession(ctx, client.SessionOptions{Cwd: p.Dir, Provider: "script", Script: script, Allow: []string{"SlashCommand(/memory:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(info.Tools, "SlashCommand") {
		t.Errorf("tools offered: %v", info.Tools)
	}
	prompt, err := c.Submit(ctx, info.ID, "remember that we build with make")
	if err != nil {
		t.Fatal(err)
	}
	var end client.Event
	for {
		e, err := prompt.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.IsEnd() {
			end = e
			break
		}
	}
	if end.Type != client.EventComplete || end.Result == nil || end.Result.Response != "done" {
		t.Fatalf("prompt ended %s %+v", end.Type, end.Result)
	}
	var outcomes []string
	for _, tool := range end.Result.Tools {
		outcomes = append(outcomes, tool.Name+" "+tool.FirstArg+" "+string(tool.Outcome))
	}
	if want := []string{"SlashCommand /memory add project build use make success", "SlashCommand /rewind list error",
		"SlashCommand /private error", "SlashCommand /greet Ada success"}; !slices.Equal(outcomes, want) {
		t.Errorf("tools = %q, want %q", outcomes, want)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, ".robota", "memory", "topics", "build.md")); err != nil {
		t.Errorf("memory not written: %v", err)
	}

	list, err := c.ListCommands(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]client.CommandInfo{}
	for _, ci := range list {
		byName[ci.Name] = ci
	}
	for name, want := range map[string]string{"memory": "true write", "rewind": "false write", "greet": "true read-only",
		"private": "false read-only", "cost": "false read-only"} {
		ci, ok := byName[name]
		if got := strings.TrimSpace(boolWord(ci.ModelInvocable) + " " + ci.Safety); !ok || got != want || !ci.UserInvocable {
			t.Errorf("ListCommands %s = %+v, want modelInvocable/safety %q", name, ci, want)
		}
	}
	if _, ok := byName["house-style"]; ok {
		t.Errorf("ListCommands lists a skill hidden from the user")
	}
	if _, err := c.ExecuteCommand(ctx, info.ID, "house-style", ""); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("ExecuteCommand of a command hidden from the user: %v", err)
	}
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

const builtinsScript = `
turns:
  - when: {systemContains: "Response language: French"}
    text: "bonjour"
    usage: {inputTokens: 100, outputTokens: 7}
  - when: {systemContains: "Response language: German"}
    text: "hallo"
    usage: {inputTokens: 100, outputTokens: 7}
  - text: "hello"
    usage: {inputTokens: 100, outputTokens: 7}
    repeat: true
`

// Issue 28, built-ins as specified, through robota -p: /language X is saved in the
// user's settings and the next session's system prompt asks for X; /cost after --resume
// shows the session id, message count and the usage of the earlier run; /reset clears
// the conversation (Claude Code's alias of /clear) and says resetRequested.
func TestHeadlessLanguageCostReset(t *testing.T) {
	p := newProject(t)
	script := p.writeScript(t, "builtins.yaml", builtinsScript)
	base := []string{"--provider", "script", "--script", script, "--output-format", "json"}
	settings := filepath.Join(p.Home, ".robota", "settings.json")

	if r := resultObject(t, p.mustRun(t, append([]string{"-p", "hello"}, base...)...).Stdout); r["result"] != "hello" {
		t.Fatalf("before /language: %v", r)
	}
	r := resultObject(t, p.mustRun(t, append([]string{"-p", "/language French"}, base...)...).Stdout)
	if r["result"] != "Response language set to French (saved in "+settings+")." {
		t.Fatalf("/language French: %v", r)
	}
	if b, err := os.ReadFile(settings); err != nil || !strings.Contains(string(b), `"language": "French"`) {
		t.Fatalf("settings: %s, %v", b, err)
	}
	if r := resultObject(t, p.mustRun(t, append([]string{"-p", "/language"}, base...)...).Stdout); r["result"] != "Response language: French" {
		t.Fatalf("/language: %v", r)
	}
	r = resultObject(t, p.mustRun(t, append([]string{"-p", "hi"}, base...)...).Stdout)
	id, _ := r["session_id"].(string)
	if r["result"] != "bonjour" || id == "" {
		t.Fatalf("after /language French the model answered %v", r)
	}

	cost := resultObject(t, p.mustRun(t, append([]string{"-p", "/cost", "--resume", id}, base...)...).Stdout)
	want := "Session: " + id + "\nMessages: 3\nTokens: 100 input, 7 output (107 total); 100 input and 7 output restored from 1 earlier turn(s)\nThis run: 0 prompt(s); subagents 0 tokens."
	if cost["result"] != want {
		t.Fatalf("/cost after --resume = %q, want %q", cost["result"], want)
	}

	reset := resultObject(t, p.mustRun(t, append([]string{"-p", "/reset", "--resume", id}, base...)...).Stdout)
	if reset["result"] != "Conversation cleared and session permission rules removed." {
		t.Fatalf("/reset: %v", reset)
	}
	if n := len(p.record(t, id).Messages); n != 1 {
		t.Fatalf("after /reset the record holds %d messages, want the system prompt only", n)
	}
	if r := resultObject(t, p.mustRun(t, append([]string{"-p", "/language default"}, base...)...).Stdout); r["result"] != "Response language setting removed (from "+settings+")." {
		t.Fatalf("/language default: %v", r)
	}
	if r := resultObject(t, p.mustRun(t, append([]string{"-p", "hi"}, base...)...).Stdout); r["result"] != "hello" {
		t.Fatalf("after /language default: %v", r)
	}
}

// The same built-ins over gRPC ExecuteCommand (pkg/client): /language changes the live
// session's system prompt and the user's settings, /cost gives the id, message count and
// usage (restored after a resume), /reset answers resetRequested and clears.
func TestEngineLanguageCostReset(t *testing.T) {
	p, addr := engineProject(t)
	script := p.writeScript(t, "builtins.yaml", builtinsScript)
	c, err := client.Dial(addr, client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	info, err := c.CreateSession(ctx, client.SessionOptions{Cwd: p.Dir, Provider: "script", Script: script})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ExecuteCommand(ctx, info.ID, "language", "German")
	if err != nil || !res.Success || res.Data["language"] != "German" {
		t.Fatalf("/language German = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(p.Home, ".robota", "settings.json")); !strings.Contains(string(b), `"language": "German"`) {
		t.Fatalf("settings: %s", b)
	}
	if got := submitAndWait(ctx, t, c, info.ID, "hi"); got != "hallo" {
		t.Fatalf("the live session's model answered %q after /language German", got)
	}
	cost, err := c.ExecuteCommand(ctx, info.ID, "cost", "")
	if err != nil || cost.Data["sessionId"] != info.ID || cost.Data["messageCount"] != float64(3) || cost.Data["inputTokens"] != float64(100) {
		t.Fatalf("/cost = %+v, %v", cost, err)
	}
	if err := c.CloseSession(ctx, info.ID, "other"); err != nil {
		t.Fatal(err)
	}
	resumed, err := c.CreateSession(ctx, client.SessionOptions{Cwd: p.Dir, Provider: "script", Script: script, Resume: info.ID})
	if err != nil {
		t.Fatal(err)
	}
	cost, err = c.ExecuteCommand(ctx, resumed.ID, "cost", "")
	if err != nil || cost.Data["sessionId"] != info.ID || cost.Data["restoredTurns"] != float64(1) || cost.Data["restoredInputTokens"] != float64(100) ||
		!strings.Contains(cost.Message, "restored from 1 earlier turn(s)") {
		t.Fatalf("/cost after resume = %+v, %v", cost, err)
	}
	reset, err := c.ExecuteCommand(ctx, resumed.ID, "reset", "")
	if err != nil || !reset.Success || reset.Data["resetRequested"] != true {
		t.Fatalf("/reset = %+v, %v", reset, err)
	}
	if cost, _ := c.ExecuteCommand(ctx, resumed.ID, "cost", ""); cost.Data["messageCount"] != float64(1) {
		t.Fatalf("/cost after /reset = %+v", cost)
	}
}

// submitAndWait submits prompt and returns the answer of its end event.
func submitAndWait(ctx context.Context, t *testing.T, c *client.Client, id, prompt string) string {
	t.Helper()
	pr, err := c.Submit(ctx, id, prompt)
	if err != nil {
		t.Fatal(err)
	}
	for {
		e, err := pr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.IsEnd() {
			if e.Result == nil {
				t.Fatalf("prompt ended %s without a result", e.Type)
			}
			return e.Result.Response
		}
	}
}
