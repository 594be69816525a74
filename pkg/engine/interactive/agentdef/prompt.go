package agentdef

import "strings"

// Framework suffixes appended to every subagent system prompt (agent-sdk, "Framework
// System Prompt Suffixes").
const (
	// SubagentSuffix: the default, for Agent tool runs.
	SubagentSuffix = `You are running as a subagent: the parent agent gave you this task and reads your final message as the result. Report back concisely: what you did, what you found, and anything the parent must know to continue (file paths, commands, open problems). Do not address the user directly.`
	// ForkWorkerSuffix: for skills run with context: fork.
	ForkWorkerSuffix = `You are running as a forked worker for a skill: do the task and answer in at most 500 words, with only what the caller needs.`
)

// PromptParts are the pieces of a subagent system prompt.
type PromptParts struct {
	// Body is the agent definition's system prompt.
	Body string
	// ClaudeMD and AgentsMD are the parent's loaded project instructions.
	ClaudeMD string
	AgentsMD string
	// ForkWorker selects ForkWorkerSuffix instead of SubagentSuffix.
	ForkWorker bool
}

// AssemblePrompt joins the parts in the spec's order (body, CLAUDE.md, AGENTS.md,
// suffix), skipping empty ones, separated by blank lines.
func AssemblePrompt(p PromptParts) string {
	suffix := SubagentSuffix
	if p.ForkWorker {
		suffix = ForkWorkerSuffix
	}
	var parts []string
	for _, s := range []string{p.Body, p.ClaudeMD, p.AgentsMD, suffix} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}
