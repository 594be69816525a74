package hook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestDescribeHidesSecrets(t *testing.T) {
	tests := []struct {
		h       Definition
		want    string
		without []string
	}{
		{h: Definition{Type: "http", URL: "https://hooks.example.com/services/T0/B0/XyZsecret?token=abc"},
			want: "http hook https://hooks.example.com/…", without: []string{"XyZsecret", "abc"}},
		{h: Definition{Type: "http", URL: "https://user:pw@example.com"},
			want: "http hook https://example.com/…", without: []string{"user", "pw"}},
		{h: Definition{Type: "http", URL: "http://localhost:8080"}, want: "http hook http://localhost:8080"},
		{h: Definition{Type: "http", URL: "::not a url"}, want: "http hook (unparsable URL)"},
		{h: Definition{Type: "command", Command: "./lint.sh --fix"}, want: `command hook "./lint.sh --fix"`},
		{h: Definition{Type: "command", Command: `curl -H "Authorization: Bearer abcdefgh12345678" https://x.example/hook/Zsecret`},
			without: []string{"abcdefgh12345678", "Zsecret"}},
		{h: Definition{Type: "command", Command: "API_TOKEN=hunter2hunter2 ./notify"}, without: []string{"hunter2"}},
		{h: Definition{Type: "command", Command: "echo " + strings.Repeat("a", 200) + " tail-secret"},
			without: []string{"tail-secret"}},
		{h: Definition{Type: "prompt"}, want: "prompt hook"},
	}
	for _, tc := range tests {
		got := describe(tc.h)
		if tc.want != "" && got != tc.want {
			t.Errorf("describe(%+v) = %q, want %q", tc.h, got, tc.want)
		}
		for _, s := range tc.without {
			if strings.Contains(got, s) {
				t.Errorf("describe(%+v) = %q still contains %q", tc.h, got, s)
			}
		}
		if n := len([]rune(got)); n > maxDescribedCommand+20 {
			t.Errorf("describe(%+v) = %q is %d characters long", tc.h, got, n)
		}
	}
}

// TestFailingHooksLogNoSecrets: neither the log nor the Result's errors repeat a
// webhook URL's path or a command line's token.
func TestFailingHooksLogNoSecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer srv.Close()
	const pathSecret, cmdSecret = "T0PSECRETPATH", "s3cr3tvalue99"
	hooks := []Definition{
		{Type: "http", URL: srv.URL + "/hook/" + pathSecret + "?k=" + pathSecret},
		// Nothing listens on port 1: the transport error names the URL it failed on.
		{Type: "http", URL: "http://127.0.0.1:1/" + pathSecret},
		cmdHook("cat >/dev/null; SERVICE_TOKEN=" + cmdSecret + " false"),
		cmdHook("cat >/dev/null; echo '{\"decision\":\"Block\"}' # MY_SECRET=" + cmdSecret),
	}
	core, logs := observer.New(zap.DebugLevel)
	r := NewRunner(config(PreToolUse, group("", hooks...)), t.TempDir(), WithLogger(zap.New(core)))
	res := r.Run(context.Background(), bashCall("ls"))
	if len(res.Errors) != len(hooks) {
		t.Fatalf("want one error per hook, got %v", res.Errors)
	}
	var seen []string
	for _, e := range res.Errors {
		seen = append(seen, e.Error())
	}
	for _, entry := range logs.All() {
		seen = append(seen, fmt.Sprint(entry.Message, entry.ContextMap()))
	}
	seen = append(seen, res.PermissionDecisionReason, res.Reason)
	for _, s := range seen {
		if strings.Contains(s, pathSecret) || strings.Contains(s, cmdSecret) {
			t.Errorf("secret leaked: %s", s)
		}
	}
	if logs.Len() < len(hooks) {
		t.Fatalf("%d log entries for %d failing hooks", logs.Len(), len(hooks))
	}
}
