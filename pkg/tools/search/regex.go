package search

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// errLineBreak: a single-line search pattern that can only match across a line break.
var errLineBreak = errors.New("the pattern matches a line break")

// compiled is one search pattern in the two forms the backends need. Both come from the same
// parsed syntax tree, so both backends run the same regular expression: rgPattern spells out
// every class (\w is [0-9A-Z_a-z], not Unicode) and flag exactly as Go understood them.
type compiled struct {
	re        *regexp.Regexp
	rgPattern string
}

// compilePattern parses pattern with RE2 (Perl) syntax. Without multiline, ^ and $ match at
// line boundaries and nothing matches a line break: classes and . lose \n, as in ripgrep's
// line-oriented search, and a literal \n is refused. With multiline, . also matches \n.
func compilePattern(pattern string, ignoreCase, multiline bool) (*compiled, error) {
	flags := syntax.ClassNL | syntax.PerlX | syntax.UnicodeGroups
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	if multiline {
		flags |= syntax.DotNL
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w", pattern, err)
	}
	if !multiline {
		if err := dropLineBreaks(tree); err != nil {
			return nil, err
		}
	}
	goPattern := tree.String()
	re, err := regexp.Compile(goPattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w", pattern, err)
	}
	return &compiled{re: re, rgPattern: asciiWordBoundaries(goPattern)}, nil
}

// dropLineBreaks removes \n from every class and turns "any character" into "any but \n".
// A literal \n cannot be removed without changing what the pattern means, so it is refused.
func dropLineBreaks(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return fmt.Errorf("%w (\\n); set multiline to true to search across lines", errLineBreak)
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		re.Rune = withoutNewline(re.Rune)
		if len(re.Rune) == 0 {
			return fmt.Errorf("%w (a class that only matches \\n); set multiline to true to search across lines", errLineBreak)
		}
	}
	for _, sub := range re.Sub {
		if err := dropLineBreaks(sub); err != nil {
			return err
		}
	}
	return nil
}

// withoutNewline removes '\n' from a class given as sorted [lo, hi] pairs.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo > '\n' || hi < '\n' {
			out = append(out, lo, hi)
			continue
		}
		if lo < '\n' {
			out = append(out, lo, '\n'-1)
		}
		if hi > '\n' {
			out = append(out, '\n'+1, hi)
		}
	}
	return out
}

// asciiWordBoundaries rewrites \b and \B (outside classes) as ASCII word boundaries for
// ripgrep, whose \b is Unicode-aware while Go's is ASCII.
func asciiWordBoundaries(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			next := p[i+1]
			if !inClass && (next == 'b' || next == 'B') {
				b.WriteString(`(?-u:\` + string(next) + `)`)
			} else {
				b.WriteByte(c)
				b.WriteByte(next)
			}
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}
