package permission

import (
	"reflect"
	"testing"
)

// The WebFetch(domain:...) rules feed the sandbox network's lists: allow rules its
// allow-list, deny rules its deny-list; other rules do not.
func TestWebFetchDomains(t *testing.T) {
	var rules []Rule
	for _, text := range []struct {
		b    Behavior
		text string
	}{
		{Allow, "WebFetch(domain:github.com)"}, {Allow, "WebFetch(domain:*.npmjs.org)"}, {Allow, "WebFetch"},
		{Allow, "Bash(curl:*)"}, {Deny, "WebFetch(domain:evil.com)"}, {Ask, "WebFetch(domain:ask.com)"},
	} {
		r, err := NewRule(text.b, text.text, Source{})
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
	}
	allow, deny := New(Config{Rules: rules}).WebFetchDomains()
	if want := []string{"github.com", "*.npmjs.org"}; !reflect.DeepEqual(allow, want) {
		t.Errorf("allow = %q, want %q", allow, want)
	}
	if want := []string{"evil.com"}; !reflect.DeepEqual(deny, want) {
		t.Errorf("deny = %q, want %q", deny, want)
	}
}
