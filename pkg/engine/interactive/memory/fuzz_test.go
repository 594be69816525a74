package memory

import (
	"path"
	"strings"
	"testing"
)

// FuzzMemoryInput runs the parsers of untrusted memory text (topic names from commands,
// topic files written by hand or by another tool, texts given to the policy) and checks
// their invariants.
func FuzzMemoryInput(f *testing.F) {
	for _, s := range []string{"", "build", "../x", "a/b", "- [project] x _(2026-01-01)_", "* y", "password is x",
		"-----BEGIN PRIVATE KEY-----", "4111111111111111", "a@b.co", "\r\n- [user]  \r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		topic := NormalizeTopic(s)
		if ValidTopic(topic) == nil {
			p := TopicPath(topic)
			if path.Clean(p) != p || path.Dir(p) != TopicsDir || strings.ContainsAny(topic, `/\`) {
				t.Fatalf("topic %q makes path %q", topic, p)
			}
		}
		for _, e := range parseEntries(s) {
			if strings.TrimSpace(e.Text) == "" || strings.Contains(e.Text, "\n") {
				t.Fatalf("entry %+v", e)
			}
			if again := parseEntries(Entry{Type: e.Type, Text: oneLine(e.Text), Date: e.Date}.line()); len(again) != 1 || normalize(again[0].Text) != normalize(e.Text) {
				t.Fatalf("entry %+v does not round-trip: %+v", e, again)
			}
		}
		v := Evaluate(s)
		if v.Action != Save && v.Action != Review && v.Action != Refuse {
			t.Fatalf("action %q", v.Action)
		}
		if v.Action != Save && (v.Reason == "" || (len(s) > 12 && strings.Contains(v.Reason, s))) {
			t.Fatalf("reason %q for %q", v.Reason, s)
		}
	})
}
