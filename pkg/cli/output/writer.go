package output

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Format is a headless output format.
type Format string

// The formats of --output-format.
const (
	FormatText       Format = "text"
	FormatJSON       Format = "json"
	FormatStreamJSON Format = "stream-json"
)

// ParseFormat validates an --output-format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return f, nil
	}
	return "", fmt.Errorf("--output-format %q: want text, json or stream-json", s)
}

// Init describes the session a run starts in.
type Init struct {
	SessionID      string
	Cwd            string
	Model          string
	Tools          []string
	PermissionMode string
	APIKeySource   string
	// SlashCommands, Skills and Agents are what the session offers by name, for a
	// client's completions; OutputStyle the active output style ("" is "default").
	SlashCommands []string
	Skills        []string
	Agents        []string
	OutputStyle   string
	MCPServers    []MCPServer
	Plugins       []Plugin
	// Sandbox is the command sandbox's state: "on", "off" or "unavailable" ("" leaves
	// the key out: a client that cannot know it, the engine's).
	Sandbox string
}

// Result describes how a run ended.
type Result struct {
	Subtype           string
	IsError           bool
	DurationMS        int64
	DurationAPIMS     int64
	NumTurns          int
	Text              string
	Usage             llm.Usage
	PermissionDenials []PermissionDenial
	Errors            []string
	// StructuredOutput is the --json-schema answer; nil for none.
	StructuredOutput json.RawMessage
	// StopReason is the model's stop reason (end_turn …); empty is null.
	StopReason string
	// Model is the model the usage is reported under in modelUsage (none when empty);
	// ContextWindow its window.
	Model         string
	ContextWindow int
}

// Writer renders one headless run. It is safe for concurrent use; the first
// write error is kept and returned by Result.
type Writer struct {
	mu        sync.Mutex
	w         io.Writer
	format    Format
	newID     func() string
	sessionID string
	err       error
}

// New returns a Writer for format that writes to w; newID makes the per-line uuids.
func New(w io.Writer, format Format, newID func() string) *Writer {
	return &Writer{w: w, format: format, newID: newID}
}

func (w *Writer) line(v any) {
	if w.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		w.err = fmt.Errorf("output: encode %T: %w", v, err)
		return
	}
	_, w.err = w.w.Write(append(b, '\n'))
}

// PermissionModeStatus emits system/status with the session's new permission mode
// (stream-json only), as Claude Code does after set_permission_mode.
func (w *Writer) PermissionModeStatus(mode string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.format != FormatStreamJSON {
		return
	}
	w.line(map[string]any{"type": "system", "subtype": "status", "status": nil, "permissionMode": mode,
		"uuid": w.newID(), "session_id": w.sessionID})
}

// SetSessionID sets the session id the lines carry, before any system/init.
func (w *Writer) SetSessionID(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sessionID = id
}

// Init emits system/init (stream-json only) and remembers the session id.
func (w *Writer) Init(in Init) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sessionID = in.SessionID
	if w.format != FormatStreamJSON {
		return
	}
	w.line(InitMessage{
		Type: "system", Subtype: "init", SessionID: in.SessionID, UUID: w.newID(), Cwd: in.Cwd,
		Model: in.Model, Tools: nonNil(in.Tools), PermissionMode: in.PermissionMode,
		APIKeySource: orDefault(in.APIKeySource, "none"), MCPServers: nonNilServers(in.MCPServers), SlashCommands: nonNil(in.SlashCommands),
		OutputStyle: orDefault(in.OutputStyle, "default"), Agents: nonNil(in.Agents), Skills: nonNil(in.Skills),
		Plugins: nonNilPlugins(in.Plugins), Sandbox: in.Sandbox,
	})
}

// Message emits a committed assistant message, or the tool result of a tool
// message as a user line (stream-json only). User prompts and system messages
// are not echoed, as in Claude Code.
func (w *Writer) Message(m llm.Message) { w.SubagentMessage(m, "") }

// SubagentMessage is Message for a subagent's message: parentToolUseID is the Agent call
// whose subagent wrote it (empty for the session's own messages), shown as
// parent_tool_use_id as Claude Code does.
func (w *Writer) SubagentMessage(m llm.Message, parentToolUseID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.format != FormatStreamJSON {
		return
	}
	var parent *string
	if parentToolUseID != "" {
		parent = &parentToolUseID
	}
	switch m.Role {
	case llm.RoleAssistant:
		// One line per content block, each with the message's id, as Claude Code writes
		// them (it sends each block as it completes).
		am := assistantMessage(m)
		for i := range max(1, len(am.Content)) {
			w.line(ConversationMessage{Type: "assistant", Message: am.block(i), ParentToolUseID: parent, SessionID: w.sessionID, UUID: w.newID()})
		}
	case llm.RoleTool:
		r, ok := m.ToolResult()
		if !ok {
			return
		}
		content, isErr := r.Content, r.IsError
		w.line(ConversationMessage{Type: "user", Message: APIMessage{Role: "user", Content: []ContentBlock{{
			Type: "tool_result", ToolUseID: r.ToolCallID, Content: &content, IsError: &isErr,
		}}}, ParentToolUseID: parent, SessionID: w.sessionID, UUID: w.newID()})
	}
}

// AssistantBlock emits the line of one content block of a committed top-level assistant
// message (stream-json only), for a front end that interleaves them with the message's
// stream events (--include-partial-messages) as Claude Code does: a block's line comes
// before its content_block_stop. AssistantBlocks counts the lines the message has.
func (w *Writer) AssistantBlock(m llm.Message, i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.format != FormatStreamJSON {
		return
	}
	w.line(ConversationMessage{Type: "assistant", Message: assistantMessage(m).block(i), SessionID: w.sessionID, UUID: w.newID()})
}

// AssistantBlocks is the number of assistant lines m is written as.
func AssistantBlocks(m llm.Message) int { return max(1, len(assistantMessage(m).Content)) }

// block is the message with only its i-th content block (all of it when it has none).
func (m APIMessage) block(i int) APIMessage {
	if i < len(m.Content) {
		m.Content = m.Content[i : i+1]
	}
	return m
}

// CompactBoundary emits system/compact_boundary (stream-json only).
func (w *Writer) CompactBoundary(trigger string, preTokens int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.format != FormatStreamJSON {
		return
	}
	w.line(CompactBoundary{Type: "system", Subtype: "compact_boundary", SessionID: w.sessionID, UUID: w.newID(),
		CompactMetadata: CompactMetadata{Trigger: trigger, PreTokens: preTokens}})
}

// JobGroup emits system/background_job_group (stream-json only); event is created,
// updated or completed.
func (w *Writer) JobGroup(event string, g JobGroup) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.format != FormatStreamJSON {
		return
	}
	g.TaskIDs = nonNil(g.TaskIDs)
	if g.Results == nil {
		g.Results = []JobResult{}
	}
	w.line(JobGroupLine{Type: "system", Subtype: "background_job_group", Event: event, Group: g, SessionID: w.sessionID, UUID: w.newID()})
}

// Result emits the end of the run: the answer for text, the result object for
// json and stream-json. It returns the first error any write met.
func (w *Writer) Result(r Result) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.format == FormatText {
		if w.err == nil && r.Text != "" {
			_, w.err = io.WriteString(w.w, ensureNewline(r.Text))
		}
		return w.err
	}
	denials := r.PermissionDenials
	if denials == nil {
		denials = []PermissionDenial{}
	}
	w.line(ResultMessage{
		Type: "result", Subtype: r.Subtype, IsError: r.IsError, DurationMS: r.DurationMS, DurationAPIMS: r.DurationAPIMS,
		NumTurns: r.NumTurns, Result: r.Text, SessionID: w.sessionID, Usage: claudeUsage(r.Usage),
		PermissionDenials: denials, Errors: r.Errors, StructuredOutput: r.StructuredOutput, APIErrorStatus: jsonNull, UUID: w.newID(),
		StopReason: stringOrNil(r.StopReason), ModelUsage: modelUsage(r),
	})
	return w.err
}

// Line writes v as one stream-json line (control messages, stream events), whatever the
// format: only stream-json runs produce them.
func (w *Writer) Line(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.line(v)
	return w.err
}

// StreamEvent emits a stream_event line carrying one raw Anthropic streaming event
// (stream-json only).
func (w *Writer) StreamEvent(event any, parentToolUseID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.format != FormatStreamJSON {
		return
	}
	w.line(StreamEvent{Type: "stream_event", Event: event, ParentToolUseID: stringOrNil(parentToolUseID),
		SessionID: w.sessionID, UUID: w.newID()})
}

// ReplayUser echoes a user message read from stream-json input (--replay-user-messages).
func (w *Writer) ReplayUser(message json.RawMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.format != FormatStreamJSON {
		return
	}
	w.line(UserMessage{Type: "user", Message: message, SessionID: w.sessionID, UUID: w.newID(), IsReplay: true})
}

// SessionID is the id Init was given.
func (w *Writer) SessionID() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sessionID
}

func modelUsage(r Result) map[string]ModelUsage {
	out := map[string]ModelUsage{}
	if r.Model == "" {
		return out
	}
	u := claudeUsage(r.Usage)
	out[r.Model] = ModelUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadInputTokens: u.CacheReadInputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens,
		ContextWindow: r.ContextWindow}
	return out
}

func stringOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func assistantMessage(m llm.Message) APIMessage {
	out := APIMessage{ID: m.ID, Type: "message", Role: "assistant", Content: []ContentBlock{},
		StopReason: jsonNull, StopSequence: jsonNull, ContextManagement: jsonNull}
	if model, ok := m.Metadata["model"].(string); ok {
		out.Model = model
	}
	for _, p := range m.Content {
		switch p.Type {
		case llm.PartText:
			out.Content = append(out.Content, ContentBlock{Type: "text", Text: p.Text})
		case llm.PartThinking:
			out.Content = append(out.Content, ContentBlock{Type: "thinking", Thinking: p.Text, Signature: p.Signature})
		case llm.PartToolUse:
			if p.ToolCall == nil {
				continue
			}
			input := p.ToolCall.Input
			if len(input) == 0 {
				input = json.RawMessage(`{}`)
			}
			out.Content = append(out.Content, ContentBlock{Type: "tool_use", ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: input})
		}
	}
	if m.Usage != nil {
		u := claudeUsage(*m.Usage)
		out.Usage = &u
	}
	return out
}

var jsonNull = json.RawMessage("null")

// claudeUsage converts to Claude's convention, where input_tokens excludes
// the cached part that llm.Usage.InputTokens includes.
func claudeUsage(u llm.Usage) Usage {
	return Usage{
		InputTokens:              max(0, u.InputTokens-u.CacheReadInputTokens-u.CacheCreationInputTokens),
		OutputTokens:             u.OutputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens,
		CacheReadInputTokens:     u.CacheReadInputTokens,
	}
}

func ensureNewline(s string) string {
	if s[len(s)-1] != '\n' {
		return s + "\n"
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func nonNilServers(s []MCPServer) []MCPServer {
	if s == nil {
		return []MCPServer{}
	}
	return s
}

func nonNilPlugins(p []Plugin) []Plugin {
	if p == nil {
		return []Plugin{}
	}
	return p
}
