package frontmatter

import (
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

var keyLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?$`)
})

// Fallback reads a header that is not YAML as `key: value` lines, the way Claude Code's
// readers of definition files get through what YAML refuses: a line at column 0 of the
// form `key: value` sets key (a later one of a key replaces an earlier one); the value
// is taken as written, quotes around the whole of it removed, a flow list (`[a, b]`) or
// flow mapping kept as one; indented lines below a key continue it: `- item` lines
// make a list, lines after `|` or `>` a block of text, others continue the value after
// a space. Any other line (a stray word, a comment) is skipped. Leading tabs count as
// two spaces each.
func Fallback(front string) Fields {
	out := Fields{}
	var (
		key   string   // the key being read, "" after a stray line
		block string   // "|" or ">" while a block scalar is read
		text  []string // the block's or the continued scalar's lines
		items []string // a list's items
		line0 int
	)
	flush := func() {
		if key == "" {
			return
		}
		switch {
		case items != nil:
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line0}
			for _, it := range items {
				n.Content = append(n.Content, scalarNode(it, line0))
			}
			out[key] = n
		case block == "|":
			out[key] = scalarNode(strings.TrimRight(strings.Join(text, "\n"), "\n"), line0)
		case block == ">":
			out[key] = scalarNode(strings.Join(strings.Fields(strings.Join(text, " ")), " "), line0)
		default:
			out[key] = valueNode(strings.Join(text, " "), line0)
		}
		key, block, text, items = "", "", nil, nil
	}
	for i, line := range strings.Split(front, "\n") {
		tabs := len(line) - len(strings.TrimLeft(line, "\t"))
		line = strings.Repeat("  ", tabs) + line[tabs:]
		trimmed := strings.TrimSpace(line)
		if line != "" && line[0] != ' ' {
			flush()
			if m := keyLine().FindStringSubmatch(strings.TrimRight(line, " \t")); m != nil {
				key, line0 = m[1], i+1
				switch v := strings.TrimSpace(m[2]); {
				case len(v) > 0 && (v[0] == '|' || v[0] == '>') && strings.Trim(v[1:], "+-0123456789") == "":
					block = v[:1]
				case v != "":
					text = []string{v}
				}
			}
			continue
		}
		if key == "" {
			continue
		}
		switch {
		case block != "":
			text = append(text, trimmed)
		case trimmed == "":
		case strings.HasPrefix(trimmed, "- ") && text == nil || trimmed == "-" && text == nil:
			items = append(items, unquote(strings.TrimSpace(strings.TrimPrefix(trimmed, "-"))))
		case items == nil:
			text = append(text, trimmed)
		}
	}
	flush()
	return out
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
