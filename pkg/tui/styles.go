package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// styles are the UI's colours; plain ones under NO_COLOR or a dumb terminal.
type styles struct {
	dim, user, tool, ok, bad, warn, accent, add, remove, selected, border lipgloss.Style
	color                                                                 bool
}

func newStyles(useColor bool) styles {
	if !useColor {
		p := lipgloss.NewStyle()
		return styles{dim: p, user: p, tool: p, ok: p, bad: p, warn: p, accent: p, add: p, remove: p,
			selected: p.Reverse(false), border: p}
	}
	fg := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	return styles{
		dim:      fg(lipgloss.Color("8")),
		user:     fg(lipgloss.Color("7")).Bold(true),
		tool:     fg(lipgloss.Color("6")),
		ok:       fg(lipgloss.Color("2")),
		bad:      fg(lipgloss.Color("1")),
		warn:     fg(lipgloss.Color("3")),
		accent:   fg(lipgloss.Color("5")),
		add:      lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		remove:   lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		selected: fg(lipgloss.Color("4")).Bold(true),
		border:   fg(lipgloss.Color("8")),
		color:    true,
	}
}
