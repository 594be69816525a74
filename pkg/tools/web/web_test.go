package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
)

// newServer serves the fixtures on loopback. Its second name ("localhost" instead of
// 127.0.0.1) is another host for redirect purposes.
func newServer(t *testing.T) (srv *httptest.Server, otherHost string, release func()) {
	t.Helper()
	blocked := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>T</title><style>p{}</style><script>alert(1)</script></head>
<body><h1>Hello</h1><p>Some <b>bold</b> text and a <a href="/docs">link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "just text\n")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n0000"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("0123456789", 100))
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/same-host-redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/plain", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-blocked:
		}
	})
	srv = httptest.NewServer(mux)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	otherHost = "http://localhost:" + port
	mux.HandleFunc("/cross-host-redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherHost+"/plain", http.StatusMovedPermanently)
	})
	return srv, otherHost, func() { close(blocked); srv.Close() }
}

func TestFetchGolden(t *testing.T) {
	srv, other, release := newServer(t)
	defer release()
	fetch, err := NewFetch(FetchConfig{})
	if err != nil {
		t.Fatal(err)
	}
	small, _ := NewFetch(FetchConfig{MaxBytes: 100})
	fast, _ := NewFetch(FetchConfig{Timeout: 200 * time.Millisecond})
	tr := golden.New([]string{srv.URL, "$SERVER", other, "$OTHER"}, "durationMs")
	for _, c := range []struct {
		name string
		tool *Fetch
		args map[string]any
	}{
		{"html converted to markdown", fetch, map[string]any{"url": srv.URL + "/page", "prompt": "What is the heading?"}},
		{"plain text", fetch, map[string]any{"url": srv.URL + "/plain", "prompt": "p"}},
		{"json", fetch, map[string]any{"url": srv.URL + "/json", "prompt": "p"}},
		{"same-host redirect followed", fetch, map[string]any{"url": srv.URL + "/same-host-redirect", "prompt": "p"}},
		{"cross-host redirect reported", fetch, map[string]any{"url": srv.URL + "/cross-host-redirect", "prompt": "p"}},
		{"redirect loop", fetch, map[string]any{"url": srv.URL + "/loop", "prompt": "p"}},
		{"size cap", small, map[string]any{"url": srv.URL + "/big", "prompt": "p"}},
		{"timeout", fast, map[string]any{"url": srv.URL + "/slow", "prompt": "p"}},
		{"HTTP error status", fetch, map[string]any{"url": srv.URL + "/missing", "prompt": "p"}},
		{"binary content", fetch, map[string]any{"url": srv.URL + "/image", "prompt": "p"}},
		{"file scheme refused", fetch, map[string]any{"url": "file:///etc/passwd", "prompt": "p"}},
		{"ftp scheme refused", fetch, map[string]any{"url": "ftp://example.com/x", "prompt": "p"}},
		{"relative URL refused", fetch, map[string]any{"url": "/just/a/path", "prompt": "p"}},
		{"URL without host", fetch, map[string]any{"url": "http://", "prompt": "p"}},
		{"connection refused", fetch, map[string]any{"url": closedURL(t), "prompt": "p"}},
		{"missing prompt", fetch, map[string]any{"url": srv.URL + "/plain"}},
	} {
		raw := golden.JSON(c.args)
		tr.Add(c.name, raw, c.tool.Execute(context.Background(), json.RawMessage(raw)))
	}
	out := tr.String()
	// The refused connection's port is random: keep the golden file stable.
	out = regexpPort.ReplaceAllString(out, "127.0.0.1:$$PORT")
	golden.Compare(t, "fetch.golden", out)
}

// closedURL returns a loopback URL nothing listens on.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/"
}

type processor struct{ got []string }

func (p *processor) Process(_ context.Context, prompt, url, markdown string) (string, error) {
	p.got = []string{prompt, url, markdown}
	if prompt == "fail" {
		return "", errors.New("model unavailable")
	}
	return "answer", nil
}

func TestFetchProcessor(t *testing.T) {
	srv, _, release := newServer(t)
	defer release()
	p := &processor{}
	fetch, _ := NewFetch(FetchConfig{Processor: p})
	res := fetch.Execute(context.Background(), json.RawMessage(`{"url":"`+srv.URL+`/plain","prompt":"summarize"}`))
	if !res.Success || res.Output != "answer" {
		t.Fatalf("result = %+v", res)
	}
	if p.got[0] != "summarize" || p.got[1] != srv.URL+"/plain" || p.got[2] != "just text\n" {
		t.Fatalf("processor got %q", p.got)
	}
	res = fetch.Execute(context.Background(), json.RawMessage(`{"url":"`+srv.URL+`/plain","prompt":"fail"}`))
	if res.Success || !strings.Contains(res.Error, "model unavailable") {
		t.Fatalf("result = %+v", res)
	}
}

type fakeSearch struct {
	got     SearchRequest
	results []SearchResult
	err     error
}

func (f *fakeSearch) Search(_ context.Context, req SearchRequest) ([]SearchResult, error) {
	f.got = req
	return f.results, f.err
}

func TestSearchGolden(t *testing.T) {
	none, _ := NewSearch(nil)
	backend := &fakeSearch{results: []SearchResult{
		{Title: "Go", URL: "https://go.dev/doc", Snippet: "The Go\n  programming language"},
		{Title: "Blog", URL: "https://blog.example.com/post", Snippet: "a post"},
		{Title: "Spam", URL: "https://www.spam.test/x"},
		{Title: "Bad URL", URL: "::not a url"},
	}}
	with, _ := NewSearch(backend)
	failing, _ := NewSearch(&fakeSearch{err: errors.New("quota exceeded")})
	empty, _ := NewSearch(&fakeSearch{})
	tr := golden.New(nil)
	for _, c := range []struct {
		name string
		tool *Search
		args map[string]any
	}{
		{"no backend configured", none, map[string]any{"query": "golang generics"}},
		{"results", with, map[string]any{"query": "golang"}},
		{"allowed domains (subdomains included)", with, map[string]any{"query": "golang", "allowed_domains": []string{"example.com", "https://go.dev/"}}},
		{"blocked domains", with, map[string]any{"query": "golang", "blocked_domains": []string{"spam.test"}}},
		{"both domain lists", with, map[string]any{"query": "golang", "allowed_domains": []string{"a.com"}, "blocked_domains": []string{"b.com"}}},
		{"no results", empty, map[string]any{"query": "zzzz"}},
		{"backend error", failing, map[string]any{"query": "golang"}},
		{"query too short", with, map[string]any{"query": "g"}},
	} {
		raw := golden.JSON(c.args)
		tr.Add(c.name, raw, c.tool.Execute(context.Background(), json.RawMessage(raw)))
	}
	tr.Check(t, "search.golden")
	if fmt.Sprint(backend.got.BlockedDomains) != "[spam.test]" {
		t.Fatalf("backend was not told the blocked domains: %+v", backend.got)
	}
}

var regexpPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)
