package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is a shell word rendered for matching.
type word struct {
	toks []ctok
	// static: no part of the word is decided at run time; lit then holds its value.
	static bool
	lit    string
	// splittable: the word may expand to zero or several words (unquoted expansion,
	// glob, brace expansion), so positional reasoning past it is unsound.
	splittable bool
	// tilde: the word starts with an unquoted `~`, which the shell expands.
	tilde bool
	// glob is the word as a filepath.Match pattern when its only run-time parts are
	// unquoted pathname patterns (`*.go`, `.en?`, `[ab]`): it can be expanded against
	// the filesystem as bash would.
	glob string
}

func dynWord() word {
	return word{toks: []ctok{{kind: tokDyn}}, splittable: true}
}

func litWord(s string) word {
	return word{toks: litTokens(s), static: true, lit: s}
}

// renderWord renders a parsed word: quotes removed, escapes applied, every run-time
// part (parameter, command and arithmetic expansion, globs, brace expansion, ANSI-C
// escapes) turned into a dynamic token.
func renderWord(w *syntax.Word) word {
	out := word{static: true}
	if hasBraceExpansion(w) {
		return dynWord()
	}
	var lit strings.Builder
	add := func(r rune, kind tokKind) {
		if kind == tokDyn {
			out.static = false
			if n := len(out.toks); n > 0 && out.toks[n-1].kind == tokDyn {
				return
			}
		}
		out.toks = append(out.toks, ctok{r: r, kind: kind})
		lit.WriteRune(r)
	}
	addText := func(s string) {
		for _, r := range s {
			if isSpace(r) {
				add(r, tokQSpace)
			} else {
				add(r, tokLit)
			}
		}
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~") {
		out.tilde = true
	}
	globbed := false
	for _, part := range w.Parts {
		if globbed {
			break
		}
		switch p := part.(type) {
		case *syntax.Lit:
			globbed = renderUnquoted(p.Value, add)
			if globbed {
				out.splittable = true
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				add(0, tokDyn)
				continue
			}
			addText(p.Value)
		case *syntax.DblQuoted:
			for _, qp := range p.Parts {
				if l, ok := qp.(*syntax.Lit); ok {
					addText(unescapeDouble(l.Value))
					continue
				}
				add(0, tokDyn)
			}
		default:
			// ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob, BraceExp: unquoted,
			// so subject to word splitting and globbing as well.
			add(0, tokDyn)
			out.splittable = true
		}
	}
	if out.static {
		out.lit = lit.String()
	} else {
		out.glob = globPattern(w)
	}
	return out
}

// globPattern renders a word as a filepath.Match pattern: unquoted text as written
// (its backslash escapes are Match's), quoted text with its metacharacters escaped.
// It returns "" when the word has other run-time parts or no pattern at all.
func globPattern(w *syntax.Word) string {
	var b strings.Builder
	quote := func(s string) {
		for _, r := range s {
			if strings.ContainsRune(`*?[\`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	meta := false
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := strings.ReplaceAll(p.Value, "\\\n", "")
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' {
					i++
					continue
				}
				if strings.IndexByte("*?[", v[i]) >= 0 {
					meta = true
				}
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				return ""
			}
			quote(p.Value)
		case *syntax.DblQuoted:
			for _, qp := range p.Parts {
				l, ok := qp.(*syntax.Lit)
				if !ok {
					return ""
				}
				quote(unescapeDouble(l.Value))
			}
		default:
			return ""
		}
	}
	if !meta {
		return ""
	}
	return b.String()
}

// renderUnquoted renders an unquoted literal. It reports true when it met a bracket
// glob, after which the rest of the word is one dynamic token.
func renderUnquoted(v string, add func(rune, tokKind)) bool {
	rs := []rune(v)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			if rs[i] == '\n' {
				continue
			}
			if isSpace(rs[i]) {
				add(rs[i], tokQSpace)
			} else {
				add(rs[i], tokLit)
			}
		case r == '*' || r == '?':
			add(0, tokDyn)
		case r == '[':
			add(0, tokDyn)
			return true
		default:
			add(r, tokLit)
		}
	}
	return false
}

// unescapeDouble applies the backslash escapes that are active inside double quotes.
func unescapeDouble(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// hasBraceExpansion is deliberately broader than bash: an unquoted `{` and a later
// unquoted `}` in one word make it dynamic, except the literal `{}`.
func hasBraceExpansion(w *syntax.Word) bool {
	open := false
	for _, part := range w.Parts {
		l, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		if l.Value == "{}" && len(w.Parts) == 1 {
			return false
		}
		for i := 0; i < len(l.Value); i++ {
			switch l.Value[i] {
			case '\\':
				i++
			case '{':
				open = true
			case '}':
				if open {
					return true
				}
			}
		}
	}
	return false
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// joinWords renders words separated by single literal spaces.
func joinWords(ws []word) []ctok {
	var out []ctok
	for i, w := range ws {
		if i > 0 {
			out = append(out, ctok{r: ' '})
		}
		out = append(out, w.toks...)
	}
	return out
}

func printNode(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "<unprintable>"
	}
	return b.String()
}
