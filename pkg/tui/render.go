package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// previewLines is how many lines of a tool's output are shown before "+N lines".
const previewLines = 4

// wrap word-wraps s to width cells, breaking words longer than a line (ANSI-aware).
func wrap(s string, width int) string {
	return ansi.Wrap(s, max(width, 1), "")
}

// truncate cuts s to width cells with an ellipsis.
func truncate(s string, width int) string {
	return ansi.Truncate(s, max(width, 1), "…")
}

// toolTitle is the header of a tool call: Name(main argument).
func toolTitle(t *Tool) string {
	arg := Sanitize(t.FirstArg)
	if arg == "" {
		arg = mainArg(t.Args)
	}
	arg = strings.ReplaceAll(arg, "\n", " ")
	if arg == "" {
		return t.Name
	}
	return t.Name + "(" + arg + ")"
}

// mainArg picks the argument that identifies a call when the session gave none.
func mainArg(args []byte) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "file_path", "pattern", "path", "url", "description", "prompt", "skill"} {
		if s, ok := m[k].(string); ok {
			return Sanitize(s)
		}
	}
	return ""
}

// renderToolEnd is what a finished tool call leaves in the scrollback.
func (m *model) renderToolEnd(t *Tool) string {
	st := m.st
	var b strings.Builder
	mark := st.ok.Render("⏺")
	if t.Result == "error" || t.Result == "denied" {
		mark = st.bad.Render("⏺")
	}
	b.WriteString(mark + " " + st.tool.Render(truncate(toolTitle(t), m.width-2)))
	body := func(line string) {
		b.WriteString("\n" + st.dim.Render("  ⎿  ") + truncate(line, m.width-5))
	}
	switch {
	case t.Result == "denied":
		reason := Sanitize(t.Reason)
		if reason == "" {
			reason = "denied"
		}
		body(st.bad.Render("Denied: ") + firstLine(reason))
	case t.Result == "error":
		msg := Sanitize(t.Reason)
		if msg == "" {
			msg = t.ErrorCode
		}
		body(st.bad.Render("Error: ") + firstLine(msg))
	case len(t.Diff) > 0:
		m.renderDiff(&b, t)
	case t.Preview != "":
		lines := strings.Split(strings.TrimRight(Sanitize(t.Preview), "\n"), "\n")
		n := len(lines)
		if n > previewLines {
			lines = lines[:previewLines]
		}
		for i, l := range lines {
			if i == 0 {
				body(l)
			} else {
				b.WriteString("\n     " + truncate(l, m.width-5))
			}
		}
		if n > previewLines {
			b.WriteString("\n     " + st.dim.Render(fmt.Sprintf("… +%d lines (ctrl+o to expand)", n-previewLines)))
			m.lastFull = "⏺ " + toolTitle(t) + "\n" + Sanitize(t.Preview)
		}
	}
	if t.Message != "" {
		body(st.warn.Render(firstLine(Sanitize(t.Message))))
	}
	return b.String()
}

func (m *model) renderDiff(b *strings.Builder, t *Tool) {
	st := m.st
	adds, removes := 0, 0
	for _, d := range t.Diff {
		switch d.Kind {
		case "add":
			adds++
		case "remove":
			removes++
		}
	}
	b.WriteString("\n" + indented(st.dim.Render("  ⎿  "),
		fmt.Sprintf("Updated %s with %d addition%s and %d removal%s", Sanitize(t.DiffFile), adds, plural(adds), removes, plural(removes)), m.width))
	for _, d := range t.Diff {
		sign, style := "-", st.remove
		switch d.Kind {
		case "hunk":
			continue // the numbers say where the change is
		case "add":
			sign, style = "+", st.add
		case "context":
			sign, style = " ", st.dim
		}
		line := fmt.Sprintf("%5d %s %s", d.Line, sign, Sanitize(d.Text))
		b.WriteString("\n     " + style.Render(truncate(line, m.width-5)))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// permissionTitle names what a permission prompt asks about.
func permissionTitle(p *Permission) (title, detail string) {
	args := mainArg(p.Input)
	switch p.ToolName {
	case "Bash":
		return "Bash command", args
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return "Edit file", args
	case "WebFetch":
		return "Fetch", args
	}
	return "Tool use: " + p.ToolName, args
}

// indented wraps text to width with first before its first row and five spaces before
// the others, as tool and command output is shown.
func indented(first, text string, width int) string {
	rows := strings.Split(wrap(text, max(width-5, 1)), "\n")
	for i := range rows {
		if i == 0 {
			rows[i] = first + rows[i]
		} else {
			rows[i] = "     " + rows[i]
		}
	}
	return strings.Join(rows, "\n")
}

func displayWidth(s string) int { return ansi.StringWidth(s) }
