package memory

import (
	"strings"
	"testing"
)

func TestEvaluate(t *testing.T) {
	cases := []struct {
		text   string
		action Action
		kind   string
	}{
		{"build with make; tests with go test ./...", Save, ""},
		{"staging db is postgres://app:hunter2secret@db.internal:5432/app", Refuse, "a URL with a password"},
		{"registry at https://deploy:Zx81kLq0@npm.example.com/", Refuse, "a URL with a password"},
		{"use https://user:$PASSWORD@host/ in CI", Save, ""},
		{"stripe key sk_live_51Hq8xLKa92mdPq0Zr7TTtv1x", Refuse, "a service access token"},
		{"restricted rk_test_4eC39HqLyjWDarjtT1zdp7dc", Refuse, "a service access token"},
		{"publish with npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b", Refuse, "a service access token"},
		{"gitlab glpat-xY12AbCdEfGhIjKlMnOp", Refuse, "a service access token"},
		{"the API key is in the vault, read it from $ANTHROPIC_API_KEY", Save, ""},
		{"the password is stored in 1Password", Save, ""},
		{"pinned to commit 3f786850e387550fdab836ed7e6dc881de23001b", Save, ""},
		{"use sk-ant-api03-abcdefghijklmnopqrstuvwx for prod", Refuse, "an Anthropic API key"},
		{"OPENAI_API_KEY=sk-proj-abcdefghij1234567890abcd", Refuse, "an OpenAI-style API key"},
		{"deploy token ghp_abcdefghijklmnopqrstuvwxyz0123", Refuse, "a GitHub token"},
		{"call it with Authorization: Bearer abcdefgh12345678", Refuse, "a bearer token"},
		{"DB_PASSWORD=hunter22", Refuse, "a value named DB_PASSWORD"},
		{"the staging password is hunter22", Refuse, "a password"},
		{"admin pwd: Tr0ub4dor&3", Refuse, "a password"},
		{"api key: abcd1234efgh5678", Refuse, "a token or key"},
		{"aws AKIAIOSFODNN7EXAMPLE", Refuse, "an AWS access key"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", Refuse, "a private key"},
		{"-----BEGIN RSA PRIVATE KEY-----", Refuse, "a private key"},
		{"test card 4111 1111 1111 1111", Refuse, "a payment card number"},
		{"ssn 123-45-6789", Refuse, "a national identity number"},
		{"session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", Refuse, "a JSON Web Token"},
		{"ask ana@example.com for prod access", Review, "an e-mail address"},
		{"the seed is Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb", Review, "a long random-looking string"},
	}
	for _, c := range cases {
		v := Evaluate(c.text)
		if v.Action != c.action || v.Kind != c.kind {
			t.Errorf("Evaluate(%q) = %+v; want %s %q", c.text, v, c.action, c.kind)
			continue
		}
		if c.action != Save && (v.Reason == "" || !strings.Contains(v.Reason, c.kind)) {
			t.Errorf("Evaluate(%q): reason %q does not name %q", c.text, v.Reason, c.kind)
		}
	}
}
