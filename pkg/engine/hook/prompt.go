package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DefaultAgentMaxTurns bounds an agent hook's rounds when the hook sets no maxTurns
// (Claude Code's limit).
const DefaultAgentMaxTurns = 50

// maxVerdictText bounds the model answer a verdict is read from.
const maxVerdictText = 64 << 10

// Verdict is what a prompt or agent hook's model answers: the condition is met (OK) or
// not, with a reason; Impossible marks a stop condition that can never be met.
type Verdict struct {
	OK         bool   `json:"ok"`
	Reason     string `json:"reason,omitempty"`
	Impossible bool   `json:"impossible,omitempty"`
}

// ErrInvalidVerdict reports a model answer that is not a verdict.
var ErrInvalidVerdict = errors.New("hook model answer is not a verdict")

// ParseVerdict reads a model answer: one JSON object {"ok": bool, "reason": string,
// "impossible": bool} (reason and impossible optional; other keys ignored, as Claude
// Code's schema does), alone, in a ``` fence, or ending the text after some prose (an
// agent may explain before answering). ok must be a JSON boolean: "false" in quotes is
// no verdict, so a malformed answer is never read as either allow or block.
func ParseVerdict(text string) (Verdict, error) {
	if len(text) > maxVerdictText {
		text = text[len(text)-maxVerdictText:]
	}
	t := strings.TrimSpace(stripFence(strings.TrimSpace(text)))
	if !strings.HasSuffix(t, "}") {
		return Verdict{}, fmt.Errorf("%w: no JSON object at the end of %q", ErrInvalidVerdict, shorten(t))
	}
	// Try the object that ends the text, from the last '{' backwards: the first start
	// that decodes to the end is the answer. Bounded, so a text of braces stays cheap.
	var firstErr error
	for i, tries := len(t), 0; tries < 64; tries++ {
		i = strings.LastIndexByte(t[:i], '{')
		if i < 0 {
			break
		}
		v, err := verdictObject(t[i:])
		if err == nil {
			return v, nil
		}
		if firstErr == nil || !errors.Is(err, ErrInvalidOutput) {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%w: %q", ErrInvalidVerdict, shorten(t))
	}
	return Verdict{}, firstErr
}

func verdictObject(s string) (Verdict, error) {
	obj, err := decodeObject([]byte(s))
	if err != nil {
		return Verdict{}, err
	}
	var v Verdict
	raw, ok := obj["ok"]
	if !ok {
		return Verdict{}, fmt.Errorf("%w: missing \"ok\"", ErrInvalidVerdict)
	}
	if err := json.Unmarshal(raw, &v.OK); err != nil || string(raw) == "null" {
		return Verdict{}, fmt.Errorf("%w: \"ok\" is %s, not a boolean", ErrInvalidVerdict, raw)
	}
	if raw, ok := obj["reason"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &v.Reason); err != nil {
			return Verdict{}, fmt.Errorf("%w: \"reason\" is not a string", ErrInvalidVerdict)
		}
	}
	if raw, ok := obj["impossible"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &v.Impossible); err != nil {
			return Verdict{}, fmt.Errorf("%w: \"impossible\" is not a boolean", ErrInvalidVerdict)
		}
	}
	return v, nil
}

// stripFence removes a ```json … ``` fence around the whole text.
func stripFence(t string) string {
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	inner := t[3 : len(t)-3]
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.Contains(inner[:nl], "{") {
		inner = inner[nl+1:] // the info string (json)
	}
	return inner
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// ExpandPrompt puts the hook input JSON in place of every $ARGUMENTS of a prompt, or
// appends it ("ARGUMENTS: {...}") when there is none, as Claude Code does.
func ExpandPrompt(prompt string, input []byte) string {
	if strings.Contains(prompt, "$ARGUMENTS") {
		return strings.ReplaceAll(prompt, "$ARGUMENTS", string(input))
	}
	return prompt + "\n\nARGUMENTS: " + string(input)
}

// isStopEvent reports the events whose prompt hooks judge a stopping condition.
func isStopEvent(ev Event) bool { return ev == Stop || ev == SubagentStop }

// eventOf reads hook_event_name from a hook's input.
func eventOf(input []byte) Event {
	var in struct {
		Event Event `json:"hook_event_name"`
	}
	_ = json.Unmarshal(input, &in)
	return in.Event
}

// The system prompts of prompt hooks, after Claude Code's.
const (
	promptSystem = `You are evaluating a hook condition in a coding agent. Judge whether the user-provided condition is met.

Your response must be a JSON object with one of these shapes:
- {"ok": true, "reason": "<reason the condition is met>"}
- {"ok": false, "reason": "<reason the condition is not met>"}

Always include a "reason" field. Answer with the JSON object only.`

	stopSystem = `You are evaluating a stop-condition hook in a coding agent. Read the hook input (last_assistant_message is the agent's final answer; the transcript is at transcript_path), then judge whether the user-provided condition is satisfied.

Your response must be a JSON object with one of these shapes:
- {"ok": true, "reason": "<evidence that satisfies the condition>"}
- {"ok": false, "reason": "<what is missing or what blocks the condition>"}
- {"ok": false, "impossible": true, "reason": "<why the condition can never be satisfied>"}

If there is no clear evidence that the condition is satisfied, return {"ok": false, "reason": "insufficient evidence"}. Use "impossible" only when the condition is genuinely unachievable in this session. Answer with the JSON object only.`

	agentSystem = `You are evaluating a %s hook in a coding agent. Your task is to evaluate the condition described in the user message. The conversation transcript is at: %s
Use the available read-only tools to inspect the codebase and verify the condition. Use as few steps as possible - be efficient and direct.
When done, end your answer with exactly one JSON object:
- {"ok": true} if the condition is met
- {"ok": false, "reason": "<why>"} if the condition is not met`
)

// ModelRequest is one prompt hook's model call.
type ModelRequest struct {
	Event  Event
	Model  string // the hook's model; empty: the session's
	System string
	Prompt string
}

// PromptExecutor runs "prompt" hooks: one model call through Ask (the session's
// provider, never a worker's), whose verdict decides. It is safe for concurrent use
// when Ask is.
type PromptExecutor struct {
	Ask func(ctx context.Context, req ModelRequest) (string, error)
}

// Execute asks the model and turns its verdict into the hook's outcome (see
// VerdictResponse). A failed call or an answer that is not a verdict is an error: the
// runner reports it as a non-blocking failure, logged and returned in Result.Errors.
func (x PromptExecutor) Execute(ctx context.Context, h Definition, input []byte) (Response, error) {
	if x.Ask == nil {
		return Response{}, fmt.Errorf("%w \"prompt\"", ErrNoExecutor)
	}
	ev := eventOf(input)
	system := promptSystem
	if isStopEvent(ev) {
		system = stopSystem
	}
	text := ExpandPrompt(h.Prompt, input)
	if isStopEvent(ev) {
		text = "Based on the hook input, has the following stopping condition been satisfied?\n\nCondition: " + text
	}
	answer, err := x.Ask(ctx, ModelRequest{Event: ev, Model: h.Model, System: system, Prompt: text})
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, fmt.Errorf("%w: prompt hook: %w", ErrTimeout, ctx.Err())
		}
		return Response{}, fmt.Errorf("%w: prompt hook model call: %w", ErrHookFailed, err)
	}
	v, err := ParseVerdict(answer)
	if err != nil {
		return Response{}, fmt.Errorf("%w: prompt hook: %w", ErrHookFailed, err)
	}
	return VerdictResponse(ev, h, v, "["+h.Prompt+"]: "+v.Reason), nil
}

// AgentRequest is one agent hook's run: a subagent with read-only tools that ends with
// a verdict.
type AgentRequest struct {
	Event    Event
	Model    string
	System   string
	Prompt   string
	MaxTurns int
}

// AgentExecutor runs "agent" hooks through Run, which starts the subagent and returns
// its final answer text.
type AgentExecutor struct {
	Run func(ctx context.Context, req AgentRequest) (string, error)
}

// Execute runs the subagent and turns its verdict into the hook's outcome. A subagent
// that fails, runs out of turns or time, or ends without a verdict is a non-blocking
// error (Claude Code cancels the hook then).
func (x AgentExecutor) Execute(ctx context.Context, h Definition, input []byte) (Response, error) {
	if x.Run == nil {
		return Response{}, fmt.Errorf("%w \"agent\"", ErrNoExecutor)
	}
	ev := eventOf(input)
	var in struct {
		Transcript string `json:"transcript_path"`
	}
	_ = json.Unmarshal(input, &in)
	turns := h.MaxTurns
	if turns <= 0 {
		turns = DefaultAgentMaxTurns
	}
	answer, err := x.Run(ctx, AgentRequest{Event: ev, Model: h.Model, MaxTurns: turns,
		System: fmt.Sprintf(agentSystem, ev, in.Transcript), Prompt: ExpandPrompt(h.Prompt, input)})
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, fmt.Errorf("%w: agent hook: %w", ErrTimeout, ctx.Err())
		}
		return Response{}, fmt.Errorf("%w: agent hook: %w", ErrHookFailed, err)
	}
	v, err := ParseVerdict(answer)
	if err != nil {
		return Response{}, fmt.Errorf("%w: agent hook: %w", ErrHookFailed, err)
	}
	h.ContinueOnBlock = true // Claude Code's agent hooks block without ending the turn
	return VerdictResponse(ev, h, v, "Agent hook condition was not met: "+v.Reason), nil
}

// VerdictResponse is a verdict in command-hook terms, so the runner folds it like any
// hook's output. ok, and an impossible stop condition, proceed without an opinion (ok
// never allows by itself: the permission rules still decide). Not ok blocks as exit
// code 2 would, with reason as the reason: the tool call is denied (PreToolUse), the
// permission denied (PermissionRequest), the prompt refused (UserPromptSubmit), the
// agent kept going (Stop, SubagentStop), the reason fed to the model (PostToolUse).
// Outside the stop events the block also ends the turn (continue false) unless the
// hook sets continueOnBlock, as in Claude Code.
func VerdictResponse(ev Event, h Definition, v Verdict, reason string) Response {
	if v.OK || (v.Impossible && isStopEvent(ev)) {
		return Response{}
	}
	var out map[string]any
	if ev == PermissionRequest {
		out = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": string(ev),
			"decision": map[string]any{"behavior": "deny", "message": reason}}}
	} else {
		out = map[string]any{"decision": "block", "reason": reason}
		if !isStopEvent(ev) && !h.ContinueOnBlock {
			out["continue"], out["stopReason"] = false, v.Reason
		}
	}
	b, _ := json.Marshal(out) // strings and bools only
	return Response{Stdout: string(b)}
}
