package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
)

// ManifestPath is where a plugin's manifest lies, relative to its root.
const ManifestPath = ".claude-plugin/plugin.json"

// MaxFileSize bounds what is read of a manifest or component file.
const MaxFileSize = agentdef.MaxFileSize

// namePattern is what a plugin or marketplace name may be (Claude Code's plugin id
// rule, name@marketplace): it becomes a command prefix and a directory name, so it can
// hold no space, separator or "..".
var namePattern = lazy.NewRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidName reports whether name may name a plugin or marketplace.
func ValidName(name string) error {
	if !namePattern.MatchString(name) || strings.Contains(name, "..") || len(name) > 128 {
		return fmt.Errorf("%w: name %q: use letters, digits, '-', '_' and '.' (kebab-case, no spaces)", ErrBadID, name)
	}
	return nil
}

// SplitID splits "name@marketplace"; a bare "name" (a --plugin-dir plugin) has no
// marketplace.
func SplitID(id string) (name, marketplace string, err error) {
	name, marketplace, found := strings.Cut(id, "@")
	if err := ValidName(name); err != nil {
		return "", "", fmt.Errorf("%q: %w", id, err)
	}
	if found {
		if err := ValidName(marketplace); err != nil {
			return "", "", fmt.Errorf("%q: %w", id, err)
		}
	}
	return name, marketplace, nil
}

// Author is a manifest's or marketplace's author/owner (Claude Code writes an object;
// a plain string is read as the name).
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

func (a *Author) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		a.Name = s
		return nil
	}
	type plain Author
	return json.Unmarshal(b, (*plain)(a))
}

// Components are the manifest fields that point at a plugin's parts (also accepted in a
// marketplace entry, which supplies them for a plugin without plugin.json). Each is
// kept as written and decoded when the plugin loads, so one malformed field leaves out
// that part only.
type Components struct {
	// Commands: a path, a list of paths (files or directories), or an object of
	// command name to {source | content, description, ...}.
	Commands json.RawMessage `json:"commands,omitempty"`
	// Agents: a path or a list of paths (files or directories).
	Agents json.RawMessage `json:"agents,omitempty"`
	// Skills: a path or a list of paths (directories of skills, or one skill's directory).
	Skills json.RawMessage `json:"skills,omitempty"`
	// Hooks: a path to a hooks file, an inline hooks object, or a list of either; in
	// addition to hooks/hooks.json.
	Hooks json.RawMessage `json:"hooks,omitempty"`
	// MCPServers: a path to an MCP servers file, an inline object of servers, or a list
	// of either; in addition to .mcp.json.
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
}

// Manifest is .claude-plugin/plugin.json.
type Manifest struct {
	Name        string   `json:"name"`
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	Author      *Author  `json:"author,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	Repository  string   `json:"repository,omitempty"`
	License     string   `json:"license,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
	Components
}

// ParseManifest reads a plugin.json. The name is required and must be a ValidName;
// unknown fields (outputStyles, lspServers, ...) are ignored.
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	if err := decodeObject(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("%w: %w", ErrManifest, err)
	}
	if m.Name == "" {
		return Manifest{}, fmt.Errorf("%w: missing required \"name\"", ErrManifest)
	}
	if err := ValidName(m.Name); err != nil {
		return Manifest{}, fmt.Errorf("%w: %w", ErrManifest, err)
	}
	return m, nil
}

// decodeObject decodes one JSON object (a UTF-8 BOM allowed) into v; anything after it
// is an error.
func decodeObject(data []byte, v any) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// present reports whether a component field was given (not absent, not null).
func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && string(t) != "null"
}

// pathList decodes a field that is a path or a list of paths.
func pathList(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("want a path or a list of paths")
	}
	return many, nil
}

// commandRef is one entry of the commands field: a path, with the command's name when
// the object form gave one.
type commandRef struct {
	Path, Name string
	// Inline is set for an object entry with "content" instead of "source".
	Inline bool
}

// commandList decodes the commands field.
func commandList(raw json.RawMessage) ([]commandRef, error) {
	if paths, err := pathList(raw); err == nil {
		out := make([]commandRef, len(paths))
		for i, p := range paths {
			out[i] = commandRef{Path: p}
		}
		return out, nil
	}
	var byName map[string]struct {
		Source  string `json:"source"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &byName); err != nil {
		return nil, errors.New("want a path, a list of paths, or an object of command names")
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []commandRef
	for _, n := range names {
		e := byName[n]
		out = append(out, commandRef{Path: e.Source, Name: n, Inline: e.Source == "" && e.Content != ""})
	}
	return out, nil
}

// mixedList decodes a hooks or mcpServers field: a path, an inline object, or a list
// of either. Paths come back in paths, objects in inline, in the order written.
type mixedItem struct {
	Path   string
	Inline json.RawMessage
}

func mixedList(raw json.RawMessage) ([]mixedItem, error) {
	item := func(r json.RawMessage) (mixedItem, error) {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return mixedItem{Path: s}, nil
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(r, &obj); err != nil {
			return mixedItem{}, errors.New("want a path or an object")
		}
		return mixedItem{Inline: r}, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		it, err := item(raw)
		if err != nil {
			return nil, err
		}
		return []mixedItem{it}, nil
	}
	out := make([]mixedItem, 0, len(list))
	for _, r := range list {
		it, err := item(r)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}
