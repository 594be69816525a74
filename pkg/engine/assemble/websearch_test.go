package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/web"
)

const webSearchScript = `
turns:
  - when: {lastToolResultContains: "WebSearch"}
    text: "done"
  - when: {lastToolResultContains: "search"}
    text: "done"
  - text: "searching"
    toolCalls:
      - {id: toolu_ws, name: WebSearch, input: {query: "go generics tutorial"}}
`

// The WebSearch tool of an assembled session is backed as settings.json `webSearch`
// says: a search API (here a SearXNG instance serving a recorded answer), nothing (the
// result says how to configure one), or native on a provider without hosted search (a
// warning at assembly, and the result says why).
func TestWebSearchBackendFromSettings(t *testing.T) {
	recorded, err := os.ReadFile("../../tools/web/testdata/search/searxng.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") != "go generics tutorial" {
			http.Error(w, "unexpected request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(recorded)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name, settings string
		result         string // substring of the WebSearch result
		warning        string // substring of an assembly warning
	}{
		{name: "searxng", settings: fmt.Sprintf(`"webSearch": {"backend": "searxng", "url": %q}`, srv.URL),
			result: "1. Tutorial: Getting started with generics\n   https://go.dev/doc/tutorial/generics"},
		// No setting with a provider without hosted search: the implicit native backend
		// says how to configure one, with no assembly warning.
		{name: "none", settings: `"model": "default"`,
			result: `WebSearch is not available: no web search backend is configured. To enable it, set "webSearch"`},
		{name: "native without hosted search", settings: `"webSearch": {"backend": "native"}`,
			result:  "WebSearch is not available: webSearch.backend in .claude/settings.json is native, but provider script has no native web search",
			warning: "provider script has no native web search; set webSearch.backend to brave, tavily or searxng"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := project(t, webSearchScript, `, "permissions": {"allow": ["WebSearch"]}, `+tc.settings)
			ctx := context.Background()
			a, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil)})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(ctx, "other")
			if tc.warning != "" && !strings.Contains(strings.Join(a.Warnings, "\n"), tc.warning) {
				t.Errorf("warnings %q, want %q", a.Warnings, tc.warning)
			}
			if tc.warning == "" && strings.Contains(strings.Join(a.Warnings, "\n"), "search") {
				t.Errorf("warnings %q, want none about web search", a.Warnings)
			}
			if _, err := a.Session.Run(ctx, "search the web"); err != nil {
				t.Fatal(err)
			}
			var results []string
			for _, m := range a.Session.Messages() {
				for _, part := range m.Content {
					if part.ToolResult != nil {
						results = append(results, part.ToolResult.Content)
					}
				}
			}
			if len(results) != 1 || !strings.Contains(results[0], tc.result) {
				t.Fatalf("WebSearch results %q, want one with %q", results, tc.result)
			}
		})
	}
}

// fakeHosted is a provider with hosted web search.
type fakeHosted struct {
	configured *llm.NativeWebToolRequest
	got        llm.ChatRequest
	answer     string
}

func (f *fakeHosted) Name() string { return "hosted" }
func (f *fakeHosted) Capabilities() llm.Capabilities {
	c := llm.Capabilities{FunctionCalling: true, Streaming: true}
	c.NativeWebTools.WebSearch = llm.NativeToolSupport{Supported: true, Enabled: f.configured != nil && f.configured.WebSearch}
	return c
}
func (f *fakeHosted) ConfigureNativeWebTools(r llm.NativeWebToolRequest) { f.configured = &r }
func (f *fakeHosted) Chat(_ context.Context, req llm.ChatRequest, _ llm.Callbacks) (llm.ChatResponse, error) {
	f.got = req
	return llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart(f.answer)}}}, nil
}

// Native search is one call, with the hosted search tool asked for and no function tool,
// to a second instance of the session's provider with hosted search switched on; the
// session's own instance stays as it was, so its rounds never carry the hosted tool.
func TestNativeSearchAsksTheProvidersHostedTool(t *testing.T) {
	mainP := &fakeHosted{}
	searchP := &fakeHosted{answer: "Go 1.18 added generics (https://go.dev/blog/intro-generics)."}
	n := &nativeSearch{source: "~/.robota/settings.json"}
	tool, err := web.NewSearch(webSearchBackendNative(t, n))
	if err != nil {
		t.Fatal(err)
	}
	n.bind(mainP, "claude-x", func() (llm.Provider, error) { return searchP, nil })
	res := tool.Execute(context.Background(), json.RawMessage(`{"query":"go generics","blocked_domains":["spam.test"]}`))
	if !res.Success || !strings.Contains(res.Output, "Go 1.18 added generics (https://go.dev/blog/intro-generics).") {
		t.Fatalf("result %+v", res)
	}
	got := searchP.got
	if got.Model != "claude-x" || got.NativeWebTools == nil || !got.NativeWebTools.WebSearch || len(got.Tools) != 0 ||
		!strings.Contains(got.Messages[len(got.Messages)-1].Text(), "Perform a web search for the query: go generics\nNever use results from these domains: spam.test") {
		t.Fatalf("search call %+v", got)
	}
	if searchP.configured == nil || !searchP.configured.WebSearch || mainP.configured != nil {
		t.Fatalf("hosted search switched on: search instance %v, session instance %v", searchP.configured, mainP.configured)
	}
}

func webSearchBackendNative(t *testing.T, n *nativeSearch) web.SearchBackend {
	t.Helper()
	b := webSearchBackend(configWebSearch("native"), n)
	if b != web.SearchBackend(n) {
		t.Fatalf("backend native is %T", b)
	}
	return b
}

func configWebSearch(backend string) config.WebSearch {
	return config.WebSearch{Backend: backend, Source: config.Source{Display: "~/.robota/settings.json"}}
}

// hostedScript is a scripted provider that also has hosted web search (as Anthropic
// has): a call asking for it gets answer, every other call the script.
type hostedScript struct {
	llm.Provider
	answer   string
	searches []llm.ChatRequest
}

func (h *hostedScript) Capabilities() llm.Capabilities {
	c := llm.ProviderCapabilities(h.Provider)
	c.NativeWebTools.WebSearch = llm.NativeToolSupport{Supported: true}
	return c
}

func (h *hostedScript) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	if req.NativeWebTools != nil && req.NativeWebTools.WebSearch {
		h.searches = append(h.searches, req)
		return llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart(h.answer)}}}, nil
	}
	return h.Provider.Chat(ctx, req, cb)
}

// With no webSearch setting, a provider with hosted search backs WebSearch itself (the
// spec: enabled automatically with Anthropic; Claude Code searches out of the box): the
// tool's call is one hosted-search call, and assembly warns of nothing.
func TestWebSearchNativeByDefaultWithHostedSearch(t *testing.T) {
	dir, home := project(t, webSearchScript, `, "permissions": {"allow": ["WebSearch"]}`)
	p := &hostedScript{Provider: scriptProvider(t, webSearchScript), answer: "Go 1.18 added generics (https://go.dev/blog/intro-generics)."}
	ctx := context.Background()
	a, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil), LLM: p})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx, "other")
	if w := strings.Join(a.Warnings, "\n"); strings.Contains(w, "search") {
		t.Errorf("warnings %q, want none about web search", a.Warnings)
	}
	if _, err := a.Session.Run(ctx, "search the web"); err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, m := range a.Session.Messages() {
		for _, part := range m.Content {
			if part.ToolResult != nil {
				results = append(results, part.ToolResult.Content)
			}
		}
	}
	if len(results) != 1 || !strings.Contains(results[0], "Go 1.18 added generics (https://go.dev/blog/intro-generics).") {
		t.Fatalf("WebSearch results %q, want the hosted search's answer", results)
	}
	if len(p.searches) != 1 || len(p.searches[0].Tools) != 0 ||
		!strings.Contains(p.searches[0].Messages[len(p.searches[0].Messages)-1].Text(), "Perform a web search for the query: go generics tutorial") {
		t.Fatalf("hosted search calls %+v, want one for the query with no function tool", p.searches)
	}
}
