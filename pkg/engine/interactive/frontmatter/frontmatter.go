package frontmatter

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
)

// Fields are the top-level keys of a header, aliases resolved. A value is a scalar,
// sequence or mapping node; a key written without a value is a !!null scalar.
type Fields map[string]*yaml.Node

// Doc is one file read: its header's fields and its body.
type Doc struct {
	// Fields is never nil; empty when the file has no header.
	Fields Fields
	// Body is what follows the header (all of the file without one), LF line ends.
	Body string
	// Found is true when the file starts with a closed `---` header.
	Found bool
	// Unclosed is true when the file starts with `---` that no line closes; the whole
	// file is then the body, as Claude Code reads it.
	Unclosed bool
	// YAMLError is set when the header is not YAML even after the quoting retry and was
	// read line by line as `key: value` pairs; it wraps ErrMalformed and gives the
	// parser's message, for a warning.
	YAMLError error
}

// Parse reads data: the header if any (YAML, else `key: value` lines) and the body.
func Parse(data []byte) Doc {
	front, body, found := Split(data)
	doc := Doc{Fields: Fields{}, Body: body, Found: found}
	if !found {
		doc.Unclosed = opensFence(body)
		return doc
	}
	f, err := Decode(front)
	if err != nil {
		doc.YAMLError = err
		f = Fallback(front)
	}
	doc.Fields = f
	return doc
}

// Split cuts `---\n...\n---` off the start of data (after a UTF-8 BOM, with CRLF or LF
// line ends); body is the rest with LF line ends, or all of data when found is false.
func Split(data []byte) (front, body string, found bool) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t") != "---" {
		return "", text, false
	}
	for off := 0; off <= len(rest); {
		line, after, more := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			return rest[:off], after, true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", text, false
}

// opensFence reports whether text starts with a `---` line.
func opensFence(text string) bool {
	first, _, more := strings.Cut(text, "\n")
	return more && strings.TrimRight(first, " \t") == "---"
}

// Decode reads a header as strict YAML, retrying once with simple values quoted and
// leading tabs made spaces; the error (ErrMalformed, with the first parser's message)
// says the header is not a YAML mapping either way. A duplicate key is an error.
func Decode(front string) (Fields, error) {
	f, err := decodeMapping(front)
	if err == nil {
		return f, nil
	}
	if f2, err2 := decodeMapping(quoteSimpleValues(front)); err2 == nil {
		return f2, nil
	}
	return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
}

// Scalar returns the text of a scalar field: "" when absent, null or not a scalar.
func (f Fields) Scalar(key string) string {
	n := f[key]
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// Has reports whether key is present (with or without a value).
func (f Fields) Has(key string) bool { _, ok := f[key]; return ok }

// Keys returns the keys, sorted.
func (f Fields) Keys() []string {
	out := make([]string, 0, len(f))
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func decodeMapping(src string) (Fields, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, err
	}
	out := Fields{}
	if doc.Kind == 0 { // empty header
		return out, nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("frontmatter is not a mapping")
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return out, nil
	}
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("frontmatter is not a mapping of keys to values")
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue // a complex key is no field of anyone's
		}
		if _, dup := out[k.Value]; dup {
			return nil, fmt.Errorf("line %d: key %q is defined twice", k.Line, k.Value)
		}
		out[k.Value] = ResolveAlias(v)
	}
	return out, nil
}

// ResolveAlias follows an alias node to what it names (bounded, for alias chains).
func ResolveAlias(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 8; depth++ {
		n = n.Alias
	}
	return n
}

var (
	simpleLine = lazy.NewRegexp(`^([a-zA-Z_-]+):[ \t]+(.+)$`)
	yamlSyntax = lazy.NewRegexp("[{}\\[\\]*&#!|>%@`]|: ")
)

// quoteSimpleValues is Claude Code's retry: each top-level `key: value` line whose value
// holds YAML punctuation is double-quoted (a flow list stays a list), leading tabs
// become spaces.
func quoteSimpleValues(front string) string {
	lines := strings.Split(front, "\n")
	for i, line := range lines {
		tabs := len(line) - len(strings.TrimLeft(line, "\t"))
		line = strings.Repeat("  ", tabs) + line[tabs:]
		m := simpleLine.FindStringSubmatch(line)
		if m != nil {
			v := strings.TrimRight(m[2], " \t")
			if !quoted(v) && !isFlowList(v) && yamlSyntax.MatchString(v) {
				line = m[1] + ": " + strconv.Quote(v)
			}
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

func quoted(v string) bool {
	return len(v) >= 2 && ((v[0] == '"' && v[len(v)-1] == '"') || (v[0] == '\'' && v[len(v)-1] == '\''))
}

// isFlowList reports whether v is one YAML flow sequence (`[Read, Grep]`), not text that
// merely starts with a bracket (`[a] [b]`).
func isFlowList(v string) bool {
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") || closingBracket(v) != len(v)-1 {
		return false
	}
	var n yaml.Node
	return yaml.Unmarshal([]byte(v), &n) == nil && len(n.Content) == 1 && n.Content[0].Kind == yaml.SequenceNode
}

// closingBracket is the index of the bracket that closes v's first one (quotes
// respected), -1 when none does: `[a] [b]` closes at 2, so it is not one list (YAML
// itself reads the first list and stops).
func closingBracket(v string) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// ToolList reads a tool list field (tools, disallowedTools, allowed-tools): a YAML list
// or a string, each entry split on commas and spaces outside parentheses (`Read, Grep,
// Bash(git log *)`). nil when empty.
func ToolList(n *yaml.Node) []string {
	var raw []string
	switch {
	case n == nil:
	case n.Kind == yaml.ScalarNode && n.Tag != "!!null":
		// A list whose brackets YAML refused (`[Read, Grep`, read as text) is still the
		// list: no tool name starts with a bracket.
		v := strings.TrimSpace(n.Value)
		if strings.HasPrefix(v, "[") {
			v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		}
		raw = []string{v}
	case n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			if c = ResolveAlias(c); c != nil && c.Kind == yaml.ScalarNode && c.Tag != "!!null" {
				raw = append(raw, c.Value)
			}
		}
	}
	var out []string
	for _, s := range raw {
		out = append(out, permission.SplitRuleList(s)...) // the split of permission rule lists
	}
	return out
}
