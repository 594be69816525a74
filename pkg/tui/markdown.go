package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// markdown renders a finished answer for the terminal: goldmark (CommonMark) parses
// it, lipgloss styles it, and it is word-wrapped to the terminal.
//
// It is not glamour: glamour formats through text/template, whose reflect-method use
// makes the linker keep every method of every type in robota (+17 MiB of RSS on every
// run, and go-plugin's net/rpc server back in the binary: DESIGN.md decision 10). Nor
// is chroma linked for code blocks: its lexer and style registries cost 4 MiB and
// 28 ms at every start of robota, headless runs included; code is shown in one colour.
type markdown struct {
	color bool
	md    goldmark.Markdown
}

type mdStyles struct {
	bold, italic, code, heading, link, quote lipgloss.Style
}

func (m *markdown) styles() mdStyles {
	if !m.color {
		p := lipgloss.NewStyle()
		return mdStyles{bold: p, italic: p, code: p, heading: p, link: p, quote: p}
	}
	return mdStyles{
		bold:    lipgloss.NewStyle().Bold(true),
		italic:  lipgloss.NewStyle().Italic(true),
		code:    lipgloss.NewStyle().Foreground(lipgloss.Color("5")),
		heading: lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6")),
		link:    lipgloss.NewStyle().Foreground(lipgloss.Color("4")).Underline(true),
		quote:   lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
	}
}

// render renders text (sanitized first: the styling added here is the only escape
// sequence in what it returns) to width cells.
func (m *markdown) render(text string, width int) string {
	text = Sanitize(text)
	if m.md == nil {
		// CommonMark only: goldmark's extension package compiles its regexps at start
		// (6 ms on every robota run), and a table reads well as its source lines.
		m.md = goldmark.New()
	}
	src := []byte(text)
	doc := m.md.Parser().Parse(textReader(src))
	r := mdRenderer{src: src, st: m.styles(), color: m.color}
	var blocks []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if b := r.block(n, max(width, 10)); b != "" {
			blocks = append(blocks, b)
		}
	}
	return strings.Join(blocks, "\n\n")
}

func textReader(src []byte) text.Reader { return text.NewReader(src) }

type mdRenderer struct {
	src   []byte
	st    mdStyles
	color bool
}

// block renders one block node to width cells.
func (r *mdRenderer) block(n ast.Node, width int) string {
	switch n := n.(type) {
	case *ast.Heading:
		return r.st.heading.Render(ansi.Wrap(strings.Repeat("#", n.Level)+" "+r.inlines(n), width, ""))
	case *ast.Paragraph, *ast.TextBlock:
		return ansi.Wrap(r.inlines(n), width, "")
	case *ast.ThematicBreak:
		return r.st.quote.Render(strings.Repeat("─", min(width, 40)))
	case *ast.FencedCodeBlock:
		return r.code(r.lines(n), string(n.Language(r.src)), width)
	case *ast.CodeBlock:
		return r.code(r.lines(n), "", width)
	case *ast.Blockquote:
		var parts []string
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			parts = append(parts, r.block(c, width-2))
		}
		return prefixLines(strings.Join(parts, "\n"), r.st.quote.Render("│ "), r.st.quote.Render("│ "))
	case *ast.List:
		return r.list(n, width)
	case *ast.HTMLBlock:
		return ansi.Wrap(strings.TrimRight(r.lines(n), "\n"), width, "")
	}
	return ansi.Wrap(strings.TrimSpace(string(n.Text(r.src))), width, "") //nolint:staticcheck // fallback
}

func (r *mdRenderer) lines(n ast.Node) string {
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

func (r *mdRenderer) list(n *ast.List, width int) string {
	var items []string
	num := n.Start
	for it := n.FirstChild(); it != nil; it = it.NextSibling() {
		mark := "• "
		if n.IsOrdered() {
			mark = fmt.Sprintf("%d. ", num)
			num++
		}
		var parts []string
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			parts = append(parts, r.block(c, width-ansi.StringWidth(mark)))
		}
		sep := "\n"
		if !n.IsTight {
			sep = "\n\n"
		}
		items = append(items, prefixLines(strings.Join(parts, sep), mark, strings.Repeat(" ", ansi.StringWidth(mark))))
	}
	if n.IsTight {
		return strings.Join(items, "\n")
	}
	return strings.Join(items, "\n\n")
}

// code highlights a code block when chroma knows its language (and colour is on).
func (r *mdRenderer) code(src, lang string, width int) string {
	src = strings.TrimRight(src, "\n")
	out := src
	if r.color {
		out = r.st.code.Render(src)
	}
	rows := strings.Split(out, "\n")
	for i, l := range rows {
		rows[i] = "  " + ansi.Truncate(l, max(width-2, 1), "…")
	}
	return strings.Join(rows, "\n")
}

// inlines renders the inline children of n as one styled string.
func (r *mdRenderer) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(r.inline(c))
	}
	return b.String()
}

func (r *mdRenderer) inline(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Text:
		s := string(n.Segment.Value(r.src))
		if n.HardLineBreak() || n.SoftLineBreak() {
			s += "\n"
		}
		return s
	case *ast.String:
		return string(n.Value)
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(r.src))
			}
		}
		return r.st.code.Render(b.String())
	case *ast.Emphasis:
		if n.Level >= 2 {
			return r.st.bold.Render(r.inlines(n))
		}
		return r.st.italic.Render(r.inlines(n))
	case *ast.Link:
		label := r.inlines(n)
		dest := string(n.Destination)
		if label == dest || dest == "" {
			return r.st.link.Render(label)
		}
		return r.st.link.Render(label) + " (" + dest + ")"
	case *ast.AutoLink:
		return r.st.link.Render(string(n.URL(r.src)))
	case *ast.Image:
		return "[image: " + r.inlines(n) + "]"
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		return b.String()
	}
	return r.inlines(n)
}

// prefixLines puts first before the first line of s and rest before the others.
func prefixLines(s, first, rest string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}
