package agentdef

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/frontmatter"
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
	doc := frontmatter.Parse(data)
	if !doc.Found {
		return skip(ErrNoFrontmatter)
	}
	fields := doc.Fields
	if doc.YAMLError != nil {
		problems = append(problems, Problem{Path: path, Err: fmt.Errorf("%w; read as key: value lines", doc.YAMLError)})
	}

	def = Definition{Path: path, SystemPrompt: strings.TrimSpace(doc.Body)}
	fileName := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	def.Name = strings.TrimSpace(fields.Scalar("name"))
	if def.Name == "" {
		def.Name = fileName
	}
	if strings.HasPrefix(def.Name, "-") {
		// A name starting with "-" would read as a flag; the file still loads, under its
		// file name (Claude Code drops it).
		name := strings.TrimLeft(fileName, "-")
		if name == "" {
			name = strings.TrimLeft(def.Name, "-")
		}
		warn("name %q must not start with \"-\"; using %q", def.Name, name)
		def.Name = name
	}
	if strings.TrimSpace(def.Name) == "" {
		return skip(fmt.Errorf("%w: no name in the frontmatter and none in the file name", ErrInvalidName))
	}
	// Claude Code writes multi-line descriptions with a literal \n on one line.
	def.Description = strings.TrimSpace(strings.ReplaceAll(fields.Scalar("description"), `\n`, "\n"))
	if def.Description == "" {
		def.Description = defaultDescription
	}
	if def.Description == "" {
		return skip(ErrMissingDescription)
	}

	if n, present := fields["tools"]; present {
		def.Tools = frontmatter.ToolList(n)
		if containsStar(def.Tools) {
			def.Tools = nil
		} else if def.Tools == nil {
			def.Tools = []string{}
		}
	}
	if n, present := fields["disallowedTools"]; present {
		def.DisallowedTools = frontmatter.ToolList(n)
	}
	if m := strings.TrimSpace(fields.Scalar("model")); m != "" {
		if strings.EqualFold(m, "inherit") {
			m = "inherit"
		}
		def.Model = m
	}
	if c := strings.TrimSpace(fields.Scalar("color")); c != "" {
		if contains(Colors, c) {
			def.Color = c
		} else {
			warn("color %q is not one of %s", c, strings.Join(Colors, ", "))
		}
	}
	if pm := strings.TrimSpace(fields.Scalar("permissionMode")); pm != "" {
		if mode, err := permission.ParseMode(pm); err == nil && string(mode) == pm {
			def.PermissionMode = pm
		} else {
			warn("permissionMode %q is not a permission mode", pm)
		}
	}
	if mt := strings.TrimSpace(fields.Scalar("maxTurns")); mt != "" {
		if n, err := strconv.Atoi(mt); err == nil && n > 0 {
			def.MaxTurns = n
		} else {
			warn("maxTurns %q must be a positive integer", mt)
		}
	}
	if iso := strings.TrimSpace(fields.Scalar("isolation")); iso != "" {
		if iso == "worktree" {
			def.Isolation = iso
		} else {
			warn("isolation %q is not supported (only worktree)", iso)
		}
	}
	switch bg := strings.TrimSpace(fields.Scalar("background")); bg {
	case "", "false":
	case "true":
		def.Background = true
	default:
		warn("background %q must be true or false", bg)
	}
	return def, true, problems
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
