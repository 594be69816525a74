package config

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// kind is the JSON shape a schema node accepts.
type kind uint8

const (
	kindAny    kind = iota // any JSON value: provider-owned or passed-through data
	kindString             // a JSON string
	kindNumber             // a JSON number
	kindBool               // a JSON boolean
	kindObject             // an object with known fields; other keys are warnings
	kindMap                // an object with free keys, every value of elem's shape
	kindArray              // an array, every element of elem's shape
)

var kindNames = [...]string{
	kindString: "string", kindNumber: "number", kindBool: "boolean",
	kindObject: "object", kindMap: "object", kindArray: "array",
}

// node is one schema node. check runs after the shape matched and returns the reason a
// value is not allowed, or "".
type node struct {
	kind   kind
	fields map[string]*node
	elem   *node
	enum   []string
	check  func(v any) string
}

func str() *node                      { return &node{kind: kindString} }
func boolean() *node                  { return &node{kind: kindBool} }
func anyJSON() *node                  { return &node{kind: kindAny} }
func arrayOf(elem *node) *node        { return &node{kind: kindArray, elem: elem} }
func mapOf(elem *node) *node          { return &node{kind: kindMap, elem: elem} }
func enum(vals ...string) *node       { return &node{kind: kindString, enum: vals} }
func object(f map[string]*node) *node { return &node{kind: kindObject, fields: f} }

func positiveNumber(unit string) *node {
	return &node{kind: kindNumber, check: func(v any) string {
		f, err := v.(json.Number).Float64()
		if err != nil || f <= 0 {
			return fmt.Sprintf("want a positive number of %s, got %s", unit, v)
		}
		return ""
	}}
}

func positiveInteger() *node {
	return &node{kind: kindNumber, check: func(v any) string {
		n, err := v.(json.Number).Int64()
		if err != nil || n <= 0 {
			return fmt.Sprintf("want a positive integer, got %s", v)
		}
		return ""
	}}
}

// PermissionModes are the values permissions.defaultMode accepts (Claude Code's names).
var PermissionModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

// TrustLevels are Robota's legacy defaultTrustLevel values.
var TrustLevels = []string{"safe", "moderate", "full"}

// HookEvents are the hook event names the engine fires (hook.Events), then Claude Code's
// events it does not fire (hook.ClaudeCodeOnlyEvents): the assembly warns that hooks of
// those never run. Another name is an unknown key here and a configuration error when
// the session is assembled.
var HookEvents = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit",
	"Stop", "StopFailure", "SubagentStart", "SubagentStop", "SessionStart", "SessionEnd",
	"PreCompact", "PostCompact", "Notification", "WorktreeCreate", "WorktreeRemove",

	"PostToolBatch", "UserPromptExpansion", "PermissionDenied", "Setup", "TeammateIdle",
	"TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange",
	"InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay",
}

// HookTypes are the hook executor types.
var HookTypes = []string{"command", "http", "prompt", "agent"}

// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var envRefPattern = lazy.NewRegexp(`^\$ENV:[A-Za-z_][A-Za-z0-9_]*$`)

// providerString is a string that may be a `$ENV:NAME` reference.
func providerString() *node {
	return &node{kind: kindString, check: func(v any) string {
		s := v.(string)
		if strings.HasPrefix(s, envPrefix) && !envRefPattern.MatchString(s) {
			return fmt.Sprintf("malformed environment reference %q (want $ENV:NAME)", s)
		}
		return ""
	}}
}

// ruleString is a permission rule; its syntax is the permission package's business, but
// an empty rule is always a mistake.
func ruleString() *node {
	return &node{kind: kindString, check: func(v any) string {
		if strings.TrimSpace(v.(string)) == "" {
			return "empty permission rule"
		}
		return ""
	}}
}

func profileSchema(legacy bool) *node {
	f := map[string]*node{
		"type":    providerString(),
		"model":   providerString(),
		"apiKey":  providerString(),
		"baseURL": providerString(),
		"timeout": positiveNumber("milliseconds"),
		"options": mapOf(anyJSON()),
	}
	if legacy {
		f["name"] = providerString()
	}
	return object(f)
}

// hookGroupSchema is one `{"matcher": ..., "hooks": [...]}` entry.
var hookGroupSchema = &lazy.Value[*node]{Build: newHookGroupSchema}

func newHookGroupSchema() *node {
	def := object(map[string]*node{
		"type":            enum(HookTypes...),
		"command":         str(),
		"url":             str(),
		"method":          str(),
		"headers":         mapOf(str()),
		"allowedEnvVars":  arrayOf(str()),
		"prompt":          str(),
		"model":           str(),
		"agent":           str(),
		"maxTurns":        positiveNumber("turns"),
		"timeout":         positiveNumber("seconds"),
		"continueOnBlock": boolean(),
		"if":              ruleString(),
		"statusMessage":   str(),
		"once":            boolean(),
		"async":           boolean(),
	})
	def.check = func(v any) string {
		m := v.(map[string]any)
		t, _ := m["type"].(string)
		if t == "" {
			return `missing "type"`
		}
		need := map[string]string{"command": "command", "http": "url", "prompt": "prompt", "agent": "prompt"}[t]
		if s, _ := m[need].(string); strings.TrimSpace(s) == "" {
			return fmt.Sprintf("hook of type %q needs a non-empty %q", t, need)
		}
		return ""
	}
	group := object(map[string]*node{"matcher": str(), "hooks": arrayOf(def)})
	group.check = func(v any) string {
		if _, ok := v.(map[string]any)["hooks"]; !ok {
			return `missing "hooks"`
		}
		return ""
	}
	return group
}

func hookSchema() *node {
	events := map[string]*node{}
	for _, e := range HookEvents {
		events[e] = arrayOf(hookGroupSchema.Get())
	}
	return object(events)
}

// settingsSchema is the shape of one settings file.
var settingsSchema = &lazy.Value[*node]{Build: newSettingsSchema}

func newSettingsSchema() *node {
	return object(map[string]*node{
		"$schema":         str(),
		"currentProvider": str(),
		"providers":       mapOf(profileSchema(false)),
		"provider":        profileSchema(true),
		"permissions": object(map[string]*node{
			"allow":                        arrayOf(ruleString()),
			"ask":                          arrayOf(ruleString()),
			"deny":                         arrayOf(ruleString()),
			"defaultMode":                  enum(PermissionModes...),
			"additionalDirectories":        arrayOf(str()),
			"disableBypassPermissionsMode": enum("disable"),
		}),
		"additionalDirectories": arrayOf(str()),
		"language":              str(),
		"model":                 str(),
		"defaultTrustLevel":     enum(TrustLevels...),
		"hooks":                 hookSchema(),
		"disableAllHooks":       boolean(),
		"env":                   mapOf(str()),
		"enabledPlugins":        mapOf(boolean()),
		// Where the session's background commands and subagents may run when the engine
		// dispatches over NATS: labels a host agent must offer (os, arch, gpu, repo, ...).
		"workers": object(map[string]*node{
			"labels": mapOf(str()),
		}),
		// What backs the WebSearch tool: the provider's hosted search or a search API
		// (websearch.go).
		"webSearch": webSearchSchema(),
		// How much the session log writes (sessionlog.Level): "compact" (the default) what
		// the session journal does not hold, "full" every event with the raw provider
		// payloads as well.
		"sessionLog": object(map[string]*node{
			"level": enum(SessionLogLevels...),
		}),
		// Claude Code's sandbox settings (the command sandbox, pkg/sandbox): enabled false
		// turns it off, excludedCommands run outside it; network.allowedDomains confines
		// commands' network to an allow-list (sandboxnet.go).
		"sandbox": object(map[string]*node{
			"enabled":                   boolean(),
			"excludedCommands":          arrayOf(str()),
			"failIfUnavailable":         boolean(),
			"autoAllowBashIfSandboxed":  anyJSON(),
			"allowUnsandboxedCommands":  anyJSON(),
			"enableWeakerNestedSandbox": anyJSON(),
			"ignoreViolations":          anyJSON(),
			"network":                   sandboxNetworkSchema(),
		}),
		// Claude Code keys this engine accepts and passes through without interpreting, so a
		// user's existing .claude/settings.json loads without warnings.
		"extraKnownMarketplaces":     anyJSON(),
		"apiKeyHelper":               anyJSON(),
		"awsAuthRefresh":             anyJSON(),
		"awsCredentialExport":        anyJSON(),
		"cleanupPeriodDays":          anyJSON(),
		"companyAnnouncements":       anyJSON(),
		"enableAllProjectMcpServers": anyJSON(),
		"enabledMcpjsonServers":      anyJSON(),
		"disabledMcpjsonServers":     anyJSON(),
		"forceLoginMethod":           anyJSON(),
		"forceLoginOrgUUID":          anyJSON(),
		"includeCoAuthoredBy":        anyJSON(),
		"otelHeadersHelper":          anyJSON(),
		"outputStyle":                anyJSON(),
		"statusLine":                 anyJSON(),
		"alwaysThinkingEnabled":      anyJSON(),
		"spinnerTipsEnabled":         anyJSON(),
	})
}

// validate checks a tree against a schema node and returns every finding.
func validate(n *node, v any, path string, src Source) []Issue {
	var out []Issue
	errorf := func(sentinel error, format string, args ...any) {
		out = append(out, Issue{Severity: SeverityError, File: src.Display, Path: path,
			Message: fmt.Sprintf(format, args...), Err: sentinel})
	}
	if n.kind == kindAny {
		return nil
	}
	if got := jsonType(v); got != kindNames[n.kind] {
		errorf(ErrType, "want %s, got %s", kindNames[n.kind], got)
		return out
	}
	switch n.kind {
	case kindString:
		if len(n.enum) > 0 && !contains(n.enum, v.(string)) {
			errorf(ErrValue, "want one of %s, got %q", strings.Join(n.enum, ", "), v)
		}
	case kindObject:
		m := v.(map[string]any)
		for _, k := range sortedKeys(m) {
			child, ok := n.fields[k]
			if !ok {
				out = append(out, Issue{Severity: SeverityWarning, File: src.Display,
					Path: joinPath(path, k), Message: "unknown key"})
				continue
			}
			out = append(out, validate(child, m[k], joinPath(path, k), src)...)
		}
	case kindMap:
		m := v.(map[string]any)
		for _, k := range sortedKeys(m) {
			out = append(out, validate(n.elem, m[k], joinPath(path, k), src)...)
		}
	case kindArray:
		for i, e := range v.([]any) {
			out = append(out, validate(n.elem, e, fmt.Sprintf("%s[%d]", path, i), src)...)
		}
	}
	if n.check != nil && !hasErrors(out) {
		if msg := n.check(v); msg != "" {
			errorf(ErrValue, "%s", msg)
		}
	}
	return out
}

// prune returns a copy of a validated value holding only the keys the schema knows.
// encoding/json matches struct fields case-insensitively, so an unknown key such as
// "Type" (a warning) must not reach a decoder that would read it as "type".
func prune(n *node, v any) any {
	switch n.kind {
	case kindObject:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for k, c := range m {
			if child, ok := n.fields[k]; ok {
				out[k] = prune(child, c)
			}
		}
		return out
	case kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for k, c := range m {
			out[k] = prune(n.elem, c)
		}
		return out
	case kindArray:
		a, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(a))
		for i, c := range a {
			out[i] = prune(n.elem, c)
		}
		return out
	}
	return deepCopy(v)
}

// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var plainKey = lazy.NewRegexp(`^[A-Za-z0-9_$-]+$`)

// joinPath appends a key to a dotted path, quoting keys that are not plain words.
func joinPath(path, key string) string {
	if !plainKey.MatchString(key) {
		return fmt.Sprintf("%s[%q]", path, key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
