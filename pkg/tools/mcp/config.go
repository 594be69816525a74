package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// ServerConfig is one entry of "mcpServers", in Claude Code's format.
type ServerConfig struct {
	// Type is "stdio" (also when empty), "http", "sse" or "sdk".
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Server is a named server and where its configuration came from.
type Server struct {
	Name   string
	Source string // ".mcp.json" path or "--mcp-config"
	Config ServerConfig
}

// ProjectFile is the project's server list, in the working directory.
const ProjectFile = ".mcp.json"

// LoadConfigs returns the servers of cwd's .mcp.json (unless strict) and of every
// extra --mcp-config argument (a JSON object, or a file relative to cwd), sorted by
// name. A later source replaces an earlier server of the same name. lookup expands
// ${VAR} references (nil: none expand, the default is used).
func LoadConfigs(cwd string, extra []string, strict bool, lookup func(string) (string, bool)) ([]Server, error) {
	byName := map[string]Server{}
	if !strict {
		path := filepath.Join(cwd, ProjectFile)
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
		default:
			if err := parseInto(byName, data, path, lookup); err != nil {
				return nil, err
			}
		}
	}
	for _, arg := range extra {
		data, source := []byte(arg), "--mcp-config"
		if t := strings.TrimSpace(arg); !strings.HasPrefix(t, "{") {
			path := t
			if !filepath.IsAbs(path) {
				path = filepath.Join(cwd, path)
			}
			var err error
			if data, err = os.ReadFile(path); err != nil {
				return nil, fmt.Errorf("%w: --mcp-config %s: %w", ErrConfig, t, err)
			}
			source = path
		}
		if err := parseInto(byName, data, source, lookup); err != nil {
			return nil, err
		}
	}
	out := make([]Server, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	return out, nil
}

// ParseConfig reads one {"mcpServers": {...}} document.
func ParseConfig(data []byte, source string, lookup func(string) (string, bool)) ([]Server, error) {
	byName := map[string]Server{}
	if err := parseInto(byName, data, source, lookup); err != nil {
		return nil, err
	}
	out := make([]Server, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	return out, nil
}

func parseInto(byName map[string]Server, data []byte, source string, lookup func(string) (string, bool)) error {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrConfig, source, err)
	}
	for name, raw := range doc.MCPServers {
		if name == "" {
			return fmt.Errorf("%w: %s: a server has an empty name", ErrConfig, source)
		}
		var c ServerConfig
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("%w: %s: server %q: %w", ErrConfig, source, name, err)
		}
		c = expand(c, lookup)
		switch c.Type {
		case "", "stdio":
			if c.Command == "" {
				return fmt.Errorf("%w: %s: server %q has no command", ErrConfig, source, name)
			}
			c.Type = "stdio"
		case "http", "sse":
			if c.URL == "" {
				return fmt.Errorf("%w: %s: server %q (%s) has no url", ErrConfig, source, name, c.Type)
			}
		case "sdk":
		default:
			return fmt.Errorf("%w: %s: server %q: unknown type %q (want stdio, http, sse or sdk)", ErrConfig, source, name, c.Type)
		}
		byName[name] = Server{Name: name, Source: source, Config: c}
	}
	return nil
}

// envRef is ${VAR} or ${VAR:-default}.
var envRef = lazy.NewRegexp(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)

func expandString(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return envRef.ReplaceAllStringFunc(s, func(m string) string {
		sub := envRef.FindStringSubmatch(m)
		if lookup != nil {
			if v, ok := lookup(sub[1]); ok {
				return v
			}
		}
		if strings.Contains(m, ":-") {
			return sub[2]
		}
		return m // left as written: the server sees what the user wrote
	})
}

func expand(c ServerConfig, lookup func(string) (string, bool)) ServerConfig {
	c.Command = expandString(c.Command, lookup)
	c.URL = expandString(c.URL, lookup)
	if c.Args != nil {
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = expandString(a, lookup)
		}
		c.Args = args
	}
	expandMap := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = expandString(v, lookup)
		}
		return out
	}
	c.Env, c.Headers = expandMap(c.Env), expandMap(c.Headers)
	return c
}
