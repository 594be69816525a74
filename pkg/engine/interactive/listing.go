package interactive

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
)

// DefaultOutputStyle is the output style of a session whose settings choose none.
const DefaultOutputStyle = "default"

// Listing is what a session offers by name, for a client's completions: the lists of
// Claude Code's system/init line, in its order.
type Listing struct {
	// SlashCommands are the user-invocable skills (by directory name), then the custom
	// commands (by path, "dev:fix-issue"), then the plugins' commands and skills
	// ("plugin:name"), each group sorted case-insensitively, then the built-in commands.
	SlashCommands []string
	// Skills are the user-invocable skills whose frontmatter gives a description (Claude
	// Code lists no other), the project's and user's before the plugins'.
	Skills []string
	// Agents are the agent types the Agent tool offers, sorted case-insensitively.
	Agents []string
	// OutputStyle is the settings' outputStyle, else "default".
	OutputStyle string
	// Commands describe SlashCommands, in their order, and AgentTypes describe Agents:
	// the initialize control response's commands and agents.
	Commands   []CommandInfo
	AgentTypes []AgentInfo
}

// CommandInfo describes one slash command as Claude Code's initialize response does:
// a skill's or command's description ends with its source, "(project)" or "(user)", a
// plugin's starts with "(plugin-name)".
type CommandInfo struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argumentHint"`
}

// AgentInfo describes one agent type; Model is the definition's model ("" inherits).
type AgentInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Model       string `json:"model,omitempty"`
}

// Listing returns the session's lists of commands, skills and agents.
func (s *InteractiveSession) Listing() Listing {
	l := Listing{OutputStyle: DefaultOutputStyle}
	a := s.host
	if a == nil {
		return l
	}
	if a.Settings != nil {
		var style string
		if json.Unmarshal(a.Settings.Extra["outputStyle"], &style) == nil && strings.TrimSpace(style) != "" {
			l.OutputStyle = style
		}
	}
	var own, commands, plugin []CommandInfo
	var listed, pluginListed []string
	for _, sk := range a.Skills.UserVisible() {
		info := CommandInfo{Name: sk.Name, Description: sk.Description + " (" + string(sk.Source) + ")", ArgumentHint: sk.ArgumentHint}
		switch {
		case sk.Plugin != "":
			info.Description = "(" + sk.Plugin + ") " + sk.Description
			plugin = append(plugin, info)
		case sk.Kind == skills.KindSkill:
			own = append(own, info)
		default:
			commands = append(commands, info)
		}
		if sk.Kind == skills.KindSkill && sk.DescriptionGiven && sk.Plugin == "" {
			listed = append(listed, sk.Name)
		} else if sk.Kind == skills.KindSkill && sk.DescriptionGiven {
			pluginListed = append(pluginListed, sk.Name)
		}
	}
	for _, group := range [][]CommandInfo{own, commands, plugin} {
		sort.SliceStable(group, func(i, j int) bool { return lessFolded(group[i].Name, group[j].Name) })
		l.Commands = append(l.Commands, group...)
	}
	seen := map[string]bool{}
	for _, c := range l.Commands {
		seen[c.Name] = true
	}
	for _, c := range s.registry().List("") {
		if c.Source == "builtin" && !seen[c.Name] {
			l.Commands = append(l.Commands, CommandInfo{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint})
		}
	}
	for _, c := range l.Commands {
		l.SlashCommands = append(l.SlashCommands, c.Name)
	}
	sortFolded(listed)
	sortFolded(pluginListed)
	l.Skills = append(listed, pluginListed...)
	if a.Agents != nil {
		for _, d := range a.Agents.List() {
			l.AgentTypes = append(l.AgentTypes, AgentInfo{Name: d.Name, Description: d.Description, Model: d.Model})
		}
		sort.SliceStable(l.AgentTypes, func(i, j int) bool { return lessFolded(l.AgentTypes[i].Name, l.AgentTypes[j].Name) })
		for _, d := range l.AgentTypes {
			l.Agents = append(l.Agents, d.Name)
		}
	}
	return l
}

func sortFolded(list []string) {
	sort.SliceStable(list, func(i, j int) bool { return lessFolded(list[i], list[j]) })
}

// lessFolded orders names as Claude Code lists them: case-insensitively.
func lessFolded(a, b string) bool {
	if la, lb := strings.ToLower(a), strings.ToLower(b); la != lb {
		return la < lb
	}
	return a < b
}
