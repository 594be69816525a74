package hook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHTTPHooks(t *testing.T) {
	type seen struct {
		body        map[string]any
		contentType string
		auth        string
		other       string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		select {
		case got <- seen{body, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), r.Header.Get("X-Other")}:
		default:
		}
		switch r.URL.Path {
		case "/deny":
			_, _ = io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy server says no"}}`)
		case "/empty":
		case "/fail":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/forbidden":
			http.Error(w, "nope", http.StatusForbidden)
		case "/hang":
			<-r.Context().Done()
		}
	}))
	defer srv.Close()

	env := map[string]string{"HOOK_TOKEN": "s3cret", "OTHER_SECRET": "leak"}
	x := &HTTPExecutor{Client: srv.Client(), LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	tests := []struct {
		path     string
		timeout  float64
		blocked  bool
		decision string
		errIs    error
	}{
		{path: "/deny", blocked: true, decision: "deny"},
		{path: "/empty"},
		{path: "/fail", errIs: ErrHookFailed},
		{path: "/forbidden", errIs: ErrHookFailed},
		{path: "/hang", timeout: 0.2, errIs: ErrTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			h := Definition{Type: "http", URL: srv.URL + tc.path, Timeout: tc.timeout,
				Headers:        map[string]string{"Authorization": "Bearer ${HOOK_TOKEN}", "X-Other": "[$OTHER_SECRET]"},
				AllowedEnvVars: []string{"HOOK_TOKEN"}}
			r := NewRunner(config(PreToolUse, group("Bash", h)), t.TempDir(), WithExecutor("http", x))
			res := r.Run(context.Background(), bashCall("rm -rf /"))
			if res.Blocked != tc.blocked || res.PermissionDecision != tc.decision {
				t.Fatalf("blocked=%v decision=%q errors=%v", res.Blocked, res.PermissionDecision, res.Errors)
			}
			if tc.errIs != nil && (len(res.Errors) != 1 || !errors.Is(res.Errors[0], tc.errIs)) {
				t.Fatalf("errors %v, want %v", res.Errors, tc.errIs)
			}
			if tc.errIs == nil && len(res.Errors) != 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			s := <-got
			if s.body["tool_name"] != "Bash" || s.body["hook_event_name"] != "PreToolUse" || s.contentType != "application/json" {
				t.Fatalf("request %+v", s)
			}
			if s.auth != "Bearer s3cret" || s.other != "[]" {
				t.Fatalf("headers: Authorization %q, X-Other %q", s.auth, s.other)
			}
		})
	}
}

func TestHTTPRejectsNonHTTPURLs(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "ftp://x/", "not a url", "http://"} {
		_, err := NewHTTPExecutor().Execute(context.Background(), Definition{Type: "http", URL: u}, []byte("{}"))
		if !errors.Is(err, ErrHookFailed) || !strings.Contains(err.Error(), "http") {
			t.Errorf("%q: %v", u, err)
		}
	}
}

// An http hook's `method` picks the request method (POST by default); a method whose
// request carries no body is a configuration error.
func TestHTTPHookMethod(t *testing.T) {
	methods := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(b), `"tool_name":"Bash"`) {
			http.Error(w, "no input", http.StatusBadRequest)
			return
		}
		methods <- r.Method
	}))
	defer srv.Close()
	for _, tc := range []struct{ method, want string }{{"", "POST"}, {"put", "PUT"}, {"PATCH", "PATCH"}, {"POST", "POST"}} {
		h := Definition{Type: "http", URL: srv.URL, Method: tc.method}
		if err := validate(h); err != nil {
			t.Fatalf("method %q: %v", tc.method, err)
		}
		r := NewRunner(config(PreToolUse, group("Bash", h)), t.TempDir(), WithExecutor("http", &HTTPExecutor{Client: srv.Client()}))
		if res := r.Run(context.Background(), bashCall("ls")); len(res.Errors) != 0 {
			t.Fatalf("method %q: %v", tc.method, res.Errors)
		}
		if got := <-methods; got != tc.want {
			t.Fatalf("method %q sent %s, want %s", tc.method, got, tc.want)
		}
	}
	for _, bad := range []string{"GET", "DELETE", "BREW"} {
		if err := validate(Definition{Type: "http", URL: srv.URL, Method: bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Fatalf("method %q: %v, want a configuration error naming it", bad, err)
		}
	}
}
