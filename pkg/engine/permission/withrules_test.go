package permission

import "testing"

// WithRules adds a layer's worth of rules: an added allow lifts the mode's ask but never
// a deny or an ask rule of the original layers, and the original evaluator is unchanged.
func TestWithRules(t *testing.T) {
	e := newEnv(t)
	base := e.evaluator(t, ModeDefault, deny("Bash(npm publish:*)"), askL("Bash(npm run deploy:*)"))
	extra, err := Rules(Layer{Source: Source{Name: "session"}, Allow: []string{"Bash(npm:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	with := base.WithRules(extra...)
	for _, tc := range []struct {
		cmd        string
		base, with Behavior
	}{
		{"npm test", Ask, Allow},
		{"npm test && rm -rf x", Ask, Ask}, // every part must be allowed
		{"npm publish", Deny, Deny},
		{"npm run deploy", Ask, Ask},
		{"git status", Ask, Ask},
	} {
		if got := base.Evaluate(bashReq(t, tc.cmd)).Behavior; got != tc.base {
			t.Errorf("base %q: %s, want %s", tc.cmd, got, tc.base)
		}
		if got := with.Evaluate(bashReq(t, tc.cmd)).Behavior; got != tc.with {
			t.Errorf("with session rule %q: %s, want %s", tc.cmd, got, tc.with)
		}
	}
	if base.WithRules() != base {
		t.Error("WithRules() without rules should return the evaluator itself")
	}
}
