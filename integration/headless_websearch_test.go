package integration

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const webSearchTestScript = `turns:
  - when: {lastToolResultContains: "WebSearch"}
    text: "no search"
  - when: {lastToolResultContains: "go.dev"}
    text: "found it"
  - text: "searching"
    toolCalls:
      - {id: toolu_ws, name: WebSearch, input: {query: "go generics tutorial"}}
`

// TestHeadlessWebSearchBackends: robota -p with settings.json webSearch pointing at a
// search API (Brave, served here from its recorded answer) runs WebSearch through it with
// the key from $ENV:BRAVE_API_KEY, which appears in no output, log or record; without a
// webSearch setting the tool's result says how to configure one; a bad backend name
// stops the run naming the file and the key.
func TestHeadlessWebSearchBackends(t *testing.T) {
	const secret = "BSA-integration-SECRET-42"
	recorded, err := os.ReadFile("../pkg/tools/web/testdata/search/brave.json")
	if err != nil {
		t.Fatal(err)
	}
	var gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey = r.Header.Get("X-Subscription-Token")
		if r.URL.Path != "/res/v1/web/search" || r.URL.Query().Get("q") != "go generics tutorial" {
			http.Error(w, "unexpected "+r.URL.String(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(recorded)
	}))
	defer srv.Close()

	for _, tc := range []struct {
		name, settings string
		code           int
		want           string // substring of stdout (the tool result in stream-json), or of stderr when code != 0
	}{
		{name: "brave", settings: `{"webSearch": {"backend": "brave", "url": "` + srv.URL + `/res/v1/web/search", "apiKey": "$ENV:BRAVE_API_KEY"}}`,
			want: `1. Tutorial: Getting started with generics - The Go Programming Language\n   https://go.dev/doc/tutorial/generics`},
		{name: "none", settings: `{}`,
			want: `WebSearch is not available: no web search backend is configured. To enable it, set \"webSearch\" in ~/.robota/settings.json`},
		{name: "bad backend", settings: `{"webSearch": {"backend": "bing"}}`, code: 2,
			want: `~/.robota/settings.json: webSearch.backend: want one of native, brave, tavily, searxng, got "bing"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			gotKey = ""
			settings := filepath.Join(p.Home, ".robota", "settings.json")
			if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(settings, []byte(tc.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			script := p.writeScript(t, "websearch.yaml", webSearchTestScript)
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			cmd := p.command(ctx, "-p", "search the web", "--provider", "script", "--script", script,
				"--allowedTools", "WebSearch", "--output-format", "stream-json", "--verbose")
			cmd.Env = append(cmd.Env, "BRAVE_API_KEY="+secret)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if err != nil {
				code = cmd.ProcessState.ExitCode()
			}
			if code != tc.code {
				t.Fatalf("exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", code, err, tc.code, stdout.String(), stderr.String())
			}
			out := stdout.String()
			if tc.code != 0 {
				out = stderr.String()
			}
			if !strings.Contains(out, tc.want) {
				t.Fatalf("output does not contain %q:\n%s\nstderr:\n%s", tc.want, out, stderr.String())
			}
			if tc.name == "brave" && gotKey != secret {
				t.Fatalf("the search API got key %q, want the one $ENV:BRAVE_API_KEY names", gotKey)
			}
			// The key is in no output, log, record or other file robota wrote.
			if strings.Contains(stdout.String()+stderr.String(), secret) {
				t.Fatal("the API key is in robota's output")
			}
			for _, root := range []string{filepath.Join(p.Home, ".robota"), filepath.Join(p.Dir, ".robota")} {
				filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return nil
					}
					if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(secret)) {
						t.Errorf("the API key is written in %s", path)
					}
					return nil
				})
			}
		})
	}
}

// TestHeadlessWebSearchNativeByDefaultOnAnthropic: robota -p on Anthropic (a loopback
// fake of its Messages API) with no webSearch setting searches with Anthropic's hosted
// web search, as Claude Code does out of the box: WebSearch's call is one request that
// carries the hosted tool and no function tool, its answer is the tool's result, and the
// session's own requests never carry the hosted tool.
func TestHeadlessWebSearchNativeByDefaultOnAnthropic(t *testing.T) {
	hosted := func(r fakeRequest) bool {
		for _, tool := range r.Body.Tools {
			if tool.Name == "web_search" {
				return true
			}
		}
		return false
	}
	fake := newFakeMessagesAPI(t, []fakeRule{
		{Name: "hosted-search", When: hosted, Reply: fakeReply{Text: "Go 1.18 added generics: https://go.dev/blog/intro-generics"}},
		{Name: "after-search", When: resultOf("WebSearch"), Reply: fakeReply{Text: "found it"}},
		{Name: "search", When: userSays("search the web"), Reply: fakeReply{Text: "Searching.", Tool: "WebSearch",
			Input: map[string]any{"query": "go generics tutorial"}}},
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	p := newProject(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "search the web", "--provider", "anthropic", "--model", "claude-sonnet-4-5",
		"--allowedTools", "WebSearch", "--output-format", "stream-json", "--verbose")
	cmd.Env = append(cmd.Env, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=test-key")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("robota: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if out := stdout.String(); !strings.Contains(out, `Go 1.18 added generics: https://go.dev/blog/intro-generics`) ||
		!strings.Contains(out, `"result":"found it"`) {
		t.Fatalf("stdout lacks the hosted search's answer as WebSearch's result, or the final answer:\n%s\nstderr:\n%s", out, stderr.String())
	}
	var rules []string
	for _, r := range fake.Requests() {
		rules = append(rules, r.Rule)
		if hosted(r) && len(r.Body.Tools) != 1 {
			t.Errorf("the search request carries %d tools, want the hosted one only", len(r.Body.Tools))
		}
	}
	if strings.Join(rules, ",") != "search,hosted-search,after-search" {
		t.Fatalf("requests answered by %v, want the session's, the search's, the session's", rules)
	}
}

// TestHeadlessSubagentWebSearch: a subagent's WebSearch runs in the engine with the
// session's backend (settings.json webSearch, the key from $ENV:BRAVE_API_KEY): the job
// holds no key, and before, a subagent's search always said no backend was configured.
func TestHeadlessSubagentWebSearch(t *testing.T) {
	const secret = "BSA-subagent-SECRET-9"
	braveURL, gotKey := fakeBrave(t)
	p := newProject(t)
	settings := filepath.Join(p.Home, ".robota", "settings.json") // a project file may not send an env key to its own URL
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"webSearch": {"backend": "brave", "url": "`+braveURL+`", "apiKey": "$ENV:BRAVE_API_KEY"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	script := p.script(t, "subagent_websearch", nil)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "delegate a search", "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	cmd.Env = append(cmd.Env, "BRAVE_API_KEY="+secret)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("robota: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "go.dev/doc/tutorial/generics") || !strings.Contains(out, "subagent found it") {
		t.Fatalf("the subagent's search did not reach the backend:\n%s\nstderr:\n%s", out, stderr.String())
	}
	if gotKey() != secret || strings.Contains(out+stderr.String(), secret) {
		t.Fatalf("key at the API %q; in the output: %v", gotKey(), strings.Contains(out+stderr.String(), secret))
	}
}

// fakeBrave serves Brave Search's recorded answer on loopback: the search URL to put in
// settings, and the key the last request carried.
func fakeBrave(t *testing.T) (url string, gotKey func() string) {
	t.Helper()
	recorded, err := os.ReadFile("../pkg/tools/web/testdata/search/brave.json")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var key string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		key = r.Header.Get("X-Subscription-Token")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(recorded)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/res/v1/web/search", func() string {
		mu.Lock()
		defer mu.Unlock()
		return key
	}
}
