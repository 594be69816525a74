package config

import "strings"

// Overrides are the command-line flags that take precedence over every settings file.
// The zero value overrides nothing.
type Overrides struct {
	// Provider (--provider) names a profile under providers, or else a provider type used
	// without a profile.
	Provider string
	// Model (--model) replaces the active provider's model.
	Model string
	// PermissionMode (--permission-mode) replaces permissions.defaultMode; a Robota trust
	// alias (safe, moderate, full) is accepted and mapped.
	PermissionMode string
	// Allow, Ask and Deny (--allowedTools, --disallowedTools) are permission rules added
	// to the merged lists, as the command-line layer; a deny from any layer still wins.
	Allow, Ask, Deny []string
	// AdditionalDirectories (--add-dir) are added to the merged directories; relative
	// paths are resolved against the project directory.
	AdditionalDirectories []string
	// Language replaces `language`.
	Language string
}

// trustMode maps the legacy trust levels to permission modes (spec TRUST_TO_MODE).
func trustMode(level string) (mode string, ok bool) {
	switch level {
	case "safe":
		return "plan", true
	case "moderate":
		return "default", true
	case "full":
		return "acceptEdits", true
	}
	return "", false
}

// PermissionMode is the effective default permission mode: permissions.defaultMode, else
// the mode of the legacy defaultTrustLevel, else "" (the evaluator's default).
func (s *Settings) PermissionMode() string {
	if s.Permissions.DefaultMode != "" {
		return s.Permissions.DefaultMode
	}
	mode, _ := trustMode(s.DefaultTrustLevel)
	return mode
}

// WithOverrides returns the settings with the flags applied as a command-line layer
// above every file, validated like a file (findings name "command line"). It always
// starts from the files: calling it again replaces earlier overrides. s is unchanged.
func (s *Settings) WithOverrides(o Overrides) (*Settings, error) {
	var files []parsedLayer
	var issues []Issue
	for _, l := range s.layers {
		if l.src.Layer != LayerCommandLine {
			files = append(files, parsedLayer{src: l.src, tree: deepCopy(l.tree).(map[string]any)})
		}
	}
	for _, i := range s.fileIssues {
		if i.File != commandLineDisplay {
			issues = append(issues, i)
		}
	}
	src := commandLineSource(s.loader.ProjectDir)

	tree := map[string]any{}
	perms := map[string]any{}
	addList := func(m map[string]any, key string, vals []string) {
		if len(vals) > 0 {
			list := make([]any, len(vals))
			for i, v := range vals {
				list[i] = v
			}
			m[key] = list
		}
	}
	addList(perms, "allow", o.Allow)
	addList(perms, "ask", o.Ask)
	addList(perms, "deny", o.Deny)
	addList(perms, "additionalDirectories", o.AdditionalDirectories)
	if mode := strings.TrimSpace(o.PermissionMode); mode != "" {
		if m, ok := trustMode(mode); ok {
			mode = m
		}
		perms["defaultMode"] = mode
	}
	if len(perms) > 0 {
		tree["permissions"] = perms
	}
	if o.Language != "" {
		tree["language"] = o.Language
	}
	issues = append(issues, validate(settingsSchema.Get(), tree, "", src)...)
	if hasErrors(issues) {
		return nil, &ValidationError{Issues: issues}
	}
	files = append(files, parsedLayer{src: src, tree: tree})
	return assemble(files, issues, s.loader,
		providerOverride{name: strings.TrimSpace(o.Provider), model: strings.TrimSpace(o.Model), src: src})
}
