package interactive

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
)

// pathArgs are the arguments naming the path that "allow for the session" scopes a call
// to, for the tools of editRuleTool and readRuleTool (Claude Code's Edit and Read rule
// families).
var pathArgs = []string{"file_path", "notebook_path", "path"}

func editRuleTool(tool string) bool {
	switch tool {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}

func readRuleTool(tool string) bool {
	switch tool {
	case "Read", "Glob", "Grep", "LS", "NotebookRead":
		return true
	}
	return false
}

// subcommandWord is a second command word kept in a Bash prefix rule ("npm test",
// "git log"); flags, paths and values are not.
var subcommandWord = lazy.NewRegexp(`^[A-Za-z][A-Za-z0-9_-]*$`)

// SuggestSessionRule returns the Claude Code permission rule "allow for the session"
// adds for one call, as narrow as the call allows:
//   - Bash: the program and its subcommand word, if any: `Bash(npm test:*)`,
//     `Bash(git log:*)`, `Bash(make:*)`. Only a line that is one plain command (after
//     Claude Code's wrappers) is scoped; a compound line, a redirection, an assignment
//     prefix or a word known only at run time gets "".
//   - Edit, Write, MultiEdit, NotebookEdit: `Edit(//abs/dir/**)`, the directory of the
//     file; Read, Glob, Grep, LS: `Read(//abs/dir/**)` (for Glob and Grep, the directory
//     searched). Relative paths are resolved against cwd. A path with glob characters gets "".
//   - WebFetch: `WebFetch(domain:host)`.
//   - SlashCommand: the command with any arguments, `SlashCommand(/memory:*)`.
//   - Any other tool: its name (there is nothing narrower to match).
//
// "" means no rule: the answer then allows the call once.
func SuggestSessionRule(tool string, input json.RawMessage, cwd string) string {
	var args map[string]any
	_ = json.Unmarshal(input, &args) // an input that is not an object leaves args nil
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch {
	case tool == "Bash":
		return bashPrefixRule(str("command"))
	case editRuleTool(tool) || readRuleTool(tool):
		family := "Read"
		if editRuleTool(tool) {
			family = "Edit"
		}
		for _, k := range pathArgs {
			if p := str(k); p != "" {
				return pathRule(family, p, cwd, k == "path")
			}
		}
		if tool == "Glob" || tool == "Grep" { // no path: they search cwd
			return pathRule(family, cwd, cwd, true)
		}
		return ""
	case tool == "WebFetch":
		u, err := url.Parse(str("url"))
		if err != nil || u.Hostname() == "" || strings.ContainsAny(u.Hostname(), "*()") {
			return ""
		}
		return "WebFetch(domain:" + u.Hostname() + ")"
	case tool == permission.SlashCommandTool:
		// The command, with any arguments (Claude Code's prefix rule).
		name, _, err := permission.SplitCommandLine(str("command"))
		if err != nil || strings.ContainsAny(name, "*()\\") {
			return ""
		}
		return "SlashCommand(/" + name + ":*)"
	}
	return tool
}

func bashPrefixRule(command string) string {
	cmd, err := permission.ParseCommand(command)
	if err != nil || len(cmd.Subs) != 1 || len(cmd.Writes) > 0 || len(cmd.Reads) > 0 || cmd.Subs[0].Unknown {
		return ""
	}
	words := strings.Fields(cmd.Subs[0].Match)
	if len(words) == 0 || strings.Contains(words[0], "=") || !plainWord(words[0]) {
		return ""
	}
	prefix := words[0]
	if len(words) > 1 && subcommandWord.MatchString(words[1]) {
		prefix += " " + words[1]
	}
	return "Bash(" + prefix + ":*)"
}

// plainWord rejects words a rule would read as a pattern or that hide run-time parts.
func plainWord(w string) bool {
	return !strings.ContainsAny(w, "*?()[]{}\\\"'`$…")
}

// pathRule scopes a path tool to the directory holding p (or p itself when it names
// the directory searched), anchored absolutely (`//abs`).
func pathRule(family, p, cwd string, isDir bool) string {
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return ""
		}
		p = filepath.Join(cwd, p)
	}
	dir := filepath.Clean(p)
	if !isDir {
		dir = filepath.Dir(dir)
	}
	if !plainWord(dir) || strings.ContainsAny(dir, "!#\n") {
		return ""
	}
	if dir == "/" {
		return family + "(//**)"
	}
	return family + "(/" + dir + "/**)"
}
