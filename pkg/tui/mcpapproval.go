package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
)

// Project .mcp.json servers wait for the user's approval at an interactive start, as in
// Claude Code: a server that neither enableAllProjectMcpServers nor enabledMcpjsonServers
// approves, and disabledMcpjsonServers does not refuse, is asked about before the
// session starts, and the answer is kept in the project's .claude/settings.local.json.
// Every server is then approved or refused in the settings, so the session (in process
// or in an engine) starts exactly the approved ones.

// MCPChoice is the answer about one server.
type MCPChoice int

const (
	// MCPAllowAll approves this server and every future one of the project.
	MCPAllowAll MCPChoice = iota + 1
	// MCPAllow approves this server.
	MCPAllow
	// MCPRefuse continues without it (Esc too).
	MCPRefuse
)

// localSettings is where the answers are kept, in the project.
const localSettings = ".claude/settings.local.json"

// PendingMCPServers returns the project's .mcp.json servers that wait for an approval,
// by name; none when every one is approved or refused, or the file does not exist.
func PendingMCPServers(home, cwd string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(cwd, ".mcp.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var file struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(cwd, ".mcp.json"), err)
	}
	if len(file.Servers) == 0 {
		return nil, nil
	}
	l := config.NewLoader(cwd)
	l.Home = home
	s, err := l.Load()
	if err != nil {
		return nil, err
	}
	var all bool
	var enabled, disabled []string
	for key, dst := range map[string]any{"enableAllProjectMcpServers": &all, "enabledMcpjsonServers": &enabled,
		"disabledMcpjsonServers": &disabled} {
		if raw, ok := s.Extra[key]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return nil, fmt.Errorf("settings %s: %w", key, err)
			}
		}
	}
	var pending []string
	for name := range file.Servers {
		if slices.Contains(disabled, name) || all || slices.Contains(enabled, name) {
			continue
		}
		pending = append(pending, name)
	}
	sort.Strings(pending)
	return pending, nil
}

// RecordMCPChoice keeps the answer about server in the project's
// .claude/settings.local.json, leaving its other keys as they are.
func RecordMCPChoice(cwd, server string, c MCPChoice) error {
	path := filepath.Join(cwd, filepath.FromSlash(localSettings))
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	addTo := func(key string) error {
		var list []string
		if raw, ok := doc[key]; ok {
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf("%s: %s: %w", path, key, err)
			}
		}
		if !slices.Contains(list, server) {
			list = append(list, server)
		}
		b, _ := json.Marshal(list)
		doc[key] = b
		return nil
	}
	switch c {
	case MCPAllowAll:
		doc["enableAllProjectMcpServers"] = json.RawMessage("true")
		err = addTo("enabledMcpjsonServers")
	case MCPAllow:
		err = addTo("enabledMcpjsonServers")
	default:
		err = addTo("disabledMcpjsonServers")
	}
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// AskMCP asks, as Claude Code does, whether to use a new .mcp.json server.
func AskMCP(in io.Reader, out io.Writer, server string, noColor bool) (MCPChoice, error) {
	m := &mcpModel{server: server, st: newStyles(!noColor), width: 80, choice: MCPRefuse}
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out))
	if _, err := p.Run(); err != nil {
		return MCPRefuse, err
	}
	return m.choice, nil
}

type mcpModel struct {
	server string
	st     styles
	width  int
	sel    int
	choice MCPChoice
	done   bool
}

var mcpOptions = []string{"Use this and all future MCP servers in this project", "Use this MCP server",
	"Continue without using this MCP server"}

func (m *mcpModel) Init() tea.Cmd { return nil }

func (m *mcpModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = max(msg.Width, 1)
	case tea.KeyPressMsg:
		switch k := msg.String(); k {
		case "1", "2", "3":
			m.choice, m.done = MCPChoice(k[0]-'0'), true
		case "esc", "ctrl+c", "ctrl+d":
			m.choice, m.done = MCPRefuse, true
		case "up", "shift+tab":
			m.sel = (m.sel + len(mcpOptions) - 1) % len(mcpOptions)
		case "down", "tab":
			m.sel = (m.sel + 1) % len(mcpOptions)
		case "enter":
			m.choice, m.done = MCPChoice(m.sel+1), true
		}
		if m.done {
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m *mcpModel) View() tea.View {
	if m.done {
		return tea.NewView("")
	}
	w, st := m.width, m.st
	var b strings.Builder
	b.WriteString(st.warn.Render(strings.Repeat("─", w)) + "\n")
	b.WriteString(st.warn.Render(wrap("New MCP server found in .mcp.json: "+Sanitize(m.server), w)) + "\n\n")
	b.WriteString(wrap("An MCP server is a program robota starts: it can run code and reach your files and the network.", w) + "\n\n")
	for i, o := range mcpOptions {
		line := fmt.Sprintf("  %d. %s", i+1, o)
		if i == m.sel {
			line = st.selected.Render(fmt.Sprintf("❯ %d. %s", i+1, o))
		}
		b.WriteString(truncate(line, w) + "\n")
	}
	b.WriteString(st.dim.Render(truncate("Enter to confirm · Esc to continue without it", w)))
	return tea.NewView(b.String())
}
