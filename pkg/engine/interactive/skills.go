package interactive

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
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
	for _, s := range cat.List() {
		for _, r := range s.AllowedTools {
			if _, err := permission.NewRule(permission.Allow, r, permission.Source{Name: "skill"}); err != nil {
				a.Warnings = append(a.Warnings, fmt.Sprintf("skill: %s: allowed-tools %q is not a permission rule and allows nothing: %v", s.Path, r, err))
			}
		}
	}
	if len(cat.ModelVisible()) == 0 {
		return cat, nil
	}
	cfg := skills.ToolConfig{Catalog: func() *skills.Catalog { return cat }, SessionID: sessionID,
		// The skill's allowed-tools are allowed without asking for the rest of the prompt
		// (Claude Code); a forked skill's subagent shares the grant.
		Activate: func(s skills.Skill) {
			if len(s.AllowedTools) > 0 && a.Session != nil {
				a.Session.AllowForPrompt(s.AllowedTools)
			}
		}}
	if spawner != nil {
		// context: fork runs the skill in a subagent (a worker of its own) and returns its
		// answer; the subagent's messages carry the Skill call's id (parent_tool_use_id),
		// as an Agent call's do.
		cfg.Fork = func(ctx context.Context, s skills.Skill, text string) (string, error) {
			call, _ := llm.ToolCallFrom(ctx)
			return runForkedSkill(ctx, spawner, s, text, call.ID)
		}
	}
	return cat, skills.NewTool(cfg)
}

// runForkedSkill runs a context: fork skill's expanded text in an isolated subagent (the
// skill's agent, else general-purpose) with the fork-worker prompt suffix, and returns
// its answer. parentToolUseID is the call its messages are shown under.
func runForkedSkill(ctx context.Context, spawner *agentSpawner, s skills.Skill, text, parentToolUseID string) (string, error) {
	id, err := spawner.Spawn(ctx, agenttool.SpawnRequest{Description: "skill " + s.Name, Prompt: text,
		AgentType: firstNonEmpty(s.Agent, agenttool.DefaultAgentType), Model: s.Model,
		ToolCallID: parentToolUseID, ForkWorker: true})
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

// skillCommands offers the user-invocable skills and custom commands as slash commands
// (/name args): each expands into the prompt the model then gets (commands.PromptKey).
// A skill's allowed-tools are granted to the prompt of exactly that text when it runs
// (grants): the front end that ran the command submits it.
type skillCommands struct {
	cat       *skills.Catalog
	sessionID func() string
	grants    *promptGrants
}

// promptGrants holds the allowed-tools of skills the user invoked, by the expanded
// prompt text, until that prompt runs. Bounded: a command whose prompt is never
// submitted must not grow it.
type promptGrants struct {
	mu    sync.Mutex
	texts []string
	rules map[string][]string
}

const maxPromptGrants = 16

func (g *promptGrants) add(text string, rules []string) {
	if g == nil || len(rules) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rules == nil {
		g.rules = map[string][]string{}
	}
	if _, ok := g.rules[text]; !ok {
		g.texts = append(g.texts, text)
	}
	g.rules[text] = rules
	for len(g.texts) > maxPromptGrants {
		delete(g.rules, g.texts[0])
		g.texts = g.texts[1:]
	}
}

// take returns and forgets the rules granted to a prompt of this text.
func (g *promptGrants) take(text string) []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	rules, ok := g.rules[text]
	if ok {
		delete(g.rules, text)
		g.texts = slices.DeleteFunc(g.texts, func(t string) bool { return t == text })
	}
	return rules
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
				c.grants.add(text, sk.AllowedTools)
				return commands.Result{Message: "/" + sk.Name + " expanded for the model", Success: true,
					Data: map[string]any{commands.PromptKey: text, "skill": sk.Name}}
			}})
	}
	return out
}
