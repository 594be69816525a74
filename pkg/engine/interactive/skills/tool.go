package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ToolName is the name the model calls the Skill tool by (Claude Code's).
const ToolName = "Skill"

// ToolConfig wires the Skill tool to a session.
type ToolConfig struct {
	// Catalog returns the session's skills (a func so a reload is seen).
	Catalog func() *Catalog
	// SessionID replaces ${CLAUDE_SESSION_ID}; nil leaves it empty.
	SessionID func() string
	// Fork runs a context: fork skill's expanded text in a subagent (the skill's Agent,
	// else general-purpose, tools limited to AllowedTools) and returns its answer. nil:
	// a fork skill is returned like an inline one.
	Fork func(ctx context.Context, s Skill, text string) (string, error)
	// Activate is called when a skill is invoked, before it runs (and before a fork
	// starts): the caller grants its AllowedTools for the rest of the prompt. nil: none.
	Activate func(s Skill)
}

type skillTool struct{ cfg ToolConfig }

// NewTool returns the model-facing Skill tool: parameters `skill` (the name, a leading
// "/" allowed) and `args`. It refuses unknown skills and disable-model-invocation ones,
// and returns the expanded skill text (Expand) for the model to follow, or a fork's
// answer. Activate lets the caller apply allowedTools while the skill runs; Metadata
// carries skill, kind, allowedTools, model and context.
func NewTool(cfg ToolConfig) llm.Tool { return skillTool{cfg: cfg} }

const toolDescription = `Execute a skill: a set of instructions, and sometimes scripts and reference files, for a kind of task.

The skills available are listed in the system prompt under "Skills" with their descriptions. When the user's request matches one, call this tool with its name as skill (for example "pdf" or "frontend:component") and any arguments as args, then follow the instructions it returns. When the user types "/<name> args" for a skill, that is a request to use it.

Only invoke skills that are listed; do not invoke a skill again while its instructions are already in the conversation.`

var toolSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"skill":{"type":"string","description":"The skill name, e.g. \"pdf\" or \"frontend:component\"."},` +
	`"args":{"type":"string","description":"Optional arguments for the skill."}},` +
	`"required":["skill"],"additionalProperties":false}`)

func (skillTool) Schema() llm.ToolSchema {
	return llm.ToolSchema{Name: ToolName, Description: toolDescription, InputSchema: toolSchema}
}

type toolArgs struct {
	Skill string `json:"skill"`
	Args  string `json:"args"`
}

func (t skillTool) Execute(ctx context.Context, raw json.RawMessage) llm.ToolResult {
	var in toolArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return llm.ToolFailure(fmt.Sprintf("invalid Skill arguments: %v", err))
	}
	name := strings.TrimPrefix(strings.TrimSpace(in.Skill), "/")
	if name == "" {
		return llm.ToolFailure(`invalid Skill arguments: "skill" is required`)
	}
	var cat *Catalog
	if t.cfg.Catalog != nil {
		cat = t.cfg.Catalog()
	}
	s, ok := cat.Lookup(name)
	if !ok || !s.ModelInvocable() {
		err := fmt.Errorf("%w: %q", ErrUnknownSkill, name)
		if ok {
			err = fmt.Errorf("%w: %q has disable-model-invocation set; only the user can run it as /%s", ErrModelInvocationDisabled, name, name)
		}
		return llm.ToolFailure(err.Error() + availableHint(cat))
	}
	var sid string
	if t.cfg.SessionID != nil {
		sid = t.cfg.SessionID()
	}
	text := Expand(s, in.Args, ExpandOptions{SessionID: sid})
	if t.cfg.Activate != nil {
		t.cfg.Activate(s)
	}
	meta := map[string]any{"skill": s.Name, "kind": string(s.Kind)}
	if s.AllowedTools != nil {
		meta["allowedTools"] = s.AllowedTools
	}
	if s.Model != "" {
		meta["model"] = s.Model
	}
	if s.Fork() {
		meta["context"] = ContextFork
		if t.cfg.Fork != nil {
			out, err := t.cfg.Fork(ctx, s, text)
			if err != nil {
				r := llm.ToolFailure(fmt.Sprintf("skill %q failed: %v", s.Name, err))
				r.Metadata = meta
				return r
			}
			text = out
		}
	}
	r := llm.ToolSuccess(text)
	r.Metadata = meta
	return r
}

// availableHint names the skills the model may use, so a wrong name can be corrected.
func availableHint(cat *Catalog) string {
	var names []string
	for _, s := range cat.ModelVisible() {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return ". No skills are available."
	}
	return ". Available skills: " + strings.Join(names, ", ")
}
