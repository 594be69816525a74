package config

import (
	"encoding/json"
	"strings"
	"time"
)

// DefaultProviderTimeout is the provider idle timeout when no profile sets one (spec:
// "SDK assembly uses a 120-second provider idle timeout").
const DefaultProviderTimeout = 120 * time.Second

// Settings is the merged, validated result of every layer.
type Settings struct {
	// Loaded lists the layers whose file existed, lowest first.
	Loaded []Source
	// Warnings are the non-fatal findings of every layer (unknown keys, unset
	// environment variables of the active profile).
	Warnings []Issue

	CurrentProvider string
	Providers       map[string]ProviderProfile
	// LegacyProvider is the spec's legacy `provider` object; nil when absent.
	LegacyProvider *ProviderProfile

	Permissions Permissions
	// Language is the response language (`language`), rendered as neutral metadata.
	Language string
	// Model is Claude Code's top-level `model` key. Provider resolution does not apply it
	// (a Claude Code model alias need not exist at the active provider); callers may.
	Model string
	// DefaultTrustLevel is Robota's legacy `defaultTrustLevel` (safe, moderate, full).
	DefaultTrustLevel string
	Hooks             Hooks
	// DisableAllHooks is Claude Code's `disableAllHooks`.
	DisableAllHooks bool
	// Env is the `env` map (variables for tool and hook processes).
	Env map[string]string
	// WorkerLabels is `workers.labels`: what a host agent must offer to run the
	// session's background commands and subagents when the engine dispatches them over
	// NATS (runnerapi.Job.Labels). Layers merge key by key; local workers ignore it.
	WorkerLabels map[string]string
	// WebSearch is `webSearch`: what backs the WebSearch tool (websearch.go).
	WebSearch WebSearch
	// SessionLogLevel is `sessionLog.level`, one of SessionLogLevels, or "" when no file
	// sets it (the session log's default level, "compact").
	SessionLogLevel string
	// Extra holds the other known top-level keys (Claude Code keys this engine passes
	// through without interpreting) as their merged JSON.
	Extra map[string]json.RawMessage

	provider   providerOverride
	origins    map[string]Source
	unsetEnv   map[string]string // key path -> unset variable name
	guarded    map[string]Source // profile key path -> project file that set its baseURL
	withheld   []withheldValue   // values of guarded profiles the credential rule blanked
	layers     []parsedLayer
	fileIssues []Issue // validation findings of the layers, warnings only
	loader     Loader  // home, project directory and environment the layers were built with
}

// SessionLogLevels are the values `sessionLog.level` accepts (sessionlog.Level's).
var SessionLogLevels = []string{"compact", "full"}

// ProviderProfile is one entry of `providers` (or the legacy `provider`). APIKey,
// BaseURL, Type and Model have `$ENV:NAME` references already substituted.
type ProviderProfile struct {
	Type    string
	Model   string
	APIKey  string
	BaseURL string
	// Timeout is zero when the profile sets none.
	Timeout time.Duration
	// Options is provider-owned data, passed through unread.
	Options map[string]any
	// Source is the highest layer that contributed to the profile.
	Source Source
	// NoEnvCredentials is set when a project or local settings file (BaseURLSource, at key
	// BaseURLKey) chose BaseURL: no credential from the environment may be sent there —
	// neither the provider's default key variable nor a `$ENV:` reference (those of the
	// profile are left unsubstituted) — and APIKey holds only a key written literally in
	// that same file.
	NoEnvCredentials bool
	BaseURLSource    Source
	BaseURLKey       string
}

// Permissions is the merged `permissions` object. The rule lists are unions across
// layers: lowest layer first, file order within a layer, a rule dropped when the same
// text with the same anchor root is already listed.
type Permissions struct {
	DefaultMode       string
	DefaultModeSource Source
	Allow             []Rule
	Ask               []Rule
	Deny              []Rule
	// AdditionalDirectories merges `permissions.additionalDirectories` and the top-level
	// `additionalDirectories`, resolved to absolute paths and de-duplicated.
	AdditionalDirectories []Directory
	// DisableBypassPermissions is set by `"disableBypassPermissionsMode": "disable"`.
	DisableBypassPermissions bool
}

// Behavior names the list a rule is in.
type Behavior string

// The three rule lists.
const (
	Allow Behavior = "allow"
	Ask   Behavior = "ask"
	Deny  Behavior = "deny"
)

// Rule is one permission rule as written (`Bash(git log *)`) with where it came from;
// Source.Root anchors its settings-relative `/path` specifiers.
type Rule struct {
	Behavior Behavior
	Text     string
	Source   Source
}

// Directory is one additional working directory.
type Directory struct {
	// Path is the absolute, cleaned directory.
	Path string
	// Raw is the text as written in the settings file or flag.
	Raw    string
	Source Source
}

// EvaluationOrder returns every rule in the order an evaluator must consult them:
// deny, then ask, then allow (DESIGN.md §Decisions 1). Whatever layer an allow came
// from, a deny for the same call is met first.
func (p Permissions) EvaluationOrder() []Rule {
	out := make([]Rule, 0, len(p.Deny)+len(p.Ask)+len(p.Allow))
	out = append(out, p.Deny...)
	out = append(out, p.Ask...)
	return append(out, p.Allow...)
}

// Texts returns the rule texts of one list, in order, without duplicates.
func Texts(rules []Rule) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rules {
		if !seen[r.Text] {
			seen[r.Text] = true
			out = append(out, r.Text)
		}
	}
	return out
}

// LayerRules is the rules one layer contributed, in the shape a rule evaluator takes per
// layer (Claude Code's `allow`/`ask`/`deny` lists with their source).
type LayerRules struct {
	Source           Source
	Allow, Ask, Deny []string
}

// ByLayer groups the merged rules by the layer they came from, lowest layer first.
func (p Permissions) ByLayer() []LayerRules {
	var out []LayerRules
	index := map[int]int{}
	for _, r := range p.EvaluationOrder() {
		i, ok := index[r.Source.Layer]
		if !ok {
			i = len(out)
			index[r.Source.Layer] = i
			out = append(out, LayerRules{Source: r.Source})
		}
		switch r.Behavior {
		case Allow:
			out[i].Allow = append(out[i].Allow, r.Text)
		case Ask:
			out[i].Ask = append(out[i].Ask, r.Text)
		case Deny:
			out[i].Deny = append(out[i].Deny, r.Text)
		}
	}
	// Layer order, not first-seen order.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Source.Layer < out[j-1].Source.Layer; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Hooks is the merged `hooks` object: event name to matcher groups, in Claude Code's
// shape. Groups of every layer are kept (lowest layer first); an identical group in two
// layers is kept once.
type Hooks map[string][]HookGroup

// HookGroup is one `{"matcher": ..., "hooks": [...]}` entry.
type HookGroup struct {
	Matcher string     `json:"matcher,omitempty"`
	Hooks   []HookSpec `json:"hooks"`
	// Source is the layer the group came from; hooks of project layers run with that
	// layer's Root as the project directory.
	Source Source `json:"-"`
}

// HookSpec is one hook definition. Timeout is in seconds (zero: the runner's default).
type HookSpec struct {
	Type           string            `json:"type"`
	Command        string            `json:"command,omitempty"`
	URL            string            `json:"url,omitempty"`
	Method         string            `json:"method,omitempty"` // http: POST (default), PUT or PATCH
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowedEnvVars,omitempty"`
	Prompt         string            `json:"prompt,omitempty"`
	Model          string            `json:"model,omitempty"`
	Agent          string            `json:"agent,omitempty"`
	MaxTurns       int               `json:"maxTurns,omitempty"`
	Timeout        float64           `json:"timeout,omitempty"`
	// If is a permission rule the tool call must match for the hook to run.
	If string `json:"if,omitempty"`
	// ContinueOnBlock: a prompt hook's "not ok" blocks without ending the turn.
	ContinueOnBlock bool   `json:"continueOnBlock,omitempty"`
	StatusMessage   string `json:"statusMessage,omitempty"`
	Once            bool   `json:"once,omitempty"`
	Async           bool   `json:"async,omitempty"`
}

// JSON renders the hooks as Claude Code's settings `hooks` value:
// {"Event":[{"matcher":"...","hooks":[{"type":"command","command":"...","timeout":5}]}]}.
func (h Hooks) JSON() json.RawMessage {
	if len(h) == 0 {
		return json.RawMessage(`{}`)
	}
	b, err := json.Marshal(map[string][]HookGroup(h))
	if err != nil { // only plain strings, numbers and bools: cannot fail
		return json.RawMessage(`{}`)
	}
	return b
}

// Origin returns the layer that supplied the value at a key path (`language`,
// `providers.work.apiKey`, `permissions.defaultMode`); for a path with no own record it
// answers for the nearest enclosing object.
func (s *Settings) Origin(path string) (Source, bool) {
	for p := path; p != ""; p = parentPath(p) {
		if src, ok := s.origins[p]; ok {
			return src, true
		}
	}
	return Source{}, false
}

// parentPath drops the last segment of a key path: `a.b[0]` -> `a.b` -> `a` -> "".
func parentPath(p string) string {
	if strings.HasSuffix(p, `"]`) {
		if i := strings.LastIndex(p, `["`); i >= 0 {
			return p[:i]
		}
	}
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return ""
	}
	return p[:i]
}
