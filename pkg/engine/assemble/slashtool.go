package assemble

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
)

// slashCommandTool is the model's way to run the commands marked model-invocable
// (/memory, custom commands and skills without disable-model-invocation): Claude Code's
// SlashCommand tool, the spec's "ExecuteCommand as a model tool". It is a tool like any
// other, so the permission rules (SlashCommand(/name:*)) and the PreToolUse and
// PostToolUse hooks apply to it; a call's mode class is its command's safety
// (classify). A command that is not model-invocable is refused, saying so.
type slashCommandTool struct {
	// listing describes the model-invocable built-ins in the tool's description; it is
	// fixed when the session starts (the schema is).
	listing string
	// skill runs a skill or custom command as the Skill tool does (a fork in its
	// subagent, allowed-tools granted); nil when no skill is model-invocable.
	skill llm.Tool

	mu  sync.RWMutex
	reg func() *commands.Registry // the session's commands; nil until New binds it
}

func newSlashCommandTool(skill llm.Tool) *slashCommandTool {
	var b strings.Builder
	for _, c := range interactive.BuiltinCommands() {
		if !c.ModelInvocable {
			continue
		}
		fmt.Fprintf(&b, "- /%s", c.Name)
		if c.ArgumentHint != "" {
			fmt.Fprintf(&b, " %s", c.ArgumentHint)
		}
		fmt.Fprintf(&b, ": %s\n", c.Description)
	}
	return &slashCommandTool{listing: b.String(), skill: skill}
}

// bind gives the tool the session's command registry.
func (t *slashCommandTool) bind(reg func() *commands.Registry) {
	t.mu.Lock()
	t.reg = reg
	t.mu.Unlock()
}

func (t *slashCommandTool) registry() *commands.Registry {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.reg == nil {
		return nil
	}
	return t.reg()
}

var slashCommandSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"command":{"type":"string","description":"The slash command with its arguments, e.g. \"/memory list\" or \"/review-pr 123\"."}},` +
	`"required":["command"],"additionalProperties":false}`)

func (t *slashCommandTool) Schema() llm.ToolSchema {
	desc := "Execute a slash command within the main conversation.\n\n" +
		"Usage: `command` is the command and its arguments, e.g. \"/memory list\". Only the commands below, and the custom commands and skills listed under \"Skills\" (as /name args), can be run this way; other slash commands are the user's. " +
		"Do not run a command that is already running.\n\nAvailable commands:\n" + t.listing
	return llm.ToolSchema{Name: permission.SlashCommandTool, Description: strings.TrimRight(desc, "\n"), InputSchema: slashCommandSchema}
}

// resolve finds the command of a call: the command, its arguments, and whether it was
// found. err is a message for the model on a malformed call.
func (t *slashCommandTool) resolve(raw json.RawMessage) (c commands.Command, args string, found bool, err error) {
	var in struct {
		Command string `json:"command"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return c, "", false, fmt.Errorf("invalid SlashCommand arguments: %w", err)
	}
	name, args, err := permission.SplitCommandLine(in.Command)
	if err != nil {
		return c, "", false, fmt.Errorf("invalid SlashCommand arguments: %w", err)
	}
	reg := t.registry()
	if reg == nil {
		return commands.Command{Name: name}, args, false, nil
	}
	c, found = reg.Lookup(name)
	if !found {
		c.Name = name
	}
	return c, args, found, nil
}

func (t *slashCommandTool) Execute(ctx context.Context, raw json.RawMessage) llm.ToolResult {
	c, args, found, err := t.resolve(raw)
	if err != nil {
		return llm.ToolFailure(err.Error())
	}
	if !found || c.Run == nil {
		return llm.ToolFailure(fmt.Sprintf("Unknown command /%s.%s", c.Name, t.available()))
	}
	if !c.ModelInvocable {
		return llm.ToolFailure(fmt.Sprintf("/%s cannot be run by the model: it is not model-invocable, only the user can run it.%s", c.QualifiedName(), t.available()))
	}
	meta := map[string]any{"command": c.QualifiedName(), "args": args, "source": c.Source, "safety": string(c.SafetyOf(args))}
	if (c.Source == "skill" || c.Source == "plugin") && t.skill != nil {
		// A skill or custom command runs as the Skill tool runs it (a context: fork one in
		// its subagent, its allowed-tools granted for the prompt).
		in, _ := json.Marshal(map[string]string{"skill": c.QualifiedName(), "args": args})
		r := t.skill.Execute(ctx, in)
		for k, v := range r.Metadata {
			meta[k] = v
		}
		r.Metadata = meta
		return r
	}
	res := c.Run(ctx, args)
	meta["success"] = res.Success
	if res.Data != nil {
		meta["data"] = res.Data
	}
	if text, ok := res.Data[commands.PromptKey].(string); ok && res.Success {
		// A command that expands into a prompt: the model follows it.
		r := llm.ToolSuccess(text)
		r.Metadata = meta
		return r
	}
	r := llm.ToolSuccess(res.Message)
	if !res.Success {
		r = llm.ToolFailure(res.Message)
	}
	r.Metadata = meta
	return r
}

// available names the commands the model may run, for a refusal.
func (t *slashCommandTool) available() string {
	reg := t.registry()
	if reg == nil {
		return ""
	}
	var names []string
	for _, c := range reg.ModelCommands() {
		names = append(names, "/"+c.QualifiedName())
	}
	if len(names) == 0 {
		return " No command can be run by the model."
	}
	return " Commands the model can run: " + strings.Join(names, ", ") + "."
}

// classify is the permission view of a SlashCommand call: the mode class of its
// command's safety for these arguments, and the other names the command answers to.
// A call that names no model-invocable command runs nothing, so it is a read.
func (t *slashCommandTool) classify(raw json.RawMessage) (permission.Class, []string) {
	c, args, found, err := t.resolve(raw)
	if err != nil || !found || !c.ModelInvocable {
		return permission.ClassRead, nil
	}
	var names []string
	for _, n := range []string{c.QualifiedName(), c.Name} {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return safetyClass(c.SafetyOf(args)), names
}

// safetyClass maps a command's safety to the permission mode's classes. A command that
// starts a subagent is a read, as the Agent tool is: the subagent's own calls are checked.
// A command that says nothing is unknown (asked about in default mode).
func safetyClass(s commands.Safety) permission.Class {
	switch s {
	case commands.SafetyReadOnly, commands.SafetyBackgroundAgent:
		return permission.ClassRead
	case commands.SafetyWrite:
		return permission.ClassModify
	case commands.SafetyProcess:
		return permission.ClassExecute
	case commands.SafetyNetwork:
		return permission.ClassNetwork
	}
	return permission.ClassUnknown
}
