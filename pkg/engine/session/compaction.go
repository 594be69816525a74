package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// compactionPrompt asks for a summary that can replace the conversation.
const compactionPrompt = "Your task is to write a detailed summary of the conversation so far. " +
	"The summary will replace the conversation history, so include everything needed to continue the work: " +
	"the user's requests and intent, key decisions, files and code examined or changed (with paths), " +
	"commands run and their outcomes, errors and how they were resolved, pending tasks, and the next step. " +
	"Respond with the summary only; do not call tools."

// CompactRequest is one compaction.
type CompactRequest struct {
	History       []llm.Message
	SystemMessage string // re-injected first; never summarized
	Trigger       string // TriggerAuto or TriggerManual
	Instructions  string // the caller's instructions (e.g. "/compact focus on the API")
}

// CompactionOrchestrator summarizes a conversation through the provider and replaces it.
// Order: PreCompact (a block stops everything) → summary request without the system
// messages (ChatRequest.Purpose = compaction, no tools) → apply [system, summary] →
// PostCompact with compact_summary. Nothing is applied unless every step before it
// succeeded and ctx is live.
type CompactionOrchestrator struct {
	provider     llm.Provider
	model        string
	factory      llm.Factory
	hooks        *hookBase
	instructions string // always added (Config.CompactInstructions)
}

// NewCompactionOrchestrator returns an orchestrator. hooks may be nil.
func NewCompactionOrchestrator(provider llm.Provider, model string, factory llm.Factory, hooks HookRunner, instructions string) *CompactionOrchestrator {
	return &CompactionOrchestrator{provider: provider, model: model, factory: factory,
		hooks: &hookBase{runner: hooks}, instructions: instructions}
}

// Compact runs a compaction. apply receives the new history; it is called at most once,
// and only when the summary succeeded. The summary is returned.
func (c *CompactionOrchestrator) Compact(ctx context.Context, req CompactRequest, apply func([]llm.Message) error) (string, error) {
	var body []llm.Message
	for _, m := range llm.MessagesForAPI(req.History) {
		if m.Role != llm.RoleSystem {
			body = append(body, m)
		}
	}
	if len(body) == 0 {
		return "", ErrNothingToCompact
	}
	instructions := joinNonEmpty(c.instructions, req.Instructions)
	pre := c.hooks.run(ctx, HookInput{HookEventName: HookPreCompact, Trigger: req.Trigger, CustomInstructions: instructions})
	if ctx.Err() != nil {
		return "", abortError(ctx)
	}
	if pre.Blocked {
		return "", fmt.Errorf("%w: %s", ErrCompactionBlocked, firstNonEmpty(pre.Reason, "no reason given"))
	}
	prompt := compactionPrompt
	if instructions != "" {
		prompt += "\n\nAdditional instructions:\n" + instructions
	}
	body = append(body, c.factory.User(prompt))
	resp, err := c.provider.Chat(ctx, llm.ChatRequest{Model: c.model, Messages: body, Purpose: llm.PurposeCompaction}, llm.Callbacks{})
	if ctx.Err() != nil {
		return "", abortError(ctx)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCompactionFailed, llm.WrapProviderError(c.provider.Name(), err))
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return "", fmt.Errorf("%w: the summary is empty", ErrCompactionFailed)
	}
	next := make([]llm.Message, 0, 2)
	if req.SystemMessage != "" {
		next = append(next, c.factory.System(req.SystemMessage))
	}
	next = append(next, c.factory.Assistant([]llm.Part{llm.TextPart(ContextSummaryPrefix + "\n" + summary)}, llm.StateComplete))
	if err := apply(next); err != nil {
		return "", fmt.Errorf("%w: %w", ErrCompactionFailed, err)
	}
	c.hooks.run(context.WithoutCancel(ctx), HookInput{HookEventName: HookPostCompact, Trigger: req.Trigger, CompactSummary: summary})
	return summary, nil
}

// setModel makes later compactions ask model (the session's model changed between
// prompts; compaction never runs then).
func (c *CompactionOrchestrator) setModel(model string) { c.model = model }
