package integration

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Issue 13 acceptance against a fake Anthropic server: the TypeScript Agent SDK drives
// bin/robota (pathToClaudeCodeExecutable) running its real anthropic provider, whose
// ANTHROPIC_BASE_URL is a loopback fakeMessagesAPI. Scenarios (testdata/agentsdk/anthropic.mjs):
// a plain query, a Write in acceptEdits, canUseTool approving a Bash that runs with
// PreToolUse/PostToolUse hook callbacks, partial messages in more than one delta, two
// prompts on one session, interrupt, resume. The server side checks that every request
// carried the API key and the tool schemas, that history travelled with later prompts,
// and that the interrupt cancelled the upstream stream.
func TestAgentSDKAgainstFakeAnthropic(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*runTimeout)
	defer cancel()
	work := agentSDKWorkdir(ctx, t, "package.json", "anthropic.mjs")
	p := newProject(t)
	fake := newFakeMessagesAPI(t, []fakeRule{
		{Name: "write-result", When: resultOf("Write"), Reply: fakeReply{Text: "write done"}},
		{Name: "bash-result", When: resultOf("Bash"), Reply: fakeReply{Text: "bash done"}},
		{Name: "plain", When: userSays("a plain question"), Reply: fakeReply{Text: "plain answer"}},
		{Name: "write", When: userSays("write a file"), Reply: fakeReply{Text: "Writing it.", Tool: "Write",
			Input: map[string]any{"file_path": filepath.Join(p.Dir, "written.txt"), "content": "from the fake api"}}},
		{Name: "bash", When: userSays("run bash please"), Reply: fakeReply{Tool: "Bash",
			Input: map[string]any{"command": "touch bash-ran.txt", "description": "make a marker file"}}},
		{Name: "stream", When: userSays("stream it"), Reply: fakeReply{Text: "streamed in several pieces",
			Chunks: []string{"streamed ", "in ", "several ", "pieces"}}},
		{Name: "first", When: userSays("first of two"), Reply: fakeReply{Text: "answer one"}},
		{Name: "second", When: userSays("second of two"), Reply: fakeReply{Text: "answer two"}},
		{Name: "forever", When: userSays("run forever"), Reply: fakeReply{Text: "this will take a while", Hang: true}},
		{Name: "resume", When: userSays("resume it"), Reply: fakeReply{Text: "resumed answer"}},
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()

	cmd := exec.CommandContext(ctx, node, "anthropic.mjs", filepath.Join(binDir, "robota"), p.Dir)
	cmd.Dir = work
	cmd.Env = append(p.env(), "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=test-key")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("scenarios:\n%s", out)
	if err != nil {
		t.Errorf("the Agent SDK scenarios failed: %v\nstderr:\n%s", err, stderr.String())
	}
	for _, name := range []string{"plain", "writeInAcceptEdits", "canUseToolBashAndHooks", "partialMessages",
		"twoPromptsOneSession", "interrupt", "resume"} {
		if !strings.Contains(string(out), "ok "+name+"\n") {
			t.Errorf("scenario %s did not pass", name)
		}
	}
	checkFakeAnthropicRequests(t, fake.Requests())
	// The interrupt must reach the upstream call, not only the SDK's view of the turn.
	if n := fake.Cancelled(); n != 1 {
		t.Errorf("the hanging stream was cancelled %d times, want 1", n)
	}
}

// checkFakeAnthropicRequests asserts what robota sent: the key and version headers and the
// built-in tool schemas on every request, every rule exercised, tool results that are not
// errors, and the second prompt of a session sent with the first exchange as history.
func checkFakeAnthropicRequests(t *testing.T, reqs []fakeRequest) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("the fake Anthropic server received no request")
	}
	answered := map[string]int{}
	for i, r := range reqs {
		answered[r.Rule]++
		if r.APIKey != "test-key" {
			t.Errorf("request %d: x-api-key = %q, want test-key", i, r.APIKey)
		}
		if r.Version == "" || !r.Body.Stream || r.Body.Model == "" {
			t.Errorf("request %d: anthropic-version %q, stream %v, model %q", i, r.Version, r.Body.Stream, r.Body.Model)
		}
		tools := map[string]json.RawMessage{}
		for _, tool := range r.Body.Tools {
			tools[tool.Name] = tool.InputSchema
		}
		for name, prop := range map[string]string{"Bash": "command", "Write": "file_path", "Read": "file_path"} {
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(tools[name], &schema); err != nil || schema.Type != "object" || schema.Properties[prop] == nil ||
				!slices.Contains(schema.Required, prop) {
				t.Errorf("request %d: tool %s schema lacks required property %q: %s", i, name, prop, tools[name])
			}
		}
		if r.ToolResult != nil && r.ToolResult.IsError {
			t.Errorf("request %d: tool result %s is an error: %s", i, r.ToolResult.ToolUseID, r.ToolResult.Content)
		}
		// A later prompt of the same session (or a resumed one) carries the earlier exchange.
		history := string(mustJSON(t, r.Body.Messages))
		if r.Rule == "second" && !strings.Contains(history, "answer one") {
			t.Errorf("request %d: the second prompt was sent without the first exchange: %s", i, history)
		}
		if r.Rule == "resume" && (!strings.Contains(history, "a plain question") || !strings.Contains(history, "plain answer")) {
			t.Errorf("request %d: the resumed prompt was sent without the plain session's history: %s", i, history)
		}
	}
	if answered[""] > 0 {
		t.Errorf("%d requests matched no rule", answered[""])
	}
	for _, rule := range []string{"plain", "write", "write-result", "bash", "bash-result", "stream", "first", "second",
		"forever", "resume"} {
		if answered[rule] != 1 {
			t.Errorf("rule %s answered %d requests, want 1 (all: %v)", rule, answered[rule], answered)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// agentSDKWorkdir is a temporary directory holding the given testdata/agentsdk files and
// node_modules with the Agent SDK: installed with npm, or linked from
// $ROBOTA_AGENT_SDK_DIR (a directory holding node_modules/@anthropic-ai/claude-agent-sdk).
// Without npm (and no such directory) the test is skipped: it needs npm, not robota.
func agentSDKWorkdir(ctx context.Context, t *testing.T, files ...string) string {
	t.Helper()
	work := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", "agentsdk", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if dir := os.Getenv("ROBOTA_AGENT_SDK_DIR"); dir != "" {
		if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
			t.Fatal(err)
		}
		return work
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	// The optional dependency is the SDK's own claude binary: robota replaces it.
	cmd := exec.CommandContext(ctx, npm, "install", "--omit=optional", "--no-audit", "--no-fund")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install the Agent SDK: %v\n%s", err, out)
	}
	return work
}
