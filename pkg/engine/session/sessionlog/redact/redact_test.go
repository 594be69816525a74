package redact_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

const (
	anthropicKey = "sk-ant-api03-Zq8xYtW3vKp2LmN7rS4uJ9hG5fD1sA6e"
	openAIKey    = "sk-proj-4f9Kd83LmQp0Zx7Vb2Nw6Ty1Hs5Rj"
	bearerToken  = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
)

func TestIsSecretKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"apiKey", true}, {"api_key", true}, {"x-api-key", true}, {"xApiKey", true},
		{"Authorization", true}, {"accessToken", true}, {"refresh_token", true},
		{"secret", true}, {"clientSecret", true}, {"password", true}, {"DB_PASSWORD", true},
		{"GITHUB_TOKEN", true}, {"openaiApiKey", true}, {"token", true}, {"Cookie", true},
		{"inputTokens", false}, {"outputTokens", false}, {"maxTokens", false},
		{"name", false}, {"key", false}, {"content", false}, {"", false},
		{"tokenCount", false}, {"secrets_manager_arn_but_too_long_" + strings.Repeat("x", 64), false},
	}
	for _, tt := range tests {
		if got := redact.IsSecretKey(tt.key); got != tt.want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"anthropic key inside prose", "my key is " + anthropicKey + " ok", "my key is [REDACTED] ok"},
		{"openai project key", "export X=" + openAIKey, "export X=[REDACTED]"},
		{"classic openai key", "sk-" + strings.Repeat("a1", 24), "[REDACTED]"},
		{"bearer token keeps scheme", "Authorization: Bearer " + bearerToken + "\n", "Authorization: Bearer [REDACTED]\n"},
		{"env assignment", "OPENAI_API_KEY=abc123def456 ./run", "OPENAI_API_KEY=[REDACTED] ./run"},
		{"query string", "https://x.test/v1?api_key=abcdef123&limit=5", "https://x.test/v1?api_key=[REDACTED]&limit=5"},
		{"json-ish pair in truncated text", `{"user":"bob","password":"hunter2","id":`, `{"user":"bob","password":"[REDACTED]","id":`},
		{"escaped json pair", `{\"token\":\"abc\\\"def\"}`, `{\"token\":\"[REDACTED]\"}`},
		{"word sk- survives", "we use sk-learn-compatible-estimators here", "we use sk-learn-compatible-estimators here"},
		{"task- prefix survives", "task-1234567890abcdefghijkl", "task-1234567890abcdefghijkl"},
		{"plain words untouched", "the tokens: 1200, max_tokens=4096", "the tokens: 1200, max_tokens=4096"},
		{"github token", "ghp_" + strings.Repeat("A1b2", 9), "[REDACTED]"},
		{"already redacted", "Bearer [REDACTED] and [REDACTED]", "Bearer [REDACTED] and [REDACTED]"},
		{"empty value kept", `"password": ""`, `"password": ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redact.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStringEmbeddedJSON(t *testing.T) {
	in := `{"headers":{"x-api-key":"k-123","Accept":"json"},"body":"{\"password\":\"p4ss\"}"}`
	got := redact.String(in)
	var tree map[string]any
	if err := json.Unmarshal([]byte(got), &tree); err != nil {
		t.Fatalf("redacted embedded JSON is not JSON: %v: %s", err, got)
	}
	headers := tree["headers"].(map[string]any)
	if headers["x-api-key"] != redact.Placeholder || headers["Accept"] != "json" {
		t.Errorf("headers = %v", headers)
	}
	if body := tree["body"].(string); body != `{"password":"[REDACTED]"}` {
		t.Errorf("body = %q", body)
	}
	if strings.Contains(got, "k-123") || strings.Contains(got, "p4ss") {
		t.Errorf("secret survived: %s", got)
	}
	unchanged := `{"a": [1, 2],  "b": "text"}`
	if got := redact.String(unchanged); got != unchanged {
		t.Errorf("JSON without secrets was rewritten: %q", got)
	}
}

func TestValue(t *testing.T) {
	in := map[string]any{
		"apiKey":   "abc",
		"enabled":  true,
		"password": "",
		"token":    nil,
		"nested": map[string]any{
			"authorization": []any{"Bearer x"},
			"list":          []any{map[string]any{"refreshToken": json.Number("42")}, "Bearer " + bearerToken},
		},
		"prompt":     "use " + anthropicKey,
		anthropicKey: "key text as member name",
		"schema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"token":    map[string]any{"type": "string", "description": "an auth token"},
				"password": "not a schema, a value",
			},
		},
		"secretFlag": false,
	}
	before, _ := json.Marshal(in)
	out := redact.Value(in).(map[string]any)
	after, _ := json.Marshal(in)
	if string(before) != string(after) {
		t.Fatal("Value modified its input")
	}
	nested := out["nested"].(map[string]any)
	list := nested["list"].([]any)
	props := out["schema"].(map[string]any)["properties"].(map[string]any)
	checks := []struct {
		name      string
		got, want any
	}{
		{"apiKey", out["apiKey"], redact.Placeholder},
		{"password empty kept", out["password"], ""},
		{"token null kept", out["token"], nil},
		{"authorization", nested["authorization"], redact.Placeholder},
		{"refreshToken number", list[0].(map[string]any)["refreshToken"], redact.Placeholder},
		{"bearer in list", list[1], "Bearer " + redact.Placeholder},
		{"prompt", out["prompt"], "use " + redact.Placeholder},
		{"member name", out[redact.Placeholder], "key text as member name"},
		{"schema property survives", props["token"].(map[string]any)["description"], "an auth token"},
		{"non-schema value under properties", props["password"], redact.Placeholder},
		{"boolean kept", out["secretFlag"], false},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if again := redact.Value(out); !equalJSON(t, again, out) {
		t.Error("Value is not idempotent")
	}
}

func TestJSON(t *testing.T) {
	got, err := redact.JSON([]byte(`{"apiKey":"abc","n":1.50,"s":"<b>&</b>"}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"apiKey":"[REDACTED]","n":1.50,"s":"<b>&</b>"}`; string(got) != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	for _, bad := range []string{`{"a":1}]`, `{"a":`, ``, `{} {}`} {
		if _, err := redact.JSON([]byte(bad)); err == nil {
			t.Errorf("JSON(%q) accepted invalid JSON", bad)
		}
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("marshal: %v %v", err1, err2)
	}
	return string(ja) == string(jb)
}

// TestValueCopiesOnlyWhatChanges: objects and arrays without anything to redact are
// returned as they are (no copy per log line); one that holds a secret is copied, with
// its clean members shared, and the input is left unchanged.
func TestValueCopiesOnlyWhatChanges(t *testing.T) {
	clean := map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hello"}}}
	tree := map[string]any{"message": clean, "auth": map[string]any{"apiKey": "abc123"}}
	got, ok := redact.Value(tree).(map[string]any)
	if !ok {
		t.Fatalf("Value returned %T", redact.Value(tree))
	}
	if reflect.ValueOf(got).Pointer() == reflect.ValueOf(tree).Pointer() {
		t.Fatal("an object holding a secret was not copied")
	}
	if reflect.ValueOf(got["message"]).Pointer() != reflect.ValueOf(clean).Pointer() {
		t.Error("a clean member object was copied")
	}
	if got["auth"].(map[string]any)["apiKey"] != redact.Placeholder {
		t.Errorf("auth = %v", got["auth"])
	}
	if tree["auth"].(map[string]any)["apiKey"] != "abc123" {
		t.Error("the input was modified")
	}
	if out := redact.Value(clean); reflect.ValueOf(out).Pointer() != reflect.ValueOf(clean).Pointer() {
		t.Error("a tree without secrets was copied")
	}
}

func TestMemberIsIsSecretKeyAndName(t *testing.T) {
	for _, k := range []string{"apiKey", "executionId", "sk-ant-api03-abcdefghijklmnop", "GITHUB_TOKEN", "", "properties",
		"k\u212aey", strings.Repeat("token", 20), "password"} {
		for range 2 { // the second time from what Member remembers
			secret, renamed := redact.Member(k)
			if secret != redact.IsSecretKey(k) || renamed != (redact.Name(k) != k) {
				t.Fatalf("Member(%q) = %v, %v; IsSecretKey %v, Name %q", k, secret, renamed, redact.IsSecretKey(k), redact.Name(k))
			}
		}
	}
}
