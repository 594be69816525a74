package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestLoadConfigs(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "BIN": "/opt/bin"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	project := `{"mcpServers": {
		"local": {"command": "${BIN}/server", "args": ["--x", "${MISSING:-dflt}"], "env": {"K": "${TOKEN}"}},
		"web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
		"shared": {"command": "project-version"}}}`
	extraFile := `{"mcpServers": {"shared": {"command": "file-version"}, "events": {"type": "sse", "url": "http://h/sse"}}}`
	tests := []struct {
		name   string
		extra  []string
		strict bool
		want   map[string]ServerConfig
	}{
		{name: "project only", want: map[string]ServerConfig{
			"local":  {Type: "stdio", Command: "/opt/bin/server", Args: []string{"--x", "dflt"}, Env: map[string]string{"K": "s3cret"}},
			"web":    {Type: "http", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}},
			"shared": {Type: "stdio", Command: "project-version"},
		}},
		{name: "a later source wins", extra: []string{"extra.json", `{"mcpServers": {"inline": {"type": "sdk"}}}`}, want: map[string]ServerConfig{
			"local":  {Type: "stdio", Command: "/opt/bin/server", Args: []string{"--x", "dflt"}, Env: map[string]string{"K": "s3cret"}},
			"web":    {Type: "http", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}},
			"shared": {Type: "stdio", Command: "file-version"},
			"events": {Type: "sse", URL: "http://h/sse"},
			"inline": {Type: "sdk"},
		}},
		{name: "strict drops .mcp.json", extra: []string{"extra.json"}, strict: true, want: map[string]ServerConfig{
			"shared": {Type: "stdio", Command: "file-version"},
			"events": {Type: "sse", URL: "http://h/sse"},
		}},
		{name: "strict without configs", strict: true, want: map[string]ServerConfig{}},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extra.json"), []byte(extraFile), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			servers, err := LoadConfigs(dir, tc.extra, tc.strict, lookup)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]ServerConfig{}
			prev := ""
			for _, s := range servers {
				if s.Name <= prev {
					t.Errorf("servers not sorted by name: %q after %q", s.Name, prev)
				}
				prev = s.Name
				got[s.Name] = s.Config
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestLoadConfigsWithoutProjectFile(t *testing.T) {
	servers, err := LoadConfigs(t.TempDir(), nil, false, nil)
	if err != nil || len(servers) != 0 {
		t.Errorf("got %v, %v; want no servers", servers, err)
	}
}

func TestLoadConfigsErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc string }{
		{"bad json", `{"mcpServers": `},
		{"no command", `{"mcpServers": {"x": {"args": ["a"]}}}`},
		{"http without url", `{"mcpServers": {"x": {"type": "http"}}}`},
		{"unknown type", `{"mcpServers": {"x": {"type": "ws", "url": "ws://h"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfigs(t.TempDir(), []string{tc.doc}, false, nil)
			if !errors.Is(err, ErrConfig) {
				t.Errorf("err = %v, want ErrConfig", err)
			}
		})
	}
	if _, err := LoadConfigs(t.TempDir(), []string{"nope.json"}, false, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("missing file: err = %v, want ErrConfig", err)
	}
}
