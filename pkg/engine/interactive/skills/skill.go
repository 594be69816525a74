package skills

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/frontmatter"
)

// Kind says which format a skill was read from.
type Kind string

const (
	// KindSkill is a directory holding SKILL.md and its supporting files.
	KindSkill Kind = "skill"
	// KindCommand is a custom command file (.claude/commands/*.md).
	KindCommand Kind = "command"
)

// Source says where a skill came from.
type Source string

const (
	SourceProject Source = "project"
	SourceUser    Source = "user"
	SourcePlugin  Source = "plugin"
)

// ContextFork is the context value that runs a skill in a subagent.
const ContextFork = "fork"

// MaxDescription bounds a description derived from the body when the frontmatter has none.
const MaxDescription = 250

// Skill is one skill or custom command: its frontmatter and its Markdown body.
type Skill struct {
	// Name is what the user types after "/" and the model passes as `skill`: a skill's
	// directory name, a command's path ("dev/fix-issue.md" is "dev:fix-issue"), the
	// frontmatter's name aside, as in Claude Code.
	Name        string `json:"name"`
	Description string `json:"description"`
	// DescriptionGiven is true when the frontmatter wrote the description (else it is
	// the body's first line); Claude Code's init line lists only such skills.
	DescriptionGiven bool `json:"descriptionGiven,omitempty"`
	// WhenToUse is Claude Code's when_to_use, shown to the model after the description.
	WhenToUse    string   `json:"whenToUse,omitempty"`
	ArgumentHint string   `json:"argumentHint,omitempty"`
	AllowedTools []string `json:"allowedTools,omitempty"`
	Model        string   `json:"model,omitempty"`
	// Context is "fork" (run in a subagent) or "" (run inline).
	Context string `json:"context,omitempty"`
	// Agent is the agent type a fork runs as ("" means general-purpose).
	Agent                  string `json:"agent,omitempty"`
	DisableModelInvocation bool   `json:"disableModelInvocation,omitempty"`
	// UserInvocable is false when the skill is hidden from the user's slash menu.
	UserInvocable bool `json:"userInvocable"`
	// Body is the Markdown after the frontmatter, trimmed.
	Body string `json:"body"`
	// Dir is the base directory: the skill's own directory (supporting files live
	// there), or the directory of a command file.
	Dir    string `json:"dir"`
	Path   string `json:"path"`
	Kind   Kind   `json:"kind"`
	Source Source `json:"source"`
	// Plugin is the plugin that contributed the skill ("" for the user's and project's
	// own); Name then starts with "<Plugin>:".
	Plugin string `json:"plugin,omitempty"`
	// PluginRoot is that plugin's directory, for ${CLAUDE_PLUGIN_ROOT} in the body.
	PluginRoot string `json:"pluginRoot,omitempty"`
}

// ModelInvocable reports whether the model may see and invoke the skill.
func (s Skill) ModelInvocable() bool { return !s.DisableModelInvocation }

// Fork reports whether the skill runs in a subagent.
func (s Skill) Fork() bool { return s.Context == ContextFork }

// Problem is a warning about one file: skipped (Skipped) or one field ignored.
type Problem struct {
	Path    string
	Skipped bool
	Err     error
}

func (p Problem) Error() string {
	if p.Skipped {
		return fmt.Sprintf("skill file %s skipped: %v", p.Path, p.Err)
	}
	return fmt.Sprintf("skill file %s: %v", p.Path, p.Err)
}

func (p Problem) Unwrap() error { return p.Err }

// Parse reads one SKILL.md or command file named name: a skill's directory name, a
// command's path below its commands directory with "/" written ":" (Claude Code names
// them so, whatever the frontmatter's name says). A file without frontmatter is all
// body; frontmatter that is not YAML is read as `key: value` lines and an opening `---`
// never closed leaves the file all body, each with a Problem. ok is false only for an
// empty name; the last problem then says why.
func Parse(path, name string, data []byte) (s Skill, ok bool, problems []Problem) {
	warn := func(format string, args ...any) {
		problems = append(problems, Problem{Path: path, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalidField}, args...)...)})
	}
	doc := frontmatter.Parse(data)
	switch {
	case doc.Unclosed:
		problems = append(problems, Problem{Path: path, Err: fmt.Errorf("%w: the opening --- has no closing ---; the whole file is the body", ErrMalformed)})
	case doc.YAMLError != nil:
		problems = append(problems, Problem{Path: path, Err: fmt.Errorf("%w; read as key: value lines", doc.YAMLError)})
	}
	fields := doc.Fields
	body := doc.Body
	if !utf8.ValidString(body) {
		body = strings.ToValidUTF8(body, "\uFFFD")
	}
	s = Skill{Path: path, Body: strings.TrimSpace(body), UserInvocable: true}
	scalar := func(key string) string {
		n := fields[key]
		if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			if n != nil && n.Kind != yaml.ScalarNode {
				warn("%s must be a string", key)
			}
			return ""
		}
		return strings.ToValidUTF8(strings.TrimSpace(n.Value), "\uFFFD")
	}
	boolean := func(key string, def bool) bool {
		v := scalar(key)
		switch strings.ToLower(v) {
		case "":
			return def
		case "true", "yes":
			return true
		case "false", "no":
			return false
		}
		warn("%s %q must be true or false", key, v)
		return def
	}

	s.Name = strings.ToValidUTF8(strings.TrimSpace(name), "\uFFFD")
	if s.Name == "" {
		return Skill{}, false, append(problems, Problem{Path: path, Skipped: true,
			Err: fmt.Errorf("%w: the file gives no name (an empty file or directory name)", ErrInvalidField)})
	}
	s.Description = strings.ReplaceAll(scalar("description"), `\n`, "\n")
	s.DescriptionGiven = s.Description != ""
	if s.Description == "" {
		s.Description = firstLine(s.Body)
	}
	s.WhenToUse = scalar("when_to_use")
	s.ArgumentHint = argumentHint(fields["argument-hint"], scalar)
	if n, present := fields["allowed-tools"]; present {
		if n != nil && n.Kind != yaml.ScalarNode && n.Kind != yaml.SequenceNode {
			warn("allowed-tools must be a list or a comma-separated string")
		} else {
			s.AllowedTools = frontmatter.ToolList(n)
		}
	}
	s.Model = scalar("model")
	switch c := scalar("context"); c {
	case "", "inline":
	case ContextFork:
		s.Context = ContextFork
	default:
		warn("context %q is not supported (only fork)", c)
	}
	s.Agent = scalar("agent")
	s.DisableModelInvocation = boolean("disable-model-invocation", false)
	s.UserInvocable = boolean("user-invocable", true)
	return s, true, problems
}

// firstLine derives a description from the body: its first non-empty line, heading
// marks removed, cut at MaxDescription runes (Claude Code does the same).
func firstLine(body string) string {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > MaxDescription {
			line = string(r[:MaxDescription-3]) + "..."
		}
		return line
	}
	return ""
}

// argumentHint reads argument-hint. `argument-hint: [message]` is the common way to write
// it and YAML reads a list there, so a list of scalars is written back as "[a, b]".
func argumentHint(n *yaml.Node, scalar func(string) string) string {
	if n == nil || n.Kind != yaml.SequenceNode {
		return scalar("argument-hint")
	}
	var parts []string
	for _, c := range n.Content {
		if c.Kind == yaml.ScalarNode {
			parts = append(parts, c.Value)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
