package assemble

import (
	"context"
	"fmt"
	"os"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/background"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/tools/agenttool"
)

// loadSkills reads the session's skills and custom commands (skills.Dirs: project before
// user, .robota before .claude). A malformed file is a warning naming it; nothing else is
// affected. It returns the Skill tool, or nil when no skill may be invoked by the model,
// so sessions without skills offer the same tools as before.
func (a *Assembled) loadSkills(opts Options, sessionID func() string, spawner *background.Spawner) (*skills.Catalog, llm.Tool) {
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	dirs := append(skills.Dirs(opts.Cwd, home), a.pluginSkillDirs()...)
	for i := range dirs {
		dirs[i].Denied = a.readDenied // a skill's text goes into the prompt
	}
	cat, problems := skills.Load(dirs)
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
func runForkedSkill(ctx context.Context, spawner *background.Spawner, s skills.Skill, text, parentToolUseID string) (string, error) {
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
