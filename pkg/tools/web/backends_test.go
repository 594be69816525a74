package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
)

const testKey = "sk-test-SECRET-0123456789"

// recorded serves testdata/search/{name}.json after check accepts the request, or
// answers status with body when name is empty.
func recorded(t *testing.T, name string, status int, body string, check func(t *testing.T, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check != nil {
			check(t, r)
		}
		if name == "" {
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
		data, err := os.ReadFile(filepath.Join("testdata", "search", name+".json"))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Each search API is asked as its documentation says (method, path, parameters, where
// the key goes) and its recorded answer becomes WebSearch's result list; a refusal is a
// failed result naming the backend and the status, never the key.
func TestSearchAPIBackends(t *testing.T) {
	checkBrave := func(t *testing.T, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search" || r.URL.Query().Get("q") != "go generics tutorial" ||
			r.URL.Query().Get("count") != "10" || r.Header.Get("X-Subscription-Token") != testKey || r.Header.Get("Accept") != "application/json" {
			t.Errorf("brave request: %s %s token=%q", r.Method, r.URL, r.Header.Get("X-Subscription-Token"))
		}
	}
	checkTavily := func(t *testing.T, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if r.Method != http.MethodPost || r.URL.Path != "/search" || r.Header.Get("Authorization") != "Bearer "+testKey ||
			body["query"] != "go generics tutorial" || body["max_results"] != float64(10) {
			t.Errorf("tavily request: %s %s %v auth=%q", r.Method, r.URL, body, r.Header.Get("Authorization"))
		}
		if inc, _ := body["include_domains"].([]any); len(inc) != 1 || inc[0] != "go.dev" {
			t.Errorf("tavily was not given the allowed domains: %v", body)
		}
	}
	checkSearXNG := func(t *testing.T, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/searx/search" || r.URL.Query().Get("q") != "go generics tutorial" ||
			r.URL.Query().Get("format") != "json" || r.Header.Get("Authorization") != "" {
			t.Errorf("searxng request: %s %s", r.Method, r.URL)
		}
	}
	tr := golden.New(nil)
	for _, tc := range []struct {
		name, backend, fixture, path string
		key                          string
		status                       int
		body                         string
		check                        func(*testing.T, *http.Request)
		args                         map[string]any
		maxResults                   int
	}{
		{name: "brave", backend: BackendBrave, fixture: "brave", path: "/res/v1/web/search", key: testKey, check: checkBrave,
			args: map[string]any{"query": "go generics tutorial"}},
		{name: "brave blocked domain", backend: BackendBrave, fixture: "brave", path: "/res/v1/web/search", key: testKey,
			args: map[string]any{"query": "go generics tutorial", "blocked_domains": []string{"gobyexample.com"}}},
		{name: "brave key refused", backend: BackendBrave, path: "/res/v1/web/search", key: testKey, status: 401,
			body: `{"type":"ErrorResponse","error":{"id":"c1","status":401,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."},"time":1700000000}`,
			args: map[string]any{"query": "go generics tutorial"}},
		{name: "brave rate limited", backend: BackendBrave, path: "/res/v1/web/search", key: testKey, status: 429,
			body: `{"type":"ErrorResponse","error":{"id":"c2","status":429,"code":"RATE_LIMITED","detail":"Request rate limit exceeded for plan."},"time":1700000000}`,
			args: map[string]any{"query": "go generics tutorial"}},
		{name: "tavily", backend: BackendTavily, fixture: "tavily", path: "/search", key: testKey, check: checkTavily,
			args: map[string]any{"query": "go generics tutorial", "allowed_domains": []string{"go.dev"}}},
		{name: "searxng", backend: BackendSearXNG, fixture: "searxng", path: "/searx", check: checkSearXNG,
			args: map[string]any{"query": "go generics tutorial"}},
		{name: "searxng max results", backend: BackendSearXNG, fixture: "searxng", path: "/searx", maxResults: 1,
			args: map[string]any{"query": "go generics tutorial"}},
		{name: "searxng without the json format", backend: BackendSearXNG, path: "/searx", status: 403,
			body: "<html><body>403 Forbidden</body></html>", args: map[string]any{"query": "go generics tutorial"}},
		{name: "searxng answers HTML", backend: BackendSearXNG, path: "/searx", body: "<!DOCTYPE html><html><body>SearXNG</body></html>",
			args: map[string]any{"query": "go generics tutorial"}},
	} {
		status := tc.status
		if status == 0 {
			status = http.StatusOK
		}
		srv := recorded(t, tc.fixture, status, tc.body, tc.check)
		backend, err := NewAPIBackend(APIConfig{Backend: tc.backend, URL: srv.URL + tc.path, APIKey: tc.key, MaxResults: tc.maxResults})
		if err != nil {
			t.Fatal(err)
		}
		tool, err := NewSearch(backend)
		if err != nil {
			t.Fatal(err)
		}
		raw := golden.JSON(tc.args)
		res := tool.Execute(context.Background(), json.RawMessage(raw))
		if strings.Contains(res.Output+res.Error, testKey) {
			t.Fatalf("%s: the API key is in the result: %+v", tc.name, res)
		}
		res.Error = strings.ReplaceAll(res.Error, strings.TrimPrefix(srv.URL, "http://"), "127.0.0.1:PORT")
		tr.Add(tc.name, raw, res)
	}
	tr.Check(t, "search_backends.golden")
}

// A backend is refused when what it needs is missing, naming the setting.
func TestAPIBackendNeeds(t *testing.T) {
	for _, tc := range []struct {
		cfg  APIConfig
		want string
	}{
		{APIConfig{Backend: BackendBrave}, "needs an API key"},
		{APIConfig{Backend: BackendTavily}, "needs an API key"},
		{APIConfig{Backend: BackendSearXNG}, "needs the instance's url"},
		{APIConfig{Backend: "google"}, `unknown web search backend "google"`},
	} {
		if _, err := NewAPIBackend(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

type answerer struct{ got SearchRequest }

func (a *answerer) Search(context.Context, SearchRequest) ([]SearchResult, error) { return nil, nil }
func (a *answerer) Answer(_ context.Context, req SearchRequest) (string, error) {
	a.got = req
	return "Go 1.18 added generics [go.dev/blog/intro-generics].\n", nil
}

// A backend that answers in prose (provider-native search) has its answer returned; one
// that cannot search says why.
func TestAnswererAndUnavailableBackends(t *testing.T) {
	a := &answerer{}
	tool, _ := NewSearch(a)
	res := tool.Execute(context.Background(), json.RawMessage(`{"query":"go generics","allowed_domains":["https://go.dev/"]}`))
	if !res.Success || !strings.Contains(res.Output, "Go 1.18 added generics") || a.got.Query != "go generics" ||
		strings.Join(a.got.AllowedDomains, ",") != "go.dev" {
		t.Fatalf("answer result %+v, request %+v", res, a.got)
	}
	tool, _ = NewSearch(Unavailable("provider script has no native web search"))
	res = tool.Execute(context.Background(), json.RawMessage(`{"query":"go generics"}`))
	if res.Success || res.Error != "WebSearch is not available: provider script has no native web search" {
		t.Fatalf("unavailable result %+v", res)
	}
}
