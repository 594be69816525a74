package agent

import (
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Guard thresholds (fractions of the context window).
const (
	// HardContextGuardRatio blocks a provider call whose effective estimate exceeds it.
	HardContextGuardRatio = 0.95
	// ToolResultBudgetRatio is where further tool results are replaced by
	// ContextSkippedToolText.
	ToolResultBudgetRatio = 0.80
	// toolBudgetCharsPerToken is the spec's chars/2 estimate for the tool-result budget.
	toolBudgetCharsPerToken = 2
)

// contextGuard runs the pre-send check. When the effective estimate of the request exceeds
// 95% of the window it commits a diagnostic assistant message, ends the run and returns true.
func (r *run) contextGuard(req llm.ChatRequest) bool {
	floor := r.lastCall.InputTokens + r.lastCall.OutputTokens
	est := contextwin.EstimateContextTokens(req.Messages, floor)
	threshold := int(float64(r.a.window) * HardContextGuardRatio)
	if est.Tokens <= threshold {
		return false
	}
	text := fmt.Sprintf("Context window limit reached: the request is estimated at %s tokens, over %d%% of the "+
		"%s-token context window (threshold %s). Serialized estimate: %s tokens; provider usage floor: %s tokens. "+
		"Compact the conversation or start a new one to continue.",
		groupDigits(est.Tokens), int(HardContextGuardRatio*100), groupDigits(r.a.window), groupDigits(threshold),
		groupDigits(est.SerializedTokens), groupDigits(max(est.ProviderTokens, est.FloorTokens)))
	store := r.a.store
	store.BeginAssistant()
	store.SetPendingText(text)
	msg := store.CommitAssistant(llm.StateComplete, nil, map[string]any{
		"errorCode":          ErrorCodeContextExceeded,
		"estimatedTokens":    est.Tokens,
		"maxTokens":          r.a.window,
		"serializedTokens":   est.SerializedTokens,
		"providerUsageFloor": max(est.ProviderTokens, est.FloorTokens),
		"thresholdTokens":    threshold,
		"thresholdRatio":     HardContextGuardRatio,
	})
	r.em.emit(r.round, Event{Type: EventAssistantMessageCommitted, Message: &msg})
	r.textDelta(text)
	r.result.StopReason, r.result.Response = StopContextLimit, text
	return true
}

// toolBudgetExceeded reports whether history (chars/2) is past 80% of the window.
func (r *run) toolBudgetExceeded() bool {
	tokens := r.a.store.serializedChars() / toolBudgetCharsPerToken
	return float64(tokens) > float64(r.a.window)*ToolResultBudgetRatio
}

func groupDigits(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
