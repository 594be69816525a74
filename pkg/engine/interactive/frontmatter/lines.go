package frontmatter

import (
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"go.yaml.in/yaml/v3"
)

var (
	keyLine  = lazy.NewRegexp(`^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?$`)
	openTag  = lazy.NewRegexp(`<[A-Za-z][A-Za-z0-9_-]*>`)
	closeTag = lazy.NewRegexp(`</[A-Za-z][A-Za-z0-9_-]*>`)
)

// Fallback reads a header that is not YAML as `key: value` lines, the way Claude Code's
// readers of definition files get through what YAML refuses:
//   - a line at column 0 of the form `key: value` sets key (a later one of a key
//     replaces an earlier one); the value is taken as written, quotes around the whole
//     of it removed, a flow list (`[a, b]`) or flow mapping kept as one;
//   - indented lines below a key continue it: `- item` lines make a list, lines after
//     `|` or `>` a block of text, others continue the value after a space;
//   - a value that opens a tag (`<example>`) runs, line by line, until its tags close:
//     agent descriptions carry unindented examples with `user: ...` lines in them; an
//     unindented line starting with `<` right after a value continues that value too;
//   - any other line (a stray word, a comment) is skipped.
//
// Leading tabs count as two spaces each.
func Fallback(front string) Fields {
	out := Fields{}
	var r lineReader
	for i, line := range strings.Split(front, "\n") {
		tabs := len(line) - len(strings.TrimLeft(line, "\t"))
		line = strings.TrimRight(strings.Repeat("  ", tabs)+line[tabs:], " \t\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case r.key != "" && r.kind == kindScalar && r.openTags() > 0:
			r.more("\n", line)
		case line != "" && line[0] != ' ':
			if m := keyLine.FindStringSubmatch(line); m != nil {
				r.flush(out)
				r.start(m[1], strings.TrimSpace(m[2]), i+1)
			} else if trimmed[0] == '<' && r.continuable(out) {
				r.more("\n", line)
			} else {
				r.flush(out)
				r.last = ""
			}
		case r.key == "":
		case r.kind == kindBlock:
			r.more("\n", trimmed)
		case trimmed == "":
		case r.kind == kindList || (len(r.text) == 0 && (trimmed == "-" || strings.HasPrefix(trimmed, "- "))):
			if trimmed == "-" || strings.HasPrefix(trimmed, "- ") {
				r.kind = kindList
				r.items = append(r.items, unquote(strings.TrimSpace(trimmed[1:])))
			}
		default:
			r.more(" ", trimmed)
		}
	}
	r.flush(out)
	return out
}

type valueKind int

const (
	kindScalar valueKind = iota
	kindBlock
	kindList
)

// lineReader is Fallback's state: the key being read and its value so far.
type lineReader struct {
	key    string
	kind   valueKind
	folded bool     // a `>` block: lines joined by spaces
	text   []string // a scalar's or block's lines
	seps   []string // seps[i] joins text[i] to text[i-1]
	items  []string // a list's items
	line   int
	// last is the key of the last scalar flushed while no other line came since, which
	// an unindented `<tag>` line continues.
	last     string
	lastLine int
}

func (r *lineReader) start(key, v string, line int) {
	r.key, r.line, r.kind, r.folded = key, line, kindScalar, false
	if len(v) > 0 && (v[0] == '|' || v[0] == '>') && strings.Trim(v[1:], "+-0123456789") == "" {
		r.kind, r.folded = kindBlock, v[0] == '>'
		return
	}
	if v != "" {
		r.more("", v)
	}
}

func (r *lineReader) more(sep, t string) {
	r.text, r.seps = append(r.text, t), append(r.seps, sep)
}

// continuable reopens the last scalar read, for a line that continues it; false when
// there is none.
func (r *lineReader) continuable(out Fields) bool {
	if r.key != "" {
		return r.kind == kindScalar
	}
	if r.last == "" || out[r.last] == nil || out[r.last].Kind != yaml.ScalarNode {
		return false
	}
	r.key, r.line, r.kind = r.last, r.lastLine, kindScalar
	r.text, r.seps = []string{out[r.last].Value}, []string{""}
	return true
}

func (r *lineReader) openTags() int {
	text := strings.Join(r.text, "\n")
	return len(openTag.FindAllStringIndex(text, -1)) - len(closeTag.FindAllStringIndex(text, -1))
}

func (r *lineReader) flush(out Fields) {
	if r.key == "" {
		return
	}
	switch r.kind {
	case kindList:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: r.line}
		for _, it := range r.items {
			n.Content = append(n.Content, scalarNode(it, r.line))
		}
		out[r.key] = n
	case kindBlock:
		if r.folded {
			out[r.key] = scalarNode(strings.Join(strings.Fields(strings.Join(r.text, " ")), " "), r.line)
		} else {
			out[r.key] = scalarNode(strings.TrimRight(strings.Join(r.text, "\n"), "\n"), r.line)
		}
	default:
		var b strings.Builder
		for i, t := range r.text {
			if i > 0 {
				b.WriteString(r.seps[i])
			}
			b.WriteString(t)
		}
		out[r.key] = valueNode(b.String(), r.line)
	}
	r.last, r.lastLine = "", 0
	if r.kind == kindScalar {
		r.last, r.lastLine = r.key, r.line
	}
	r.key, r.text, r.seps, r.items = "", nil, nil, nil
}

// valueNode is a one-line value: a flow list or mapping when it parses as one, else the
// text with surrounding quotes removed; empty is null.
func valueNode(v string, line int) *yaml.Node {
	v = strings.TrimSpace(v)
	if v == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: line}
	}
	if (v[0] == '[' || v[0] == '{') && closingBracket(v) == len(v)-1 {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(v), &doc) == nil && len(doc.Content) == 1 {
			if n := doc.Content[0]; n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
				return n
			}
		}
	}
	return scalarNode(unquote(v), line)
}

func scalarNode(v string, line int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: line}
}

// unquote removes quotes around the whole of v, reading the escapes YAML reads in them
// when it can.
func unquote(v string) string {
	if !quoted(v) {
		return v
	}
	var s string
	if yaml.Unmarshal([]byte(v), &s) == nil {
		return s
	}
	return v[1 : len(v)-1]
}
