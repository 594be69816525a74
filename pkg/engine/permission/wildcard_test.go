package permission

import "testing"

func TestBashPatternMatch(t *testing.T) {
	dyn := func(parts ...string) []ctok { // "\x00" marks a dynamic token
		var out []ctok
		for _, p := range parts {
			if p == "\x00" {
				out = append(out, ctok{kind: tokDyn})
				continue
			}
			out = append(out, litTokens(p)...)
		}
		return out
	}
	tests := []struct {
		pattern  string
		cmd      []ctok
		definite bool
		possible bool
	}{
		{"ls *", dyn("ls -la"), true, true},
		{"ls *", dyn("ls"), true, true},
		{"ls *", dyn("lsof"), false, false},
		{"ls:*", dyn("ls -la"), true, true},
		{"ls:*", dyn("lsof"), false, false},
		{"ls*", dyn("lsof"), true, true},
		{"npm test", dyn("npm test"), true, true},
		{"npm test", dyn("npm test x"), false, false},
		{"git * main", dyn("git push origin main"), true, true},
		{"git * main", dyn("git main"), false, false},
		{"* --version", dyn("node --version"), true, true},
		{`printf \*`, dyn("printf *"), true, true},
		{`printf \*`, dyn("printf x"), false, false},
		{"echo *", dyn("echo ", "\x00"), true, true},
		{"echo hi", dyn("echo ", "\x00"), false, true},
		{"rm *", dyn("r", "\x00", " -rf /"), false, true},
		{"rm *", dyn("\x00"), false, true},
		{"rm *", dyn("e", "\x00"), false, false},
		{"rm -rf /", dyn("rm -rf /", "\x00"), false, true},
		{"ls *", []ctok{{r: 'l'}, {r: 's'}, {r: ' ', kind: tokQSpace}, {r: 'x'}}, false, true},
		{"ls*", []ctok{{r: 'l'}, {r: 's'}, {r: ' ', kind: tokQSpace}, {r: 'x'}}, true, true},
	}
	for _, tc := range tests {
		p := compileBashPattern(tc.pattern)
		if got := p.matchDefinite(tc.cmd); got != tc.definite {
			t.Errorf("%q definite %q = %v", tc.pattern, renderTokens(tc.cmd), got)
		}
		if got := p.matchPossible(tc.cmd); got != tc.possible {
			t.Errorf("%q possible %q = %v", tc.pattern, renderTokens(tc.cmd), got)
		}
	}
}
