package integration

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeModel serves two streamed answers: a Write tool call, then, once the
// request carries the tool's result, a final text. It records the bodies.
type fakeModel struct {
	mu       sync.Mutex
	bodies   []string
	first    func(w io.Writer)
	final    func(w io.Writer)
	isResult func(body string) bool
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	if f.isResult(string(body)) {
		f.final(w)
	} else {
		f.first(w)
	}
}

func sse(w io.Writer, event, data string) {
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
}

func anthropicModel(target string) *fakeModel {
	start := func(w io.Writer) {
		sse(w, "message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
	}
	text := func(w io.Writer, i int, s string) {
		sse(w, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
		sse(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%q}}`, i, s))
		sse(w, "content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	stop := func(w io.Writer, reason string) {
		sse(w, "message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":12}}`, reason))
		sse(w, "message_stop", `{"type":"message_stop"}`)
	}
	return &fakeModel{
		isResult: func(b string) bool { return strings.Contains(b, `"tool_result"`) },
		first: func(w io.Writer) {
			start(w)
			text(w, 0, "Writing the file.")
			sse(w, "content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"Write","input":{}}}`)
			// The tool input arrives split across deltas, as the API streams it.
			sse(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":%q}}`, `{"file_path": "`+target))
			sse(w, "content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\", \"content\": \"hello from anthropic\\n\"}"}}`)
			sse(w, "content_block_stop", `{"type":"content_block_stop","index":1}`)
			stop(w, "tool_use")
		},
		final: func(w io.Writer) {
			start(w)
			text(w, 0, "Done: the file is written.")
			stop(w, "end_turn")
		},
	}
}

func ollamaStyleModel(target string) *fakeModel {
	chunk := func(w io.Writer, delta, finish string) {
		sse(w, "", fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"llama3.2","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, finish))
	}
	usage := func(w io.Writer) {
		sse(w, "", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"llama3.2","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}}`)
		sse(w, "", "[DONE]")
	}
	return &fakeModel{
		isResult: func(b string) bool { return strings.Contains(b, `"role":"tool"`) },
		first: func(w io.Writer) {
			chunk(w, `{"role":"assistant","content":"Writing the file."}`, "null")
			// Ollama sends whole tool calls without the chunk "index".
			chunk(w, fmt.Sprintf(`{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"Write","arguments":%q}}]}`,
				`{"file_path":"`+target+`","content":"hello from openai\n"}`), "null")
			chunk(w, `{}`, `"tool_calls"`)
			usage(w)
		},
		final: func(w io.Writer) {
			chunk(w, `{"role":"assistant","content":"Done: the file is written."}`, "null")
			chunk(w, `{}`, `"stop"`)
			usage(w)
		},
	}
}

func TestHeadlessAgainstFakeProviderServers(t *testing.T) {
	tests := []struct {
		name     string
		model    func(target string) *fakeModel
		env      func(url string) []string
		args     []string
		wantFile string
	}{
		{name: "anthropic", model: anthropicModel,
			env:  func(url string) []string { return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=test-key"} },
			args: nil, wantFile: "hello from anthropic\n"},
		{name: "openai-compatible", model: ollamaStyleModel,
			env: func(url string) []string {
				return []string{"OPENAI_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=test-key"}
			},
			args: []string{"--provider", "openai", "--model", "llama3.2"}, wantFile: "hello from openai\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "out.txt")
			fm := tt.model(target)
			srv := httptest.NewServer(fm)
			defer srv.Close()
			cmd := exec.Command(filepath.Join(binDir, "robota"), append([]string{"-p", "write the file", "--allowedTools", "Write"}, tt.args...)...)
			cmd.Dir = dir
			cmd.Env = append(cleanEnv(), tt.env(srv.URL)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("robota -p: %v\nstderr:\n%s", err, stderr.String())
			}
			if got := stdout.String(); got != "Done: the file is written.\n" {
				t.Fatalf("stdout = %q, want the final text", got)
			}
			data, err := os.ReadFile(target)
			if err != nil || string(data) != tt.wantFile {
				t.Fatalf("file on disk = %q, %v; want %q", data, err, tt.wantFile)
			}
			fm.mu.Lock()
			defer fm.mu.Unlock()
			if len(fm.bodies) != 2 || !strings.Contains(fm.bodies[1], "out.txt") {
				t.Fatalf("server saw %d requests; the second must carry the tool result", len(fm.bodies))
			}
		})
	}
}

func TestHeadlessWithoutProviderExplainsAndExits2(t *testing.T) {
	cmd := exec.Command(filepath.Join(binDir, "robota"), "-p", "hi")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cleanEnv(), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 2 {
		t.Fatalf("exit = %d, want 2", code)
	}
	for _, want := range []string{"--provider", "currentProvider", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("message lacks %q:\n%s", want, stderr.String())
		}
	}
	if n := strings.Count(strings.TrimSpace(stderr.String()), "\n"); n > 6 {
		t.Errorf("message is %d lines, want a short one:\n%s", n+1, stderr.String())
	}
}

// cleanEnv is the test's environment without provider credentials or endpoints.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GEMINI_API_KEY":
			continue
		}
		env = append(env, kv)
	}
	return env
}
