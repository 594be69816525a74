package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultTimeout applies to a hook without a timeout of its own; prompt hooks default
// to DefaultPromptTimeout (Claude Code's defaults).
const (
	DefaultTimeout       = 60 * time.Second
	DefaultPromptTimeout = 30 * time.Second
)

// Types are the hook types a configuration may name. Claude Code's mcp_tool type is not
// one of them: a hook this engine cannot run is refused, never dropped.
var Types = []string{"command", "http", "prompt", "agent"}

// Config is the Claude Code hooks shape: event → groups of hooks with a matcher.
type Config map[Event][]Group

// Group is one matcher and the hooks it selects.
type Group struct {
	Matcher string       `json:"matcher,omitempty"`
	Hooks   []Definition `json:"hooks"`
}

// Definition is one hook. Type selects the executor; the other fields belong to the
// executors (command: Command; http: URL, Headers, AllowedEnvVars; the SDK's prompt
// and agent executors read Prompt, Agent, Model or anything else from Raw).
type Definition struct {
	Type    string `json:"type"`
	Command string `json:"command,omitempty"`
	// Timeout is in seconds, as in Claude Code; zero means DefaultTimeout.
	Timeout float64 `json:"timeout,omitempty"`
	URL     string  `json:"url,omitempty"`
	// Method is an http hook's request method (the Robota spec's `method`; Claude Code
	// always POSTs): POST (the default), PUT or PATCH, the methods whose body carries
	// the hook's input.
	Method         string            `json:"method,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowedEnvVars,omitempty"`
	Prompt         string            `json:"prompt,omitempty"`
	Agent          string            `json:"agent,omitempty"`
	Model          string            `json:"model,omitempty"`
	// ContinueOnBlock (prompt hooks): a "not ok" verdict blocks without ending the turn.
	ContinueOnBlock bool `json:"continueOnBlock,omitempty"`
	// MaxTurns bounds an agent hook's rounds (0: DefaultAgentMaxTurns).
	MaxTurns int `json:"maxTurns,omitempty"`
	// If is Claude Code's `if`: a permission rule (`Bash(rm *)`) the tool call must
	// match for the hook to run. The runner asks WithFilter; without one it is ignored.
	If string `json:"if,omitempty"`
	// Async hooks run in the background; their outcome is logged, never applied.
	Async bool `json:"async,omitempty"`
	// Once (Claude Code's `once`): the hook runs the first time it matches in a session
	// (a Runner's life) and is removed after that run.
	Once          bool   `json:"once,omitempty"`
	StatusMessage string `json:"statusMessage,omitempty"`
	// Raw is the definition as written, for executors that need more fields.
	Raw json.RawMessage `json:"-"`
	// Env is added to a command hook's environment (a plugin's CLAUDE_PLUGIN_ROOT). The
	// composition root sets it; it is never read from a settings file.
	Env []string `json:"-"`
}

// UnmarshalJSON keeps the raw definition alongside the known fields.
func (d *Definition) UnmarshalJSON(b []byte) error {
	type plain Definition
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = Definition(p)
	d.Raw = append(json.RawMessage(nil), b...)
	return nil
}

func (d Definition) timeout() time.Duration {
	// Above a day is treated as a typo, not a wish to hang the session.
	if d.Timeout <= 0 || d.Timeout > 86400 {
		if d.Type == "prompt" {
			return DefaultPromptTimeout
		}
		return DefaultTimeout
	}
	return time.Duration(d.Timeout * float64(time.Second))
}

// identity is what makes two hooks the same hook: Claude Code runs identical
// hooks once even when several groups select them.
func (d Definition) identity() string {
	return d.Type + "\x00" + d.Command + "\x00" + d.URL + "\x00" + d.Prompt + "\x00" + d.Agent + "\x00" + string(d.Raw) + "\x00" + strings.Join(d.Env, "\x00")
}

// ParseSettings reads the "hooks" object of a settings file (absent: empty config).
func ParseSettings(data []byte) (Config, error) {
	var s struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if len(bytes.TrimSpace(s.Hooks)) == 0 || string(bytes.TrimSpace(s.Hooks)) == "null" {
		return Config{}, nil
	}
	return ParseConfig(s.Hooks)
}

// ParseConfig reads a hooks object. Problems with one event, group or hook are
// reported in the joined error and that part is dropped; the rest is returned. A group
// whose matcher is not a valid regular expression is kept but matches nothing.
func ParseConfig(data []byte) (Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	cfg := Config{}
	var errs []error
	for _, name := range sortedKeys(raw) {
		ev, err := ParseEvent(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrInvalidConfig, err))
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(raw[name], &groups); err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrInvalidConfig, ev, err))
			continue
		}
		for i, rg := range groups {
			var g Group
			if err := json.Unmarshal(rg, &g); err != nil {
				errs = append(errs, fmt.Errorf("%w: %s group %d: %w", ErrInvalidConfig, ev, i, err))
				continue
			}
			if m := compileMatcher(g.Matcher); m.err != nil {
				errs = append(errs, fmt.Errorf("%w: %s group %d: %w", ErrInvalidConfig, ev, i, m.err))
			}
			var hooks []Definition
			for j, h := range g.Hooks {
				if err := validate(h); err != nil {
					errs = append(errs, fmt.Errorf("%w: %s group %d hook %d: %w", ErrInvalidConfig, ev, i, j, err))
					continue
				}
				hooks = append(hooks, h)
			}
			g.Hooks = hooks
			cfg[ev] = append(cfg[ev], g)
		}
	}
	return cfg, errors.Join(errs...)
}

func sortedKeys(m map[string]json.RawMessage) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func validate(h Definition) error {
	switch h.Type {
	case "":
		return errors.New("missing type")
	case "command":
		if h.Command == "" {
			return errors.New("command hook without a command")
		}
	case "http":
		if h.URL == "" {
			return errors.New("http hook without a url")
		}
		if _, err := HTTPMethod(h); err != nil {
			return err
		}
	case "prompt", "agent":
		if strings.TrimSpace(h.Prompt) == "" {
			return fmt.Errorf("%s hook without a prompt", h.Type)
		}
	default:
		return fmt.Errorf("hook type %q cannot run here (types: %s)", h.Type, strings.Join(Types, ", "))
	}
	if h.Timeout < 0 {
		return errors.New("negative timeout")
	}
	return nil
}

// Merge concatenates configurations (settings layers, plugins): every hook of every
// layer runs.
func Merge(cs ...Config) Config {
	out := Config{}
	for _, c := range cs {
		for ev, gs := range c {
			out[ev] = append(out[ev], gs...)
		}
	}
	return out
}

// HTTPMethods are the methods an http hook may use: those whose body carries the input.
var HTTPMethods = []string{"POST", "PUT", "PATCH"}

// HTTPMethod returns an http hook's request method: its `method` in upper case, POST
// when it has none, an error for a method whose request carries no input.
func HTTPMethod(h Definition) (string, error) {
	m := strings.ToUpper(strings.TrimSpace(h.Method))
	if m == "" {
		return "POST", nil
	}
	if !slices.Contains(HTTPMethods, m) {
		return "", fmt.Errorf("http hook method %q: use one of %s (the request body carries the hook input)", h.Method, strings.Join(HTTPMethods, ", "))
	}
	return m, nil
}
