package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Loader reads the six settings files of a home and a project directory. Every input is
// a field so tests never touch the real home directory or environment.
type Loader struct {
	// Home is the user's home directory; empty skips the two user layers.
	Home string
	// ProjectDir is the project directory (the session's cwd).
	ProjectDir string
	// Env resolves `$ENV:NAME` references; nil resolves none (every reference unset).
	Env Env
	// ReadFile reads a file; nil means os.ReadFile.
	ReadFile func(path string) ([]byte, error)
	// Sources, when not nil, limits the files read to these scopes (SourceNames: user,
	// project, local; --setting-sources). Empty reads no file.
	Sources []string
	// Extra is a layer above the files (--settings); its Source is filled in by Load
	// (Layer LayerFlagSettings, Name ScopeFlag, Root the project directory) but for Display.
	Extra *LayerData
}

// NewLoader returns a Loader for projectDir with the real home directory and
// environment.
func NewLoader(projectDir string) Loader {
	home, _ := os.UserHomeDir()
	return Loader{Home: home, ProjectDir: projectDir, Env: OSEnv}
}

// LayerData is one settings file's bytes and where they came from.
type LayerData struct {
	Source Source
	Data   []byte
}

// Load reads the layers that exist and builds the settings. A missing file is skipped;
// an unreadable one is an error. See Build for the error contract.
func (l Loader) Load() (*Settings, error) {
	read := l.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	projectDir, err := filepath.Abs(l.ProjectDir)
	if err != nil {
		return nil, fmt.Errorf("settings: project directory %q: %w", l.ProjectDir, err)
	}
	var files []LayerData
	var issues []Issue
	seen := map[string]bool{}
	for _, src := range Layers(l.Home, projectDir) {
		if !l.reads(src) {
			continue
		}
		// Run from the home directory, ~/.claude/settings.json is also the project's
		// .claude/settings.json: read it once, as the user layer.
		if seen[filepath.Clean(src.Path)] {
			continue
		}
		seen[filepath.Clean(src.Path)] = true
		data, err := read(src.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			issues = append(issues, Issue{Severity: SeverityError, File: src.Display,
				Message: fmt.Sprintf("%v: %v", ErrRead, err), Err: ErrRead})
			continue
		}
		files = append(files, LayerData{Source: src, Data: data})
	}
	if len(issues) > 0 {
		return nil, &ValidationError{Issues: issues}
	}
	if l.Extra != nil {
		x := *l.Extra
		x.Source.Layer, x.Source.Name, x.Source.Root = LayerFlagSettings, ScopeFlag, projectDir
		files = append(files, x)
	}
	l.ProjectDir = projectDir
	return l.Build(files)
}

// reads reports whether src is among l.Sources (every file when Sources is nil).
func (l Loader) reads(src Source) bool {
	if l.Sources == nil {
		return true
	}
	for _, name := range l.Sources {
		if SourceNames()[name] == src.Name {
			return true
		}
	}
	return false
}

// Build validates, merges and resolves already-read layers (lowest priority first; see
// Layers for their Sources). When any layer has an error it returns nil and a
// *ValidationError holding every finding of every layer; otherwise the warnings are in
// Settings.Warnings. ReadFile is not used.
func (l Loader) Build(files []LayerData) (*Settings, error) {
	var layers []parsedLayer
	var issues []Issue
	for _, f := range files {
		tree, bad := decodeFile(f.Data, f.Source)
		if bad != nil {
			issues = append(issues, *bad)
			continue
		}
		issues = append(issues, validate(settingsSchema.Get(), tree, "", f.Source)...)
		layers = append(layers, parsedLayer{src: f.Source, tree: tree})
	}
	if hasErrors(issues) {
		return nil, &ValidationError{Issues: issues}
	}
	return assemble(layers, issues, l, providerOverride{})
}

// providerOverride is the provider part of Overrides.
type providerOverride struct {
	name  string // a profile name or a provider type
	model string
	src   Source
}

// assemble merges validated layers, checks what only the merged view can show, and
// decodes the typed settings.
func assemble(layers []parsedLayer, fileIssues []Issue, l Loader, po providerOverride) (*Settings, error) {
	m := mergeLayers(layers, l.Home)
	guarded, withheld := guardProjectEndpoints(m.tree, m.origins)
	unset := substituteEnv(m.tree, l.Env)

	s := &Settings{
		Providers:  map[string]ProviderProfile{},
		Hooks:      m.hooks,
		Extra:      map[string]json.RawMessage{},
		origins:    m.origins,
		unsetEnv:   unset,
		guarded:    guarded,
		withheld:   withheld,
		layers:     layers,
		loader:     l,
		provider:   po,
		fileIssues: fileIssues,
	}
	for _, l := range layers {
		if l.src.Layer != LayerCommandLine {
			s.Loaded = append(s.Loaded, l.src)
		}
	}
	for _, r := range m.rules {
		switch r.Behavior {
		case Allow:
			s.Permissions.Allow = append(s.Permissions.Allow, r)
		case Ask:
			s.Permissions.Ask = append(s.Permissions.Ask, r)
		case Deny:
			s.Permissions.Deny = append(s.Permissions.Deny, r)
		}
	}
	s.Permissions.AdditionalDirectories = m.dirs

	var shape fileShape
	raw, err := json.Marshal(prune(settingsSchema.Get(), m.tree))
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		err = dec.Decode(&shape)
	}
	if err != nil { // the tree was validated against the same shape
		return nil, fmt.Errorf("settings: decoding merged settings: %w", err)
	}
	s.CurrentProvider = shape.CurrentProvider
	s.Language = shape.Language
	s.Model = shape.Model
	s.DefaultTrustLevel = shape.DefaultTrustLevel
	s.DisableAllHooks = shape.DisableAllHooks
	s.Env = shape.Env
	s.WorkerLabels = shape.Workers.Labels
	s.SessionLogLevel = shape.SessionLog.Level
	s.Permissions.DefaultMode = shape.Permissions.DefaultMode
	s.Permissions.DefaultModeSource, _ = s.Origin("permissions.defaultMode")
	s.Permissions.DisableBypassPermissions = shape.Permissions.DisableBypassPermissionsMode == "disable"
	for name, p := range shape.Providers {
		s.Providers[name] = s.guard(p.profile(s.originOf(joinPath("providers", name))), joinPath("providers", name))
	}
	if shape.Provider != nil {
		p := s.guard(shape.Provider.profile(s.originOf("provider")), "provider")
		s.LegacyProvider = &p
	}
	var noEffect []Issue
	for k, v := range m.tree {
		if !modelledKey(k) {
			s.Extra[k], _ = json.Marshal(v)
		}
		if why, ok := NoEffectKeys()[k]; ok {
			noEffect = append(noEffect, Issue{Severity: SeverityWarning, File: s.originOf(k).Display, Path: k,
				Message: "accepted, has no effect in robota: " + why})
		}
	}
	for path, why := range NoEffectPaths() {
		if src, ok := s.origins[path]; ok {
			noEffect = append(noEffect, Issue{Severity: SeverityWarning, File: src.Display, Path: path,
				Message: "accepted, has no effect in robota: " + why})
		}
	}

	bad := s.checkProviders()
	wsErrs, wsWarns := s.resolveWebSearch(shape.WebSearch, l.Env)
	if bad = append(bad, wsErrs...); len(bad) > 0 {
		return nil, &ValidationError{Issues: append(append([]Issue(nil), fileIssues...), bad...)}
	}
	noEffect = append(noEffect, wsWarns...)
	slices.SortFunc(noEffect, func(a, b Issue) int { return strings.Compare(a.Path, b.Path) })
	s.Warnings = append(append(append([]Issue(nil), fileIssues...), noEffect...), s.activeEnvWarnings()...)
	return s, nil
}

// guard marks a profile the credential rule applies to (see credentials.go).
func (s *Settings) guard(p ProviderProfile, path string) ProviderProfile {
	if src, ok := s.guarded[path]; ok {
		p.NoEnvCredentials, p.BaseURLSource, p.BaseURLKey = true, src, joinPath(path, "baseURL")
	}
	return p
}

func (s *Settings) originOf(path string) Source {
	src, _ := s.Origin(path)
	return src
}

// HonouredExtraKeys are the top-level keys without a typed field that robota acts on
// (read from Settings.Extra by the package that owns them).
func HonouredExtraKeys() map[string]string { return honouredExtraKeysTable.Get() }

// honouredExtraKeysTable is built on first use (internal/lazy).
var honouredExtraKeysTable = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"enabledPlugins":         "plugins enabled for the session (interactive/plugins)",
		"extraKnownMarketplaces": "marketplaces plugins are installed from (interactive/plugins)",
		"sandbox":                "the command sandbox: enabled, excludedCommands, failIfUnavailable, network (interactive, pkg/sandbox)",
		"disabledMcpjsonServers": "project .mcp.json servers that are not started (interactive)",
		// The TUI asks about a project .mcp.json server neither key approves (pkg/tui); a
		// run that asks nobody starts every server not disabled, as Claude Code's print mode.
		"enableAllProjectMcpServers": "every project .mcp.json server approved: the TUI does not ask (pkg/tui)",
		"enabledMcpjsonServers":      "project .mcp.json servers approved: the TUI does not ask about them (pkg/tui)",
	}
}}

// NoEffectKeys are Claude Code keys robota accepts without acting on them, with why;
// each one a file sets is a warning naming the file and the key.
func NoEffectKeys() map[string]string { return noEffectKeysTable.Get() }

// noEffectKeysTable is built on first use (internal/lazy).
var noEffectKeysTable = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"apiKeyHelper":          "provider keys come from providers profiles ($ENV:NAME) or the environment",
		"awsAuthRefresh":        "robota has no Bedrock provider",
		"awsCredentialExport":   "robota has no Bedrock provider",
		"cleanupPeriodDays":     "robota does not delete old sessions",
		"companyAnnouncements":  "robota shows no announcements",
		"forceLoginMethod":      "robota has no login",
		"forceLoginOrgUUID":     "robota has no login",
		"includeCoAuthoredBy":   "robota writes no commit messages of its own",
		"otelHeadersHelper":     "robota exports no OpenTelemetry data",
		"outputStyle":           "robota has one output style",
		"statusLine":            "robota's headless runs have no status line",
		"alwaysThinkingEnabled": "use --max-thinking-tokens or a provider profile's thinking budget",
		"spinnerTipsEnabled":    "robota's headless runs show no spinner",
	}
}}

// modelledKey tells the top-level keys Settings has typed fields for.
func modelledKey(k string) bool {
	switch k {
	case "$schema", "currentProvider", "providers", "provider",
		"permissions", "additionalDirectories", "language", "model",
		"defaultTrustLevel", "hooks", "disableAllHooks", "env",
		"workers", "webSearch", "sessionLog":
		return true
	}
	return false
}

// checkProviders reports profiles without a type and a currentProvider naming no profile.
func (s *Settings) checkProviders() []Issue {
	var out []Issue
	for _, name := range sortedKeys(s.Providers) {
		if strings.TrimSpace(s.Providers[name].Type) == "" {
			path := joinPath(joinPath("providers", name), "type")
			out = append(out, Issue{Severity: SeverityError, File: s.Providers[name].Source.Display,
				Path: path, Message: fmt.Sprintf("profile %q has no type", name), Err: ErrProfileType})
		}
	}
	if s.CurrentProvider != "" {
		if _, ok := s.Providers[s.CurrentProvider]; !ok {
			src := s.originOf("currentProvider")
			out = append(out, Issue{Severity: SeverityError, File: src.Display, Path: "currentProvider",
				Message: fmt.Sprintf("names profile %q, which is not defined under providers (%s)",
					s.CurrentProvider, knownProfiles(s.Providers)),
				Err: ErrMissingProfile})
		}
	}
	return out
}

func knownProfiles(p map[string]ProviderProfile) string {
	if len(p) == 0 {
		return "no profiles are defined"
	}
	return "defined: " + strings.Join(sortedKeys(p), ", ")
}

// fileShape is the typed view of a merged tree.
type fileShape struct {
	CurrentProvider   string                  `json:"currentProvider"`
	Providers         map[string]profileShape `json:"providers"`
	Provider          *profileShape           `json:"provider"`
	Language          string                  `json:"language"`
	Model             string                  `json:"model"`
	DefaultTrustLevel string                  `json:"defaultTrustLevel"`
	DisableAllHooks   bool                    `json:"disableAllHooks"`
	Env               map[string]string       `json:"env"`
	Workers           struct {
		Labels map[string]string `json:"labels"`
	} `json:"workers"`
	WebSearch  *webSearchShape `json:"webSearch"`
	SessionLog struct {
		Level string `json:"level"`
	} `json:"sessionLog"`
	Permissions struct {
		DefaultMode                  string `json:"defaultMode"`
		DisableBypassPermissionsMode string `json:"disableBypassPermissionsMode"`
	} `json:"permissions"`
}

type profileShape struct {
	Type    string         `json:"type"`
	Name    string         `json:"name"` // legacy `provider.name`
	Model   string         `json:"model"`
	APIKey  string         `json:"apiKey"`
	BaseURL string         `json:"baseURL"`
	Timeout json.Number    `json:"timeout"`
	Options map[string]any `json:"options"`
}

func (p profileShape) profile(src Source) ProviderProfile {
	typ := p.Type
	if typ == "" {
		typ = p.Name
	}
	out := ProviderProfile{Type: typ, Model: p.Model, APIKey: p.APIKey, BaseURL: p.BaseURL,
		Options: p.Options, Source: src}
	if ms, err := p.Timeout.Float64(); err == nil && ms > 0 {
		out.Timeout = time.Duration(math.MaxInt64)
		if ns := ms * float64(time.Millisecond); ns < float64(math.MaxInt64) {
			out.Timeout = time.Duration(ns)
		}
	}
	return out
}
