package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TrustFile is where the folders the user trusted are remembered, under their home.
const TrustFile = ".robota/trusted-folders.json"

// trustRecord is TrustFile's content.
type trustRecord struct {
	Folders map[string]trustEntry `json:"folders"`
}

type trustEntry struct {
	TrustedAt time.Time `json:"trustedAt"`
}

// Trusted reports whether dir, or a folder above it, was trusted by the user whose
// trust file is path. A missing file trusts nothing; an unreadable one is an error.
func Trusted(path, dir string) (bool, error) {
	rec, err := readTrust(path)
	if err != nil {
		return false, err
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, ok := rec.Folders[d]; ok {
			return true, nil
		}
		if d == filepath.Dir(d) {
			return false, nil
		}
	}
}

// Trust remembers dir as trusted (written atomically: temp file, rename).
func Trust(path, dir string, now time.Time) error {
	rec, err := readTrust(path)
	if err != nil {
		return err
	}
	rec.Folders[filepath.Clean(dir)] = trustEntry{TrustedAt: now.UTC()}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readTrust(path string) (trustRecord, error) {
	rec := trustRecord{Folders: map[string]trustEntry{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Folders == nil {
		rec.Folders = map[string]trustEntry{}
	}
	return rec, nil
}

// AskTrust asks, as Claude Code does at the first start in a folder, whether to trust
// its files before any project hook, MCP server, plugin or settings command runs.
func AskTrust(in io.Reader, out io.Writer, dir string, noColor bool) (bool, error) {
	m := &trustModel{dir: dir, st: newStyles(!noColor), width: 80}
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out))
	if _, err := p.Run(); err != nil {
		return false, err
	}
	return m.yes, nil
}

type trustModel struct {
	dir       string
	st        styles
	width     int
	sel       int
	yes, done bool
}

func (m *trustModel) Init() tea.Cmd { return nil }

func (m *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = max(msg.Width, 1)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "1":
			m.yes, m.done = true, true
		case "2", "esc", "ctrl+c", "ctrl+d":
			m.done = true
		case "up", "down", "tab", "shift+tab":
			m.sel = 1 - m.sel
		case "enter":
			m.yes, m.done = m.sel == 0, true
		}
		if m.done {
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m *trustModel) View() tea.View {
	if m.done {
		return tea.NewView("")
	}
	w := m.width
	st := m.st
	opts := []string{"Yes, proceed", "No, exit"}
	var b strings.Builder
	b.WriteString(st.warn.Render(strings.Repeat("─", w)) + "\n")
	b.WriteString(st.warn.Render("Do you trust the files in this folder?") + "\n\n")
	b.WriteString(wrap(Sanitize(m.dir), w) + "\n\n")
	b.WriteString(wrap("robota may read, edit and run files here, and will run this project's hooks, MCP servers, plugins and settings commands (.robota/, .claude/, .mcp.json).", w) + "\n\n")
	for i, o := range opts {
		line := fmt.Sprintf("  %d. %s", i+1, o)
		if i == m.sel {
			line = st.selected.Render(fmt.Sprintf("❯ %d. %s", i+1, o))
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(st.dim.Render(truncate("Enter to confirm · Esc to exit", w)))
	return tea.NewView(b.String())
}
