package permission

import (
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Mode is a permission mode, named exactly as Claude Code names it.
type Mode string

// The permission modes.
const (
	ModeDefault           Mode = "default"
	ModeAcceptEdits       Mode = "acceptEdits"
	ModePlan              Mode = "plan"
	ModeBypassPermissions Mode = "bypassPermissions"
	// ModeDontAsk never prompts: whatever would be asked is denied.
	ModeDontAsk Mode = "dontAsk"
)

// TrustToMode maps the Robota trust aliases to modes (spec TRUST_TO_MODE).
func TrustToMode() map[string]Mode { return trustToModeTable.Get() }

// trustToModeTable is built on first use (internal/lazy).
var trustToModeTable = &lazy.Value[map[string]Mode]{Build: func() map[string]Mode {
	return map[string]Mode{
		"safe":     ModePlan,
		"moderate": ModeDefault,
		"full":     ModeAcceptEdits,
	}
}}

// ParseMode accepts a mode name or a trust alias. The empty string is ModeDefault.
func ParseMode(s string) (Mode, error) {
	s = strings.TrimSpace(s)
	switch m := Mode(s); m {
	case "":
		return ModeDefault, nil
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeBypassPermissions, ModeDontAsk:
		return m, nil
	}
	if m, ok := TrustToMode()[s]; ok {
		return m, nil
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownMode, s)
}

// Behavior is the outcome of an evaluation.
type Behavior string

// The three outcomes. Their order of strength is deny > ask > allow.
const (
	Allow Behavior = "allow"
	Ask   Behavior = "ask"
	Deny  Behavior = "deny"
)

func (b Behavior) rank() int {
	switch b {
	case Deny:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// Class groups tools by what they can do; the mode matrix is defined per class.
type Class string

// Tool classes. ClassNetwork exists because Claude Code prompts for WebFetch and
// WebSearch while the Robota spec auto-allows them as reads.
const (
	ClassRead    Class = "read"
	ClassModify  Class = "modify"
	ClassExecute Class = "execute"
	ClassNetwork Class = "network"
	ClassUnknown Class = "unknown"
)

// ClassOf returns the class of a tool name. The built-in tools are listed by Claude
// Code name; anything else (MCP tools, plugin tools) falls back to ClassUnknown.
func ClassOf(tool string) Class {
	switch tool {
	case "Read", "Glob", "Grep", "LS", "NotebookRead", "TodoWrite",
		"BashOutput", "TaskOutput", // TaskOutput is BashOutput's current name
		"Agent", "Task",
		// Skill returns a skill's instructions: what they lead to is decided call by call.
		"Skill":
		return ClassRead
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return ClassModify
	case "Bash", "KillShell",
		"TaskStop": // KillShell's current name
		return ClassExecute
	case "WebFetch", "WebSearch":
		return ClassNetwork
	}
	return ClassUnknown
}

// modePolicy is the MODE_POLICY matrix (plus UNKNOWN_TOOL_FALLBACK as ClassUnknown),
// adjusted to Claude Code. Reads outside the working directories and edits outside
// them in acceptEdits are narrowed later, in the path evaluation.
var modePolicy = &lazy.Value[map[Mode]map[Class]Behavior]{Build: func() map[Mode]map[Class]Behavior {
	return map[Mode]map[Class]Behavior{
		ModePlan: {
			ClassRead: Allow, ClassModify: Deny, ClassExecute: Deny, ClassNetwork: Ask, ClassUnknown: Deny,
		},
		ModeDefault: {
			ClassRead: Allow, ClassModify: Ask, ClassExecute: Ask, ClassNetwork: Ask, ClassUnknown: Ask,
		},
		ModeAcceptEdits: {
			ClassRead: Allow, ClassModify: Allow, ClassExecute: Ask, ClassNetwork: Ask, ClassUnknown: Ask,
		},
		ModeBypassPermissions: {
			ClassRead: Allow, ClassModify: Allow, ClassExecute: Allow, ClassNetwork: Allow, ClassUnknown: Allow,
		},
		ModeDontAsk: {
			ClassRead: Allow, ClassModify: Deny, ClassExecute: Deny, ClassNetwork: Deny, ClassUnknown: Deny,
		},
	}
}}

// ModePolicy returns the mode's decision for a tool class, before any rule applies.
func ModePolicy(m Mode, c Class) Behavior {
	if row, ok := modePolicy.Get()[m]; ok {
		if b, ok := row[c]; ok {
			return b
		}
	}
	return Ask
}
