package interactive

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/agenttool"
)

// loadSkills reads the session's skills and custom commands (skills.Dirs: project before
// user, .robota before .claude). A malformed file is a warning naming it; nothing else is
// affected. It returns the Skill tool, or nil when no skill may be invoked by the model,
// so sessions without skills offer the same tools as before.
func (a *Assembled) loadSkills(opts Options, sessionID func() string, spawner *agentSpawner) (*skills.Catalog, llm.Tool) {
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	cat, problems := skills.Load(append(skills.Dirs(opts.Cwd, home), a.pluginSkillDirs()...))
	for _, p := range problems {
		a.Warnings = append(a.Warnings, "skill: "+p.Error())
	}
	if len(cat.ModelVisible()) == 0 {
		return cat, nil
	}
	cfg := skills.ToolConfig{Catalog: func() *skills.Catalog { return cat }, SessionID: sessionID}
	if spawner != nil {
		// context: fork runs the skill in a subagent (a worker of its own) and returns its
		// answer.
		cfg.Fork = func(ctx context.Context, s skills.Skill, text string) (string, error) {
			id, err := spawner.Spawn(ctx, agenttool.SpawnRequest{Description: "skill " + s.Name, Prompt: text,
				AgentType: firstNonEmpty(s.Agent, agenttool.DefaultAgentType), Model: s.Model})
			if err != nil {
				return "", err
			}
			res, err := spawner.Wait(ctx, id)
			if err != nil {
				return "", err
			}
			if !res.Succeeded() {
				return "", fmt.Errorf("forked skill %s: %s", s.Name, firstNonEmpty(res.Error, res.Status))
			}
			return res.Output, nil
		}
	}
	return cat, skills.NewTool(cfg)
}

// skillCommands offers the user-invocable skills and custom commands as slash commands
// (/name args): each expands into the prompt the model then gets (commands.PromptKey).
type skillCommands struct {
	cat       *skills.Catalog
	sessionID func() string
}

func (c skillCommands) Name() string { return "skill" }

func (c skillCommands) Commands() []commands.Command {
	var out []commands.Command
	for _, sk := range c.cat.UserVisible() {
		// A plugin's command answers to /plugin:name, and to /name while no other
		// command has that name (commands.Registry.Lookup).
		name, plugin, source := sk.Name, "", "skill"
		if sk.Plugin != "" {
			name, plugin, source = strings.TrimPrefix(sk.Name, sk.Plugin+":"), sk.Plugin, "plugin"
		}
		out = append(out, commands.Command{Name: name, Plugin: plugin, Description: sk.Description, ArgumentHint: sk.ArgumentHint,
			Source: source, Run: func(_ context.Context, args string) commands.Result {
				text := skills.Expand(sk, args, skills.ExpandOptions{SessionID: c.sessionID()})
				return commands.Result{Message: "/" + sk.Name + " expanded for the model", Success: true,
					Data: map[string]any{commands.PromptKey: text, "skill": sk.Name}}
			}})
	}
	return out
}
