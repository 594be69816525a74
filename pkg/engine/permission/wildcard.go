package permission

import "strings"

// A command is matched as a sequence of tokens. Literal characters are themselves;
// a dynamic token stands for text only known at run time ($VAR, $(...), globs ...);
// a quoted space is a space inside one shell word, so it cannot be mistaken for a
// word boundary by an allow rule.
type tokKind uint8

const (
	tokLit tokKind = iota
	tokDyn
	tokQSpace
)

type ctok struct {
	r    rune
	kind tokKind
}

// ptok is one element of a compiled Bash specifier: a literal rune or a `*`.
type ptok struct {
	r    rune
	star bool
}

// bashPattern holds the alternatives a specifier expands to: `ls *` (and the legacy
// `ls:*`) means "ls" alone or "ls " followed by anything, which keeps the word boundary.
type bashPattern struct {
	alts [][]ptok
}

func compileBashPattern(spec string) bashPattern {
	optionalTail := false
	switch {
	case strings.HasSuffix(spec, ":*") && !strings.HasSuffix(spec, `\:*`):
		spec, optionalTail = spec[:len(spec)-2], true
	case strings.HasSuffix(spec, " *") && len(spec) > 2:
		spec, optionalTail = spec[:len(spec)-2], true
	}
	base := compileGlob(spec)
	if !optionalTail {
		return bashPattern{alts: [][]ptok{base}}
	}
	withArgs := append(append(append([]ptok(nil), base...), ptok{r: ' '}), ptok{star: true})
	return bashPattern{alts: [][]ptok{base, withArgs}}
}

// compileGlob turns `*` into a wildcard (`\*` is a literal star) and collapses runs of stars.
func compileGlob(s string) []ptok {
	var out []ptok
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '\\' && i+1 < len(rs) && rs[i+1] == '*':
			out = append(out, ptok{r: '*'})
			i++
		case rs[i] == '*':
			if len(out) == 0 || !out[len(out)-1].star {
				out = append(out, ptok{star: true})
			}
		default:
			out = append(out, ptok{r: rs[i]})
		}
	}
	return out
}

// hasWildcard reports whether the pattern has a `*` (a prefix rule is one).
func (p bashPattern) hasWildcard() bool {
	for _, alt := range p.alts {
		for _, t := range alt {
			if t.star {
				return true
			}
		}
	}
	return false
}

// matchDefinite reports whether the pattern matches the command for every possible
// run-time value of its dynamic tokens: a dynamic token or a quoted space can only be
// covered by a `*`. Allow rules use this.
func (p bashPattern) matchDefinite(t []ctok) bool {
	for _, alt := range p.alts {
		if matchTokens(alt, t, false) {
			return true
		}
	}
	return false
}

// matchPossible reports whether the pattern could match the command for some run-time
// value of its dynamic tokens. Deny and ask rules use this, so that hiding a denied
// command behind an expansion does not get it past them.
func (p bashPattern) matchPossible(t []ctok) bool {
	for _, alt := range p.alts {
		if matchTokens(alt, t, true) {
			return true
		}
	}
	return false
}

// matchTokens decides p[0:] against t[0:] with a two-row dynamic programme over
// f[i][j] = "p[i:] matches t[j:]", O(len(p)*len(t)) time and O(len(t)) space.
func matchTokens(p []ptok, t []ctok, possible bool) bool {
	n := len(t)
	next := make([]bool, n+1) // row i+1
	cur := make([]bool, n+1)  // row i
	// Row len(p): the pattern is used up; what is left of the text must be able to be empty.
	next[n] = true
	for j := n - 1; j >= 0; j-- {
		next[j] = possible && t[j].kind == tokDyn && next[j+1]
	}
	for i := len(p) - 1; i >= 0; i-- {
		cur[n] = p[i].star && next[n]
		for j := n - 1; j >= 0; j-- {
			switch {
			case p[i].star:
				cur[j] = next[j] || cur[j+1]
			case t[j].kind == tokDyn:
				cur[j] = possible && (cur[j+1] || next[j])
			case t[j].kind == tokQSpace:
				cur[j] = possible && p[i].r == ' ' && next[j+1]
			default:
				cur[j] = p[i].r == t[j].r && next[j+1]
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// litTokens turns plain text into literal tokens.
func litTokens(s string) []ctok {
	out := make([]ctok, 0, len(s))
	for _, r := range s {
		out = append(out, ctok{r: r})
	}
	return out
}

// renderTokens shows tokens for messages and tests: a dynamic token prints as `…`.
func renderTokens(t []ctok) string {
	var b strings.Builder
	for _, c := range t {
		if c.kind == tokDyn {
			b.WriteString("…")
			continue
		}
		b.WriteRune(c.r)
	}
	return b.String()
}
