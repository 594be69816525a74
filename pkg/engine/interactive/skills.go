package interactive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// skillCommands offers the user-invocable skills and custom commands as slash commands
// (/name args): each expands into the prompt the model then gets (commands.PromptKey).
// The invocation (the skill, the user's /name args, its allowed-tools) is remembered by
// the expanded text until that prompt runs (invocations): the front end that ran the
// command submits it, and the run shows the user's input, grants the allowed-tools and
// runs a context: fork skill in its subagent.
type skillCommands struct {
	cat       *skills.Catalog
	sessionID func() string
	grants    *promptGrants
}

// skillInvocation is a skill the user ran as /name args.
type skillInvocation struct {
	skill skills.Skill
	args  string
	// display is what the user typed ("/name args"): the timeline shows it, not the
	// expanded body the model gets.
	display string
}

// promptGrants holds the skills the user invoked, by the expanded prompt text, until
// that prompt runs. Bounded: a command whose prompt is never submitted must not grow it.
type promptGrants struct {
	mu    sync.Mutex
	texts []string
	inv   map[string]skillInvocation
}

const maxPromptGrants = 16

func (g *promptGrants) add(text string, inv skillInvocation) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inv == nil {
		g.inv = map[string]skillInvocation{}
	}
	if _, ok := g.inv[text]; !ok {
		g.texts = append(g.texts, text)
	}
	g.inv[text] = inv
	for len(g.texts) > maxPromptGrants {
		delete(g.inv, g.texts[0])
		g.texts = g.texts[1:]
	}
}

// take returns and forgets the invocation of a prompt of this text.
func (g *promptGrants) take(text string) (skillInvocation, bool) {
	if g == nil {
		return skillInvocation{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	inv, ok := g.inv[text]
	if ok {
		delete(g.inv, text)
		g.texts = slices.DeleteFunc(g.texts, func(t string) bool { return t == text })
	}
	return inv, ok
}

func (c skillCommands) Name() string { return "skill" }

// Commands are every skill and custom command: the user runs the user-invocable ones
// (/name args expands into the prompt), the model the model-invocable ones (the
// SlashCommand tool runs them as the Skill tool does). Running one returns its
// instructions, so it reads; a context: fork one starts a subagent.
func (c skillCommands) Commands() []commands.Command {
	var out []commands.Command
	for _, sk := range c.cat.List() {
		// A plugin's command answers to /plugin:name, and to /name while no other
		// command has that name (commands.Registry.Lookup).
		name, plugin, source := sk.Name, "", "skill"
		if sk.Plugin != "" {
			name, plugin, source = strings.TrimPrefix(sk.Name, sk.Plugin+":"), sk.Plugin, "plugin"
		}
		safety := commands.SafetyReadOnly
		if sk.Fork() {
			safety = commands.SafetyBackgroundAgent
		}
		out = append(out, commands.Command{Name: name, Plugin: plugin, Description: sk.Description, ArgumentHint: sk.ArgumentHint,
			Source: source, UserInvocable: sk.UserInvocable, ModelInvocable: sk.ModelInvocable(), Safety: safety,
			Run: func(_ context.Context, args string) commands.Result {
				text := skills.Expand(sk, args, skills.ExpandOptions{SessionID: c.sessionID()})
				display := strings.TrimSpace("/" + name + " " + args)
				c.grants.add(text, skillInvocation{skill: sk, args: args, display: display})
				return commands.Result{Message: "/" + sk.Name + " expanded for the model", Success: true,
					Data: map[string]any{commands.PromptKey: text, "skill": sk.Name}}
			}})
	}
	return out
}

// EntrySkillInvocation is the timeline entry of a skill the user ran as /name args:
// {skillName, skill, args, displayInput, context}. It comes before the run's messages.
// skillName is the spec's key; skill holds the same name for readers of timelines
// saved before skillName was written.
const EntrySkillInvocation = "skill-invocation"

// MetadataDisplayInput, in a user message's Metadata, is what the user typed when the
// message's text is not it (a skill's "/name args"): clients show it.
const MetadataDisplayInput = "displayInput"

// runSkill runs a prompt that is the expansion of a skill the user ran as /name args:
// the timeline records the invocation and the user message carries the user's input
// (clients show "/name args", not the body the model gets; UserPromptSubmit sees it
// too), its allowed-tools are allowed for the prompt, and a context: fork skill runs in
// an isolated subagent instead of the session's model.
func (s *InteractiveSession) runSkill(ctx context.Context, p *pendingPrompt, inv skillInvocation) (answer string, forked bool, err error) {
	fork := inv.skill.Fork() && s.host != nil && s.host.Subagents != nil
	entry := map[string]any{"skillName": inv.skill.Name, "skill": inv.skill.Name, "args": inv.args, "displayInput": inv.display}
	if fork {
		entry["context"] = skills.ContextFork
	}
	s.addEntry(EntrySkillInvocation, entry)
	if len(inv.skill.AllowedTools) > 0 {
		s.sess.AllowForPrompt(inv.skill.AllowedTools) // for this prompt (its subagent shares them)
	}
	if !fork {
		answer, err = s.sess.RunWith(ctx, p.text, session.RunInput{Raw: inv.display,
			UserMetadata: map[string]any{MetadataDisplayInput: inv.display}})
		return answer, false, err
	}
	// The user's message is what they typed; the subagent's lines are shown under the
	// invocation's id (parent_tool_use_id), as under a model's Skill call; its answer is
	// the session's reply.
	if err := s.sess.InjectMessage(llm.RoleUser, inv.display); err != nil {
		return "", true, err
	}
	answer, err = s.host.Subagents.RunForkedSkill(ctx, inv.skill, p.text, "skill_"+s.newID())
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", session.ErrAborted, err)
		}
		return "", true, errors.Join(err, s.sess.SaveHeader(context.WithoutCancel(ctx)))
	}
	if err := s.sess.InjectMessage(llm.RoleAssistant, answer); err != nil {
		return "", true, err
	}
	if msgs := s.sess.Messages(); len(msgs) > 0 {
		s.onMessage(msgs[len(msgs)-1])
	}
	return answer, true, s.sess.SaveHeader(context.WithoutCancel(ctx))
}
