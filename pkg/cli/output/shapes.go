package output

import "encoding/json"

// InitMessage is {"type":"system","subtype":"init"}.
type InitMessage struct {
	Type           string      `json:"type"`
	Subtype        string      `json:"subtype"`
	SessionID      string      `json:"session_id"`
	UUID           string      `json:"uuid"`
	Cwd            string      `json:"cwd"`
	Model          string      `json:"model"`
	Tools          []string    `json:"tools"`
	PermissionMode string      `json:"permissionMode"`
	APIKeySource   string      `json:"apiKeySource"`
	MCPServers     []MCPServer `json:"mcp_servers"`
	SlashCommands  []string    `json:"slash_commands"`
	OutputStyle    string      `json:"output_style"`
	Agents         []string    `json:"agents"`
	Skills         []string    `json:"skills"`
	Plugins        []Plugin    `json:"plugins"`
	// Sandbox is robota's own key (Claude Code has none): whether Bash and worker
	// commands run in the command sandbox ("on", "off", "unavailable").
	Sandbox string `json:"sandbox,omitempty"`
}

// Plugin is one entry of system/init plugins: a plugin that loaded, its directory, and
// where it came from ("name@marketplace", "name@inline" for --plugin-dir).
type Plugin struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Source string `json:"source"`
}

// MCPServer is one entry of system/init mcp_servers: a server and "connected" or
// "failed".
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// ContentBlock is one block of an Anthropic-shaped message.
type ContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
}

// APIMessage is the "message" field of assistant and user lines.
type APIMessage struct {
	ID      string         `json:"id,omitempty"`
	Type    string         `json:"type,omitempty"`
	Role    string         `json:"role"`
	Model   string         `json:"model,omitempty"`
	Content []ContentBlock `json:"content"`
	// StopReason, StopSequence and ContextManagement are null on assistant lines, as
	// Claude Code writes them (a line is sent as its block completes, before the stop
	// reason is known); user lines have none.
	StopReason        json.RawMessage `json:"stop_reason,omitempty"`
	StopSequence      json.RawMessage `json:"stop_sequence,omitempty"`
	Usage             *Usage          `json:"usage,omitempty"`
	ContextManagement json.RawMessage `json:"context_management,omitempty"`
}

// ConversationMessage is {"type":"assistant"|"user", "message":{…}}.
type ConversationMessage struct {
	Type            string     `json:"type"`
	Message         APIMessage `json:"message"`
	ParentToolUseID *string    `json:"parent_tool_use_id"`
	SessionID       string     `json:"session_id"`
	UUID            string     `json:"uuid"`
}

// CompactBoundary is {"type":"system","subtype":"compact_boundary"}.
type CompactBoundary struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	SessionID       string          `json:"session_id"`
	UUID            string          `json:"uuid"`
	CompactMetadata CompactMetadata `json:"compact_metadata"`
}

// CompactMetadata says why and from what size the history was compacted.
type CompactMetadata struct {
	Trigger   string `json:"trigger"`
	PreTokens int    `json:"pre_tokens"`
}

// Usage is Claude Code's usage object.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// PermissionDenial is one tool call refused during the run.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Result subtypes.
const (
	SubtypeSuccess              = "success"
	SubtypeErrorMaxTurns        = "error_max_turns"
	SubtypeErrorDuringExecution = "error_during_execution"
)

// ResultMessage is the final {"type":"result"} object.
type ResultMessage struct {
	Type              string             `json:"type"`
	Subtype           string             `json:"subtype"`
	IsError           bool               `json:"is_error"`
	DurationMS        int64              `json:"duration_ms"`
	DurationAPIMS     int64              `json:"duration_api_ms"`
	NumTurns          int                `json:"num_turns"`
	Result            string             `json:"result"`
	SessionID         string             `json:"session_id"`
	TotalCostUSD      float64            `json:"total_cost_usd"`
	Usage             Usage              `json:"usage"`
	PermissionDenials []PermissionDenial `json:"permission_denials"`
	Errors            []string           `json:"errors,omitempty"`
	StructuredOutput  json.RawMessage    `json:"structured_output,omitempty"`
	// APIErrorStatus is the HTTP status of a failed provider call in Claude Code; robota
	// reports provider errors in errors, so it is always null.
	APIErrorStatus json.RawMessage `json:"api_error_status"`
	UUID           string          `json:"uuid"`
	// StopReason is the model's last stop reason (Anthropic's words), null when the run
	// did not end on its own.
	StopReason *string `json:"stop_reason"`
	// ModelUsage is the usage per model, as Claude Code reports it (costs are 0: robota
	// keeps no price table).
	ModelUsage map[string]ModelUsage `json:"modelUsage"`
}

// ModelUsage is one model's entry of the result's modelUsage.
type ModelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int     `json:"contextWindow"`
}

// StreamEvent is {"type":"stream_event"}: one raw Anthropic streaming event
// (--include-partial-messages).
type StreamEvent struct {
	Type            string  `json:"type"`
	Event           any     `json:"event"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

// UserMessage is a user line echoed with --replay-user-messages.
type UserMessage struct {
	Type            string          `json:"type"`
	Message         json.RawMessage `json:"message"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	SessionID       string          `json:"session_id"`
	UUID            string          `json:"uuid"`
	IsReplay        bool            `json:"isReplay"`
}

// JobGroupLine is system/background_job_group (stream-json only; robota's own line,
// Claude Code has no job groups): a background job group was created, gained a task's
// result (updated), or was completed by its wait policy. Consumers that do not know the
// subtype skip it, as they skip any system line they do not know.
type JobGroupLine struct {
	Type      string   `json:"type"`
	Subtype   string   `json:"subtype"`
	Event     string   `json:"event"`
	Group     JobGroup `json:"group"`
	SessionID string   `json:"session_id"`
	UUID      string   `json:"uuid"`
}

// JobGroup is a group's snapshot in stream-json.
type JobGroup struct {
	GroupID    string      `json:"group_id"`
	WaitPolicy string      `json:"wait_policy"`
	Status     string      `json:"status"`
	Label      string      `json:"label,omitempty"`
	TaskIDs    []string    `json:"task_ids"`
	Results    []JobResult `json:"results"`
}

// JobResult is one ended task of a group in stream-json.
type JobResult struct {
	TaskID    string `json:"task_id"`
	Label     string `json:"label"`
	Status    string `json:"status"`
	Summary   string `json:"summary,omitempty"`
	Error     string `json:"error,omitempty"`
	OutputRef string `json:"output_ref,omitempty"`
}
