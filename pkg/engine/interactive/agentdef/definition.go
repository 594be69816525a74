package agentdef

import "strings"

// Source says where a definition came from.
type Source string

const (
	SourceBuiltIn Source = "built-in"
	SourceProject Source = "project"
	SourceUser    Source = "user"
	SourcePlugin  Source = "plugin"
)

// Definition is one agent type: a built-in or a Markdown file with Claude Code
// frontmatter. The body of the file is the system prompt.
type Definition struct {
	// Name is the agent type the model passes as subagent_type.
	Name string `json:"name"`
	// Description tells the parent model when to use the agent (Claude Code's whenToUse).
	Description string `json:"description"`
	// SystemPrompt is the Markdown body, trimmed.
	SystemPrompt string `json:"systemPrompt"`
	// Tools is the allowlist; nil means every tool the parent offers (omitted, or "*"),
	// an empty non-nil list means none (Claude Code reads `tools:` with no value so).
	Tools []string `json:"tools"`
	// DisallowedTools is the denylist, applied before Tools; "*" in it denies every tool.
	DisallowedTools []string `json:"disallowedTools,omitempty"`
	// Model is an alias (sonnet, opus, haiku), "inherit", a model id, or "" (inherit).
	Model string `json:"model,omitempty"`
	// Color is one of Claude Code's eight agent colours, or "".
	Color string `json:"color,omitempty"`
	// PermissionMode is a permission mode name, or "" (the parent's mode).
	PermissionMode string `json:"permissionMode,omitempty"`
	// MaxTurns bounds the agent's rounds; 0 means the session default.
	MaxTurns int `json:"maxTurns,omitempty"`
	// Isolation is "worktree" when every run of the agent should get its own worktree.
	Isolation string `json:"isolation,omitempty"`
	// Background makes every run of the agent start in the background.
	Background bool `json:"background,omitempty"`
	// Source and Path say where the definition was read ("" Path for built-ins).
	Source Source `json:"source"`
	Path   string `json:"path,omitempty"`
}

// AllowsAllTools reports whether the definition restricts nothing.
func (d Definition) AllowsAllTools() bool { return d.Tools == nil && len(d.DisallowedTools) == 0 }

// FilterTools applies the definition to the parent's tool names, in their order: the
// denylist first, then the allowlist (createSubagentSession's order). The Agent tool is
// not removed here: the caller always removes it (subagents never spawn subagents).
// An entry with a specifier (`Bash(git log *)`) selects its tool by name; the specifier
// itself is a permission matter this filter does not enforce.
func (d Definition) FilterTools(names []string) []string {
	deny := map[string]bool{}
	denyAll := false
	for _, n := range d.DisallowedTools {
		if n == "*" {
			denyAll = true
		}
		deny[toolName(n)] = true
	}
	var allow map[string]bool
	if d.Tools != nil {
		allow = map[string]bool{}
		for _, n := range d.Tools {
			allow[toolName(n)] = true
		}
	}
	var out []string
	for _, n := range names {
		if denyAll || deny[n] || (allow != nil && !allow[n]) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// toolName is the tool an allow or deny entry names: `Bash(git log *)` names Bash.
func toolName(entry string) string {
	if i := strings.IndexByte(entry, '('); i > 0 {
		return strings.TrimSpace(entry[:i])
	}
	return entry
}
