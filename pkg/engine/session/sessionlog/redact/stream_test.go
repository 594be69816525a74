package redact_test

import (
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

func TestSettledPrefix(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		n          int
		secret     bool
	}{
		{"empty", "", 0, false},
		{"no whitespace yet", "Sure,", 0, false},
		{"whitespace only", "  \n", 0, false},
		{"up to the last space", "Sure, your key", 11, false},
		{"a key in progress stays unsettled", "my key is sk-ant-api03-Zq8x", 10, false},
		{"a complete key before the cut", "my key is " + anthropicKey + " ok", 10 + len(anthropicKey) + 1, true},
		{"a pair name before its value", `cfg "password": `, 16, false},
		{"an unterminated pair value is already secret", `"password": "hunter2 and`, 21, true},
		{"a bearer word before its token", "Authorization: Bearer ", 22, false},
		{"a JSON document waits until complete", `{"token": ["abc", `, 0, false},
		{"a JSON array too, after whitespace", "\n [1, 2, ", 0, false},
		{"no-break space is no cut", "PASSWORD=abc\u00a0def", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, secret := redact.SettledPrefix(tc.text)
			if n != tc.n || secret != tc.secret {
				t.Fatalf("SettledPrefix(%q) = %d, %v; want %d, %v", tc.text, n, secret, tc.n, tc.secret)
			}
		})
	}
}

// FuzzSettledPrefix checks the promise streaming relies on: once SettledPrefix(s) reports
// a clean prefix of n bytes, no continuation x changes those bytes under redaction, so
// text written up to n never holds part of a secret completed later.
func FuzzSettledPrefix(f *testing.F) {
	seeds := []struct{ s, x string }{
		{"my key is sk-ant-", "api03-Zq8xYtW3vKp2LmN7rS4uJ9hG5fD1sA6e thanks"},
		{"my key is ", anthropicKey},
		{"export OPENAI_API_KEY=", "sk-proj-4f9Kd83LmQp0Zx7Vb2Nw6Ty1Hs5Rj\n"},
		{`config: "password": `, `"hunter2" done`},
		{`"password"  `, `: "x y z"`},
		{`note \"token\": \"`, `abc\" more`},
		{"Authorization: Bearer ", bearerToken},
		{"tokens: ghp_", "abcdefghijklmnopqrstuvwxyz0123"},
		{"  ", `{"apiKey": "abc"}`},
		{"a ", "ask-proj-4f9Kd83LmQp0Zx7Vb2Nw6Ty1Hs5Rj"},
		{"PASSWORD=abc ", "def"},
		{"x=1 ", "&token=abcdef"},
	}
	for _, s := range seeds {
		f.Add(s.s, s.x)
	}
	f.Fuzz(func(t *testing.T, s, x string) {
		n, secret := redact.SettledPrefix(s)
		if n < 0 || n > len(s) {
			t.Fatalf("SettledPrefix(%q) = %d: out of range", s, n)
		}
		if secret {
			if redact.String(s[:n]) == s[:n] {
				t.Fatalf("SettledPrefix(%q) reports a secret in %q, which redaction leaves alone", s, s[:n])
			}
			return
		}
		if out := redact.String(s + x); !strings.HasPrefix(out, s[:n]) {
			t.Fatalf("settled prefix %q of %q was changed by the continuation %q: %q", s[:n], s, x, out)
		}
	})
}
