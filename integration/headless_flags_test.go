package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Issue 13 §2: robota accepts Claude Code's flags with its meaning, over the real binary.

// --system-prompt replaces the system prompt the provider receives (the script's turn
// matches on it); without it the built prompt is sent and that turn does not match.
func TestFlagsSystemPromptReachesProvider(t *testing.T) {
	p := newProject(t)
	script := p.script(t, "flags", nil)
	offline := []string{"--provider", "script", "--script", script}
	res := p.mustRun(t, append([]string{"--print", "--system-prompt", "You are PIRATE-7.", "question"}, offline...)...)
	if res.Stdout != "Arr, a custom system prompt.\n" {
		t.Fatalf("stdout %q: the custom system prompt did not reach the provider", res.Stdout)
	}
	res = p.run(t, append([]string{"-p", "question"}, offline...)...)
	if res.Code != 1 || !strings.Contains(res.Stderr, "no turn left") {
		t.Fatalf("without --system-prompt: exit %d stderr %q; want the PIRATE-7 turn unmatched (exit 1)", res.Code, res.Stderr)
	}
}

// --session-id names the new session; naming an existing one is exit 2.
func TestFlagsSessionID(t *testing.T) {
	const id = "5f0c7a52-1f7b-4d0e-8a3e-2b9c4d6e8f01"
	p := newProject(t)
	script := p.script(t, "flags", nil)
	args := []string{"-p", "plain", "--provider", "script", "--script", script, "--session-id", id, "--output-format", "json"}
	res := p.mustRun(t, args...)
	var result struct {
		SessionID string `json:"session_id"`
		Result    string `json:"result"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &result); err != nil {
		t.Fatalf("json output %q: %v", res.Stdout, err)
	}
	if result.SessionID != id || result.Result != "A plain answer." {
		t.Fatalf("session_id %q result %q, want %s", result.SessionID, result.Result, id)
	}
	if _, err := os.Stat(p.recordPath(id)); err != nil {
		t.Fatalf("no session record under the given id: %v", err)
	}
	res = p.run(t, args...)
	if res.Code != 2 || !strings.Contains(res.Stderr, "already exists") {
		t.Fatalf("second run with the same --session-id: exit %d stderr %q, want 2 and 'already exists'", res.Code, res.Stderr)
	}
}

// An unknown flag is one line naming it, exit 2, before anything else happens.
func TestFlagsUnknownFlagOneLine(t *testing.T) {
	p := newProject(t)
	res := p.run(t, "-p", "hi", "--no-such-flag", "--provider", "script")
	if res.Code != 2 || strings.Count(res.Stderr, "\n") != 1 || !strings.Contains(res.Stderr, "'--no-such-flag'") || res.Stdout != "" {
		t.Fatalf("exit %d stdout %q stderr %q: want exit 2 and one line naming --no-such-flag", res.Code, res.Stdout, res.Stderr)
	}
}

// -v and --version print "X.Y.Z (robota)", as claude -v prints "X.Y.Z (Claude Code)".
func TestFlagsVersion(t *testing.T) {
	p := newProject(t)
	for _, flag := range []string{"-v", "--version"} {
		res := p.mustRun(t, flag)
		if !regexp.MustCompile(`^\d+\.\d+\.\d+\S* \(robota\)\n$`).MatchString(res.Stdout) {
			t.Fatalf("robota %s printed %q, want X.Y.Z (robota)", flag, res.Stdout)
		}
	}
}

// A flag robota cannot honour yet is named once on stderr under --verbose, and the run goes on.
func TestFlagsNoEffectNamedUnderVerbose(t *testing.T) {
	p := newProject(t)
	script := p.script(t, "flags", nil)
	res := p.mustRun(t, "-p", "plain", "--provider", "script", "--script", script, "--include-hook-events", "--verbose",
		"--dangerously-skip-permissions", "--allowed-tools", "Read", "--tools", "Read", "--add-dir", p.Scripts,
		"--setting-sources", "user,project,local", "--settings", `{"language":"en"}`, "--allow-dangerously-skip-permissions")
	if res.Stdout != "A plain answer.\n" {
		t.Fatalf("stdout %q", res.Stdout)
	}
	if strings.Count(res.Stderr, "--include-hook-events has no effect in robota") != 1 || strings.Count(res.Stderr, "--allow-dangerously-skip-permissions has no effect") != 1 {
		t.Fatalf("stderr %q: want --include-hook-events and --allow-dangerously-skip-permissions named once", res.Stderr)
	}
}

// --model is honoured without --provider: the provider detected from the environment
// runs it (its default used to overwrite it), and the aliases resolve to its models.
func TestFlagsModelWithoutProvider(t *testing.T) {
	for _, tt := range []struct {
		model, want string
		extra       []string
	}{
		{"claude-opus-4-1", `"model":"claude-opus-4-1"`, nil},
		{"haiku", `"model":"claude-haiku-4-5"`, nil},
		// --max-thinking-tokens is the Anthropic request's thinking budget.
		{"sonnet", `"thinking":{"budget_tokens":2048,"type":"enabled"}`, []string{"--max-thinking-tokens", "2048"}},
	} {
		t.Run(tt.model, func(t *testing.T) {
			fm := anthropicModel("")
			fm.isResult = func(string) bool { return true } // answer with text at once
			fm.final = textAnswer("ok")
			srv := httptest.NewServer(fm)
			defer srv.Close()
			p := newProject(t)
			cmd := p.command(t.Context(), append([]string{"-p", "hi", "--model", tt.model}, tt.extra...)...)
			cmd.Env = append(cmd.Env, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=test-key")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("robota -p --model %s: %v\n%s", tt.model, err, out)
			}
			fm.mu.Lock()
			defer fm.mu.Unlock()
			if len(fm.bodies) != 1 || !strings.Contains(strings.ReplaceAll(fm.bodies[0], " ", ""), tt.want) {
				t.Fatalf("request bodies %q, want %s", fm.bodies, tt.want)
			}
		})
	}
}

// --no-session-persistence leaves no session record or log behind.
func TestFlagsNoSessionPersistence(t *testing.T) {
	p := newProject(t)
	script := p.script(t, "flags", nil)
	res := p.mustRun(t, "-p", "plain", "--provider", "script", "--script", script, "--no-session-persistence")
	if res.Stdout != "A plain answer.\n" {
		t.Fatalf("stdout %q", res.Stdout)
	}
	if ids := p.sessionIDs(t); len(ids) != 0 {
		t.Fatalf("session records %q written, want none", ids)
	}
	if entries, _ := os.ReadDir(p.logsDir()); len(entries) != 0 {
		t.Fatalf("%d session logs written, want none", len(entries))
	}
}

// --fallback-model: a model the server does not have (404) is retried with the fallback.
func TestFlagsFallbackModel(t *testing.T) {
	fm := anthropicModel("")
	fm.isResult = func(string) bool { return true }
	fm.final = textAnswer("from the fallback")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(strings.ReplaceAll(string(body), " ", ""), `"model":"claude-retired-1"`) {
			fm.mu.Lock()
			fm.bodies = append(fm.bodies, string(body))
			fm.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-retired-1"}}`)
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		fm.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p := newProject(t)
	cmd := p.command(t.Context(), "-p", "hi", "--model", "claude-retired-1", "--fallback-model", "haiku")
	cmd.Env = append(cmd.Env, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=test-key")
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "from the fallback\n" {
		t.Fatalf("robota --fallback-model: %v\n%s", err, out)
	}
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if len(fm.bodies) != 2 || !strings.Contains(strings.ReplaceAll(fm.bodies[1], " ", ""), `"model":"claude-haiku-4-5"`) {
		t.Fatalf("requests %q: want the retired model, then claude-haiku-4-5", fm.bodies)
	}
}

// textAnswer streams one Anthropic text message.
func textAnswer(text string) func(w io.Writer) {
	return func(w io.Writer) {
		sse(w, "message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`)
		sse(w, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		sse(w, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+strconv.Quote(text)+`}}`)
		sse(w, "content_block_stop", `{"type":"content_block_stop","index":0}`)
		sse(w, "message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`)
		sse(w, "message_stop", `{"type":"message_stop"}`)
	}
}

// --json-schema: the StructuredOutput call that matches the schema is the result's
// structured_output; one that does not is refused with the reason and the model retries.
func TestFlagsJSONSchema(t *testing.T) {
	p := newProject(t)
	script := p.script(t, "structured", nil)
	schema := `{"type":"object","properties":{"name":{"type":"string"},"languages":{"type":"array","items":{"type":"string"}}},"required":["name"]}`
	res := p.mustRun(t, "-p", "who wrote the first program?", "--provider", "script", "--script", script,
		"--json-schema", schema, "--output-format", "stream-json", "--verbose")
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	var result struct {
		Subtype          string          `json:"subtype"`
		StructuredOutput json.RawMessage `json:"structured_output"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &result); err != nil {
		t.Fatal(err)
	}
	if result.Subtype != "success" || strings.ReplaceAll(string(result.StructuredOutput), " ", "") != `{"languages":["Go"],"name":"Ada"}` &&
		strings.ReplaceAll(string(result.StructuredOutput), " ", "") != `{"name":"Ada","languages":["Go"]}` {
		t.Fatalf("result %s %s, want structured_output {name: Ada, languages: [Go]}", result.Subtype, result.StructuredOutput)
	}
	if !strings.Contains(res.Stdout, "does not match the schema") {
		t.Fatalf("the invalid first call was not refused:\n%s", res.Stdout)
	}
	if bad := p.run(t, "-p", "x", "--provider", "script", "--script", script, "--json-schema", `{"type": 3}`); bad.Code != 2 {
		t.Fatalf("an invalid schema: exit %d, want 2 (stderr %q)", bad.Code, bad.Stderr)
	}
}

// --betas is the Anthropic request's anthropic-beta header.
func TestFlagsBetas(t *testing.T) {
	var mu sync.Mutex
	var betas []string
	fm := anthropicModel("")
	fm.isResult = func(string) bool { return true }
	fm.final = textAnswer("ok")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		betas = append(betas, strings.Join(r.Header.Values("anthropic-beta"), ","))
		mu.Unlock()
		fm.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p := newProject(t)
	cmd := p.command(t.Context(), "-p", "hi", "--betas", "context-1m-2025-08-07,interleaved-thinking-2025-05-14")
	cmd.Env = append(cmd.Env, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=test-key")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("robota --betas: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(betas) != 1 || betas[0] != "context-1m-2025-08-07,interleaved-thinking-2025-05-14" {
		t.Fatalf("anthropic-beta headers %q, want the two betas", betas)
	}
}
