package permission

import (
	"errors"
	"fmt"
	"strings"
)

// Source says where a rule came from. Name appears in decision reasons
// ("userSettings", "projectSettings", "cliArg", "session" ...); Root is the project
// root that a settings-relative `/path` specifier is anchored to (empty: the
// evaluator's ProjectRoot).
type Source struct {
	Name string
	Root string
}

// Rule is one permission rule: `Tool` or `Tool(specifier)` in an allow, ask or deny list.
type Rule struct {
	Behavior     Behavior
	Tool         string
	Specifier    string
	HasSpecifier bool
	Source       Source

	// broken is set for a deny or ask entry that did not parse but whose tool name
	// did: it can never be evaluated, so calls of that tool become "ask".
	broken error
	spec   specifier
}

// String renders the rule in settings syntax; ParseRule(r.String()) yields the same rule.
func (r Rule) String() string {
	if !r.HasSpecifier {
		return r.Tool
	}
	s := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(r.Specifier)
	return r.Tool + "(" + s + ")"
}

// describe names the rule and its origin for decision reasons.
func (r Rule) describe() string {
	if r.Source.Name == "" {
		return fmt.Sprintf("%s rule %q", r.Behavior, r.String())
	}
	return fmt.Sprintf("%s rule %q from %s", r.Behavior, r.String(), r.Source.Name)
}

// ParseRule parses `Tool` or `Tool(specifier)`. Inside the specifier, `\(`, `\)` and
// `\\` are escapes; other backslashes are kept for the specifier's own syntax.
// `Bash(*)` is normalised to `Bash`.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if spec, ok := strings.CutPrefix(s, SlashCommandTool+":"); ok && !strings.ContainsAny(s, "()") {
		// Claude Code's first SlashCommand rule syntax: `SlashCommand:/commit`.
		if strings.TrimSpace(spec) == "" {
			return Rule{Tool: SlashCommandTool}, fmt.Errorf("%w %q: empty specifier", ErrInvalidRule, s)
		}
		return Rule{Tool: SlashCommandTool, Specifier: strings.TrimSpace(spec), HasSpecifier: true}, nil
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if err := checkToolName(s); err != nil {
			return Rule{}, fmt.Errorf("%w %q: %w", ErrInvalidRule, s, err)
		}
		return Rule{Tool: s}, nil
	}
	tool := s[:open]
	if err := checkToolName(tool); err != nil {
		return Rule{}, fmt.Errorf("%w %q: %w", ErrInvalidRule, s, err)
	}
	body := s[open+1:]
	spec, err := unescapeSpecifier(body)
	if err != nil {
		return Rule{Tool: tool}, fmt.Errorf("%w %q: %w", ErrInvalidRule, s, err)
	}
	if strings.TrimSpace(spec) == "" {
		return Rule{Tool: tool}, fmt.Errorf("%w %q: empty specifier", ErrInvalidRule, s)
	}
	if tool == "Bash" && spec == "*" {
		return Rule{Tool: tool}, nil
	}
	return Rule{Tool: tool, Specifier: spec, HasSpecifier: true}, nil
}

// unescapeSpecifier reads the text after `(` up to the closing `)`, which must end the rule.
func unescapeSpecifier(body string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && (body[i+1] == '(' || body[i+1] == ')' || body[i+1] == '\\'):
			b.WriteByte(body[i+1])
			i++
		case c == ')':
			if i != len(body)-1 {
				return "", errors.New("text after closing parenthesis")
			}
			return b.String(), nil
		case c == '(':
			return "", errors.New("unescaped parenthesis in specifier")
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("missing closing parenthesis")
}

// checkToolName accepts Claude Code tool names: letters, digits, `_` and `-`, plus a
// trailing `*` in an MCP name (`mcp__server__*`).
func checkToolName(name string) error {
	if name == "" {
		return errors.New("empty tool name")
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		case c == '*' && i == len(name)-1 && strings.HasPrefix(name, "mcp__"):
		default:
			return fmt.Errorf("invalid character %q in tool name", c)
		}
	}
	return nil
}

// SplitRuleList splits a CLI argument such as `Read,Bash(git log *) Edit` into rule
// strings: commas and whitespace separate rules outside parentheses.
func SplitRuleList(s string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
			continue
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			flush()
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return out
}

// Layer is one settings layer's `permissions` lists, in Claude Code's shape.
type Layer struct {
	Source Source
	Allow  []string `json:"allow"`
	Ask    []string `json:"ask"`
	Deny   []string `json:"deny"`
}

// Rules parses every list of the layers into rules. Lists merge across layers: a
// deny anywhere beats an allow anywhere. Entries that do not parse are reported in
// the joined error; an unparsable deny or ask entry whose tool name is readable is
// still returned, as a rule that turns every call of that tool into "ask".
func Rules(layers ...Layer) ([]Rule, error) {
	var rules []Rule
	var errs []error
	for _, l := range layers {
		for _, list := range []struct {
			b       Behavior
			entries []string
		}{{Deny, l.Deny}, {Ask, l.Ask}, {Allow, l.Allow}} {
			for _, s := range list.entries {
				r, err := NewRule(list.b, s, l.Source)
				if err != nil {
					errs = append(errs, err)
					if r.broken == nil {
						continue
					}
				}
				rules = append(rules, r)
			}
		}
	}
	return rules, errors.Join(errs...)
}

// NewRule parses one rule and compiles its specifier for its tool. On error, a deny or
// ask rule with a readable tool name is still returned (with the error) so the caller
// can keep it as a fail-closed rule; an allow rule never is.
func NewRule(b Behavior, s string, src Source) (Rule, error) {
	r, err := ParseRule(s)
	r.Behavior, r.Source = b, src
	if err == nil {
		r.spec, err = compileSpecifier(r.Tool, r.Specifier, r.HasSpecifier)
		if err != nil {
			err = fmt.Errorf("%w %q: %w", ErrInvalidRule, s, err)
		}
	}
	if err != nil {
		if b != Allow && r.Tool != "" && checkToolName(r.Tool) == nil {
			r.broken, r.HasSpecifier = err, true
			if r.Specifier == "" {
				r.Specifier = strings.TrimPrefix(strings.TrimSpace(s), r.Tool)
			}
			return r, err
		}
		return Rule{}, err
	}
	return r, nil
}
