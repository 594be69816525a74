package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/mcp"
	"github.com/robota-sdk/robota-go/pkg/version"
)

// MCPServer is how one MCP server of the session started (system/init mcp_servers).
type MCPServer struct {
	Name string
	// Status is "connected" or "failed".
	Status string
	// Error says why a failed server did not start.
	Error string
	// Tools are the mcp__server__tool names it offers.
	Tools []string
}

// Warning is the line that reports a failed server: its name and error.
func (s MCPServer) Warning() string {
	return fmt.Sprintf("MCP server %q failed to start: %s", s.Name, s.Error)
}

// loadMCP reads the session's MCP server list: the project's .mcp.json (not with
// StrictMCPConfig) and Options.MCPConfigs. A list that cannot be read is a configuration
// error naming the file: a session silently without a server the user configured would
// be worse than none.
//
// The settings' consent keys decide which of the project's .mcp.json servers start, as
// in Claude Code's print mode (trust is implied there, measured against 2.1.197): every
// server but those `disabledMcpjsonServers` names. `enableAllProjectMcpServers` and
// `enabledMcpjsonServers` answer the approval an interactive front end asks for; a run
// that asks nobody does not wait for it. A disabled server is named in Warnings.
func loadMCP(opts Options, settings *config.Settings) ([]mcp.Server, []string, error) {
	servers, err := mcp.LoadConfigs(opts.Cwd, opts.MCPConfigs, opts.StrictMCPConfig, lookupWithSettings(settings.Env))
	if err != nil {
		return nil, nil, invalid("%w", err)
	}
	var disabled []string
	if raw, ok := settings.Extra["disabledMcpjsonServers"]; ok {
		if err := json.Unmarshal(raw, &disabled); err != nil {
			return nil, nil, invalid("settings disabledMcpjsonServers: want a list of server names: %v", err)
		}
	}
	var warnings []string
	servers = slices.DeleteFunc(servers, func(s mcp.Server) bool {
		if filepath.Base(s.Source) != mcp.ProjectFile || !slices.Contains(disabled, s.Name) {
			return false
		}
		warnings = append(warnings, fmt.Sprintf("MCP server %q of %s is not started: disabledMcpjsonServers names it", s.Name, mcp.ProjectFile))
		return true
	})
	return servers, warnings, nil
}

// mcpStartTimeout is Options.MCPStartTimeout, else Claude Code's MCP_TIMEOUT (ms), else
// mcp.DefaultStartTimeout.
func mcpStartTimeout(opts Options) time.Duration {
	if opts.MCPStartTimeout > 0 {
		return opts.MCPStartTimeout
	}
	if v, ok := opts.Env("MCP_TIMEOUT"); ok {
		if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return mcp.DefaultStartTimeout
}

// connectMCP starts the servers and returns their tools, minus any whose name is taken
// by a tool already offered (a warning). Failed servers are warnings too.
func (a *Assembled) connectMCP(ctx context.Context, servers []mcp.Server, opts Options, settingsEnv map[string]string, tools []llm.Tool) []llm.Tool {
	if len(servers) == 0 {
		return tools
	}
	env := toolEnv(settingsEnv)
	if env == nil {
		env = os.Environ()
	}
	set := mcp.Connect(ctx, servers, mcp.Options{Cwd: opts.Cwd, Env: env, StartTimeout: mcpStartTimeout(opts),
		SDKTransport: opts.MCPSDKTransport, ClientName: "robota", ClientVersion: version.String()})
	a.mcp = set
	a.Warnings = append(a.Warnings, set.Warnings()...)
	for _, st := range set.Status() {
		s := MCPServer{Name: st.Name, Status: st.Status, Tools: st.Tools}
		if st.Err != nil {
			s.Error = st.Err.Error()
		}
		a.MCPServers = append(a.MCPServers, s)
	}
	taken := map[string]bool{}
	for _, t := range tools {
		taken[t.Schema().Name] = true
	}
	for _, t := range set.Tools() {
		name := t.Schema().Name
		if taken[name] {
			a.Warnings = append(a.Warnings, fmt.Sprintf("MCP tool %s left out: the name is taken", name))
			continue
		}
		tools = append(tools, t)
		a.Tools = append(a.Tools, name)
	}
	return tools
}

// closeMCP ends the MCP connections (stdio servers exit).
func (a *Assembled) closeMCP() {
	if a.mcp != nil {
		_ = a.mcp.Close()
	}
}
