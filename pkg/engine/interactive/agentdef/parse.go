package agentdef

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/robota-sdk/robota-go/pkg/engine/permission"
)

// Problem is a warning about one agent file: the file was skipped (Skipped) or one of
// its fields was ignored. Err wraps one of the sentinel errors.
type Problem struct {
	Path    string
	Skipped bool
	Err     error
}

func (p Problem) Error() string {
	if p.Skipped {
		return fmt.Sprintf("agent file %s skipped: %v", p.Path, p.Err)
	}
	return fmt.Sprintf("agent file %s: %v", p.Path, p.Err)
}

func (p Problem) Unwrap() error { return p.Err }

// Colors are the agent colours Claude Code accepts.
var Colors = []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}

// Parse reads one agent file. path names it in problems and gives the name when the
// frontmatter has none (the file name without .md). ok is false when the file is
// skipped; problems then holds the reason (Skipped set) besides any field warnings.
func Parse(path string, data []byte) (def Definition, ok bool, problems []Problem) {
	return parse(path, data, "")
}

// parse is Parse giving a definition without a description defaultDescription ("":
// the file is skipped, ErrMissingDescription).
func parse(path string, data []byte, defaultDescription string) (def Definition, ok bool, problems []Problem) {
	skip := func(err error) (Definition, bool, []Problem) {
		return Definition{}, false, append(problems, Problem{Path: path, Skipped: true, Err: err})
	}
	warn := func(format string, args ...any) {
		problems = append(problems, Problem{Path: path, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalidField}, args...)...)})
	}
	front, body, found := splitFrontmatter(data)
	if !found {
		return skip(ErrNoFrontmatter)
	}
	fields, err := parseYAML(front)
	if err != nil {
		return skip(err)
	}

	def = Definition{Path: path, SystemPrompt: strings.TrimSpace(body)}
	def.Name = strings.TrimSpace(fields.scalar("name"))
	if def.Name == "" {
		def.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if def.Name == "" || strings.HasPrefix(def.Name, "-") {
		return skip(fmt.Errorf("%w %q: a name must be non-empty and must not start with \"-\"", ErrInvalidName, def.Name))
	}
	// Claude Code writes multi-line descriptions with a literal \n on one line.
	def.Description = strings.TrimSpace(strings.ReplaceAll(fields.scalar("description"), `\n`, "\n"))
	if def.Description == "" {
		def.Description = defaultDescription
	}
	if def.Description == "" {
		return skip(ErrMissingDescription)
	}

	if n, present := fields["tools"]; present {
		def.Tools = toolList(n)
		if containsStar(def.Tools) {
			def.Tools = nil
		} else if def.Tools == nil {
			def.Tools = []string{}
		}
	}
	if n, present := fields["disallowedTools"]; present {
		def.DisallowedTools = toolList(n)
	}
	if m := strings.TrimSpace(fields.scalar("model")); m != "" {
		if strings.EqualFold(m, "inherit") {
			m = "inherit"
		}
		def.Model = m
	}
	if c := strings.TrimSpace(fields.scalar("color")); c != "" {
		if contains(Colors, c) {
			def.Color = c
		} else {
			warn("color %q is not one of %s", c, strings.Join(Colors, ", "))
		}
	}
	if pm := strings.TrimSpace(fields.scalar("permissionMode")); pm != "" {
		if mode, err := permission.ParseMode(pm); err == nil && string(mode) == pm {
			def.PermissionMode = pm
		} else {
			warn("permissionMode %q is not a permission mode", pm)
		}
	}
	if mt := strings.TrimSpace(fields.scalar("maxTurns")); mt != "" {
		if n, err := strconv.Atoi(mt); err == nil && n > 0 {
			def.MaxTurns = n
		} else {
			warn("maxTurns %q must be a positive integer", mt)
		}
	}
	if iso := strings.TrimSpace(fields.scalar("isolation")); iso != "" {
		if iso == "worktree" {
			def.Isolation = iso
		} else {
			warn("isolation %q is not supported (only worktree)", iso)
		}
	}
	switch bg := strings.TrimSpace(fields.scalar("background")); bg {
	case "", "false":
	case "true":
		def.Background = true
	default:
		warn("background %q must be true or false", bg)
	}
	return def, true, problems
}

// splitFrontmatter cuts `---\n...\n---` off the start of data (after a UTF-8 BOM, with
// CRLF or LF line ends); body is the rest with LF line ends.
func splitFrontmatter(data []byte) (front, body string, found bool) {
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

// fields are the top-level keys of the frontmatter mapping.
type fields map[string]*yaml.Node

// scalar returns the text of a scalar field ("" when absent, null or not a scalar).
func (f fields) scalar(key string) string {
	n := f[key]
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// parseYAML decodes the frontmatter. Like Claude Code, when strict YAML fails it retries
// once with each simple `key: value` line whose value holds YAML punctuation quoted
// (descriptions full of `: ` and `<example>` are the common case) and leading tabs
// turned into spaces; what still fails is ErrMalformed, with the parser's message.
func parseYAML(front string) (fields, error) {
	f, err := decodeMapping(front)
	if err == nil {
		return f, nil
	}
	if f2, err2 := decodeMapping(quoteSimpleValues(front)); err2 == nil {
		return f2, nil
	}
	return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
}

func decodeMapping(src string) (fields, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, err
	}
	out := fields{}
	if doc.Kind == 0 { // empty frontmatter
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
			continue // a complex key is no field of ours
		}
		if _, dup := out[k.Value]; dup {
			return nil, fmt.Errorf("line %d: key %q is defined twice", k.Line, k.Value)
		}
		out[k.Value] = resolveAlias(v)
	}
	return out, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 8; depth++ {
		n = n.Alias
	}
	return n
}

var (
	simpleLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-zA-Z_-]+):[ \t]+(.+)$`) })
	yamlSyntax = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("[{}\\[\\]*&#!|>%@`]|: ") })
)

func quoteSimpleValues(front string) string {
	lines := strings.Split(front, "\n")
	for i, line := range lines {
		tabs := len(line) - len(strings.TrimLeft(line, "\t"))
		line = strings.Repeat("  ", tabs) + line[tabs:]
		m := simpleLine().FindStringSubmatch(line)
		if m != nil {
			v := strings.TrimRight(m[2], " \t")
			quoted := len(v) >= 2 && ((v[0] == '"' && v[len(v)-1] == '"') || (v[0] == '\'' && v[len(v)-1] == '\''))
			flowList := strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") && isFlowList(v)
			if !quoted && !flowList && yamlSyntax().MatchString(v) {
				line = m[1] + ": " + strconv.Quote(v)
			}
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

func isFlowList(v string) bool {
	var n yaml.Node
	return yaml.Unmarshal([]byte(v), &n) == nil && len(n.Content) == 1 && n.Content[0].Kind == yaml.SequenceNode
}

// toolList reads tools/disallowedTools: a YAML list or a string, each entry split on
// commas and spaces outside parentheses (`Read, Grep, Bash(git log *)`). nil when empty.
func toolList(n *yaml.Node) []string {
	var raw []string
	switch {
	case n == nil:
	case n.Kind == yaml.ScalarNode && n.Tag != "!!null":
		raw = []string{n.Value}
	case n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			if c = resolveAlias(c); c != nil && c.Kind == yaml.ScalarNode && c.Tag != "!!null" {
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

func containsStar(list []string) bool { return contains(list, "*") }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
