package redact

import "testing"

func TestDetect(t *testing.T) {
	cases := []struct {
		in, kind string
	}{
		{"use sk-ant-api03-abcdefghijklmnop for prod", "an Anthropic API key"},
		{"key sk-proj-abcdefghij1234567890abcd", "an OpenAI-style API key"},
		{"ghp_abcdefghijklmnopqrstuvwxyz0123", "a GitHub token"},
		{"xoxb-1234567890-abcdef", "a Slack token"},
		{"AIzaSyA1234567890abcdefghijklmnopqrstu", "a Google API key"},
		{"curl -H 'Authorization: Bearer abcdef123456'", "a bearer token"},
		{"DB_PASSWORD=hunter22", "a value named DB_PASSWORD"},
		{`{"apiKey": "xyz123"}`, "a value named apiKey"},
		{"use make to build", ""},
		{"sk-learn-compatible-estimators are fine", ""},
		{"TOKEN=", ""},
		{`{"password": ""}`, ""},
	}
	for _, c := range cases {
		kind, found := Detect(c.in)
		if kind != c.kind || found != (c.kind != "") {
			t.Errorf("Detect(%q) = %q, %v; want %q", c.in, kind, found, c.kind)
		}
		// What Detect finds, String redacts (and the other way round).
		if redacted := String(c.in) != c.in; redacted != found {
			t.Errorf("Detect(%q) found=%v but String redacts=%v", c.in, found, redacted)
		}
	}
}

// FuzzDetect checks that what Detect names is something String redacts, so a refusal
// never names a secret the logs would keep.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{"", "sk-ant-abcdefghij", "Bearer abcdefghij", "a=b", "PASSWORD=x", `"token":"1"`, `\"secret\":\"v\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if kind, found := Detect(s); found && (kind == "" || String(s) == s) {
			t.Fatalf("Detect(%q) = %q but String keeps the text", s, kind)
		}
	})
}
