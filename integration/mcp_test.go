package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildMCPServer builds testdata/mcpserver, a stdio MCP server with echo and danger.
func buildMCPServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpserver")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/mcpserver")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the test MCP server: %v\n%s", err, out)
	}
	return bin
}

// Issue 13 §3: a stdio MCP server from .mcp.json is used by the model's tool call
// through robota -p; a deny rule on another of its tools holds (the server never sees
// that call); a server that cannot start is named and the run still succeeds.
func TestHeadlessUsesMCPServer(t *testing.T) {
	server := buildMCPServer(t)
	p := newProject(t)
	calls := filepath.Join(p.Scripts, "calls.txt")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"test":   map[string]any{"command": server, "env": map[string]string{"MCP_CALLS_FILE": calls}},
		"broken": map[string]any{"command": "/nonexistent/robota-mcp-server", "args": []string{"x"}},
	}})
	p.writeFile(t, ".mcp.json", string(cfg))
	script := p.script(t, "mcp", nil)

	res := p.mustRun(t, "-p", "use the server", "--provider", "script", "--script", script,
		"--output-format", "stream-json", "--verbose",
		"--allowedTools", "mcp__test__echo", "--disallowedTools", "mcp__test__danger")
	lines := jsonLines(t, res.Stdout)

	init := lines[0]
	if init["type"] != "system" || init["subtype"] != "init" {
		t.Fatalf("first line %v, want system/init", init)
	}
	servers, _ := json.Marshal(init["mcp_servers"])
	if string(servers) != `[{"name":"broken","status":"failed"},{"name":"test","status":"connected"}]` {
		t.Errorf("init mcp_servers = %s", servers)
	}
	tools, _ := json.Marshal(init["tools"])
	if !strings.Contains(string(tools), `"mcp__test__echo"`) || !strings.Contains(string(tools), `"mcp__test__danger"`) {
		t.Errorf("init tools = %s, want the server's tools", tools)
	}
	if !strings.Contains(res.Stderr, `MCP server "broken" failed to start`) || !strings.Contains(res.Stderr, "/nonexistent/robota-mcp-server") {
		t.Errorf("stderr %q: want the failed server named with its error", res.Stderr)
	}

	// The echo result reached the model as the tool result; the danger call was denied.
	results := map[string]map[string]any{}
	for _, l := range lines {
		if l["type"] != "user" {
			continue
		}
		msg, _ := l["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		for _, c := range content {
			if b, _ := c.(map[string]any); b["type"] == "tool_result" {
				results[b["tool_use_id"].(string)] = b
			}
		}
	}
	if r := results["toolu_echo"]; r == nil || r["content"] != "echo: hello from the model" || r["is_error"] == true {
		t.Errorf("echo tool_result = %v, want the server's answer", r)
	}
	if r := results["toolu_danger"]; r == nil || r["is_error"] != true {
		t.Errorf("danger tool_result = %v, want an error", r)
	}
	res0 := lines[len(lines)-1]
	if res0["type"] != "result" || res0["is_error"] != false || res0["result"] != "The server echoed hello from the model." {
		t.Errorf("result = %v", res0)
	}
	denials, _ := res0["permission_denials"].([]any)
	if len(denials) != 1 {
		t.Fatalf("permission_denials = %v, want the danger call", res0["permission_denials"])
	}
	if d, _ := denials[0].(map[string]any); d["tool_name"] != "mcp__test__danger" || d["tool_use_id"] != "toolu_danger" {
		t.Errorf("denial = %v", d)
	}
	got, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "echo hello from the model\n" {
		t.Errorf("the server saw %q, want only the echo call", got)
	}
}

// --strict-mcp-config uses only the --mcp-config servers: the project's broken server
// is not started.
func TestHeadlessStrictMCPConfig(t *testing.T) {
	server := buildMCPServer(t)
	p := newProject(t)
	p.writeFile(t, ".mcp.json", `{"mcpServers": {"broken": {"command": "/nonexistent/robota-mcp-server"}}}`)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"test": map[string]any{"command": server}}})
	cfgPath := filepath.Join(p.Scripts, "mcp.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	script := p.script(t, "mcp", nil)
	res := p.mustRun(t, "-p", "use the server", "--provider", "script", "--script", script,
		"--output-format", "stream-json", "--verbose", "--mcp-config", cfgPath, "--strict-mcp-config",
		"--allowedTools", "mcp__test__echo", "--disallowedTools", "mcp__test__danger")
	lines := jsonLines(t, res.Stdout)
	servers, _ := json.Marshal(lines[0]["mcp_servers"])
	if string(servers) != `[{"name":"test","status":"connected"}]` {
		t.Errorf("init mcp_servers = %s", servers)
	}
	if strings.Contains(res.Stderr, "broken") {
		t.Errorf("stderr %q: the project's server must not start under --strict-mcp-config", res.Stderr)
	}
	if last := lines[len(lines)-1]; last["result"] != "The server echoed hello from the model." {
		t.Errorf("result = %v", last)
	}
}

// The engine's sessions read the project's .mcp.json too (through the same assembly):
// robota -p --engine runs the model's MCP call in the engine, the deny rule holding.
func TestEngineSessionUsesProjectMCPServer(t *testing.T) {
	server := buildMCPServer(t)
	p, addr := engineProject(t)
	calls := filepath.Join(p.Scripts, "calls.txt")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"test": map[string]any{"command": server, "env": map[string]string{"MCP_CALLS_FILE": calls}}}})
	p.writeFile(t, ".mcp.json", string(cfg))
	res := p.mustRun(t, "-p", "use the server", "--provider", "script", "--script", p.script(t, "mcp", nil),
		"--output-format", "stream-json", "--verbose", "--engine", addr,
		"--allowedTools", "mcp__test__echo", "--disallowedTools", "mcp__test__danger")
	lines := jsonLines(t, res.Stdout)
	last := lines[len(lines)-1]
	if last["result"] != "The server echoed hello from the model." {
		t.Errorf("result = %v\nstderr: %s", last, res.Stderr)
	}
	if denials, _ := last["permission_denials"].([]any); len(denials) != 1 {
		t.Errorf("permission_denials = %v, want the danger call", last["permission_denials"])
	}
	if got, err := os.ReadFile(calls); err != nil || string(got) != "echo hello from the model\n" {
		t.Errorf("the server saw %q (%v), want only the echo call", got, err)
	}
}
