package tui

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// editor is the prompt box's text: runes and a cursor, edited as a shell line is
// (Ctrl-A/E/K/U/W), over several lines. Wide characters take two cells; layout wraps
// by cells, so the cursor lands where the terminal draws the character.
type editor struct {
	buf    []rune
	cursor int // index into buf, 0..len(buf)
	// pastes hold the collapsed large pastes, expanded on Value.
	pastes []string
}

// pasteCollapseLines and pasteCollapseBytes decide when a paste is shown as
// "[Pasted text #N +L lines]" instead of inline.
const (
	pasteCollapseLines = 10
	pasteCollapseBytes = 2000
)

func (e *editor) Text() string { return string(e.buf) }

// Value is the text to submit: collapsed pastes expanded.
func (e *editor) Value() string {
	s := string(e.buf)
	for i, p := range e.pastes {
		s = strings.Replace(s, pasteLabel(i+1, p), p, 1)
	}
	return s
}

func pasteLabel(n int, p string) string {
	return fmt.Sprintf("[Pasted text #%d +%d lines]", n, strings.Count(p, "\n")+1)
}

func (e *editor) Empty() bool { return len(e.buf) == 0 }

func (e *editor) Reset() { e.buf, e.cursor, e.pastes = e.buf[:0], 0, nil }

func (e *editor) SetText(s string) {
	e.buf, e.cursor, e.pastes = []rune(s), len([]rune(s)), nil
}

func (e *editor) Insert(s string) {
	r := []rune(s)
	e.buf = append(e.buf[:e.cursor], append(r, e.buf[e.cursor:]...)...)
	e.cursor += len(r)
}

// Paste inserts pasted text, collapsed to a label when large; Value restores it.
func (e *editor) Paste(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	if strings.Count(s, "\n") < pasteCollapseLines && len(s) < pasteCollapseBytes {
		e.Insert(s)
		return
	}
	e.pastes = append(e.pastes, s)
	e.Insert(pasteLabel(len(e.pastes), s))
}

func (e *editor) Backspace() {
	if e.cursor > 0 {
		e.buf = append(e.buf[:e.cursor-1], e.buf[e.cursor:]...)
		e.cursor--
	}
}

func (e *editor) Delete() {
	if e.cursor < len(e.buf) {
		e.buf = append(e.buf[:e.cursor], e.buf[e.cursor+1:]...)
	}
}

func (e *editor) Left() {
	if e.cursor > 0 {
		e.cursor--
	}
}

func (e *editor) Right() {
	if e.cursor < len(e.buf) {
		e.cursor++
	}
}

// lineStart and lineEnd bound the logical line holding the cursor.
func (e *editor) lineStart() int {
	i := e.cursor
	for i > 0 && e.buf[i-1] != '\n' {
		i--
	}
	return i
}

func (e *editor) lineEnd() int {
	i := e.cursor
	for i < len(e.buf) && e.buf[i] != '\n' {
		i++
	}
	return i
}

func (e *editor) Home() { e.cursor = e.lineStart() }
func (e *editor) End()  { e.cursor = e.lineEnd() }

// KillEnd is Ctrl-K: delete to the end of the line (the newline itself at its end).
func (e *editor) KillEnd() {
	end := e.lineEnd()
	if end == e.cursor && end < len(e.buf) {
		end++
	}
	e.buf = append(e.buf[:e.cursor], e.buf[end:]...)
}

// KillStart is Ctrl-U: delete to the start of the line.
func (e *editor) KillStart() {
	start := e.lineStart()
	e.buf = append(e.buf[:start], e.buf[e.cursor:]...)
	e.cursor = start
}

// KillWord is Ctrl-W: delete the word before the cursor and the spaces after it.
func (e *editor) KillWord() {
	i := e.cursor
	for i > 0 && unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	e.buf = append(e.buf[:i], e.buf[e.cursor:]...)
	e.cursor = i
}

// OnFirstLine and OnLastLine say whether Up/Down should move in history rather than
// between lines.
func (e *editor) OnFirstLine() bool { return e.lineStart() == 0 }
func (e *editor) OnLastLine() bool  { return e.lineEnd() == len(e.buf) }

// Up and Down move the cursor to the same column of the line above or below.
func (e *editor) Up() {
	start := e.lineStart()
	if start == 0 {
		return
	}
	col := e.cursor - start
	prevStart := start - 1
	for prevStart > 0 && e.buf[prevStart-1] != '\n' {
		prevStart--
	}
	e.cursor = min(prevStart+col, start-1)
}

func (e *editor) Down() {
	end := e.lineEnd()
	if end == len(e.buf) {
		return
	}
	col := e.cursor - e.lineStart()
	nextEnd := end + 1
	for nextEnd < len(e.buf) && e.buf[nextEnd] != '\n' {
		nextEnd++
	}
	e.cursor = min(end+1+col, nextEnd)
}

// Layout wraps the text into rows of at most width cells and returns them with the
// cursor's row and cell column. A wide character that does not fit at the end of a
// row moves to the next one whole.
func (e *editor) Layout(width int) (rows []string, curRow, curCol int) {
	width = max(width, 2)
	var row strings.Builder
	w := 0
	flush := func() {
		rows = append(rows, row.String())
		row.Reset()
		w = 0
	}
	for i, r := range e.buf {
		if i == e.cursor {
			curRow, curCol = len(rows), w
		}
		if r == '\n' {
			flush()
			continue
		}
		rw := runewidth.RuneWidth(r)
		if rw == 0 && r < 0x20 {
			r, rw = '?', 1
		}
		if w+rw > width {
			flush()
			if i == e.cursor {
				curRow, curCol = len(rows), 0
			}
		}
		row.WriteRune(r)
		w += rw
	}
	if e.cursor == len(e.buf) {
		if w >= width {
			flush()
		}
		curRow, curCol = len(rows), w
	}
	flush()
	return rows, curRow, curCol
}
