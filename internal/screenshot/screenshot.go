// Package screenshot renders a terminal capture (tmux capture-pane -e -p: text with SGR
// colour sequences) to a PNG, for the README's pictures of the TUI. It understands what
// tmux emits: the 16, 256 and 24-bit colours, bold, reverse and reset; other escape
// sequences are dropped. Wide characters take two cells.
package screenshot

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Theme is the terminal's colours.
var (
	background = color.RGBA{0x1e, 0x1e, 0x2e, 0xff}
	foreground = color.RGBA{0xd8, 0xd8, 0xe0, 0xff}
	// ansi16 are the 16 basic colours (a dark theme).
	ansi16 = [16]color.RGBA{
		{0x45, 0x47, 0x5a, 0xff}, {0xf3, 0x8b, 0xa8, 0xff}, {0xa6, 0xe3, 0xa1, 0xff}, {0xf9, 0xe2, 0xaf, 0xff},
		{0x89, 0xb4, 0xfa, 0xff}, {0xcb, 0xa6, 0xf7, 0xff}, {0x94, 0xe2, 0xd5, 0xff}, {0xba, 0xc2, 0xde, 0xff},
		{0x7f, 0x84, 0x9c, 0xff}, {0xf3, 0x8b, 0xa8, 0xff}, {0xa6, 0xe3, 0xa1, 0xff}, {0xf9, 0xe2, 0xaf, 0xff},
		{0x89, 0xb4, 0xfa, 0xff}, {0xcb, 0xa6, 0xf7, 0xff}, {0x94, 0xe2, 0xd5, 0xff}, {0xf5, 0xf5, 0xf5, 0xff},
	}
)

// cell is one character cell.
type cell struct {
	r      rune
	fg, bg color.RGBA
	bold   bool
	wide   bool // the first of two cells
	cont   bool // the second cell of a wide character
}

// style is the SGR state while parsing.
type style struct {
	fg, bg        color.RGBA
	bold, reverse bool
}

func defaultStyle() style { return style{fg: foreground, bg: background} }

// Parse reads a capture into rows of cells, cols wide (longer lines are cut).
func Parse(capture string, cols int) [][]cell {
	var rows [][]cell
	for _, line := range strings.Split(strings.TrimRight(capture, "\n"), "\n") {
		row := make([]cell, 0, cols)
		st := defaultStyle()
		for i := 0; i < len(line); {
			if line[i] == 0x1b {
				n := escapeLen(line[i:])
				if n > 2 && line[i+1] == '[' && line[i+n-1] == 'm' {
					st = applySGR(st, line[i+2:i+n-1])
				}
				i += n
				continue
			}
			r, size := decodeRune(line[i:])
			i += size
			if r < 0x20 {
				continue
			}
			w := runewidth.RuneWidth(r)
			if w == 0 || len(row)+w > cols {
				continue
			}
			fg, bg := st.fg, st.bg
			if st.reverse {
				fg, bg = bg, fg
			}
			row = append(row, cell{r: r, fg: fg, bg: bg, bold: st.bold, wide: w == 2})
			if w == 2 {
				row = append(row, cell{cont: true, fg: fg, bg: bg})
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func decodeRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 1
}

// escapeLen is the length of the escape sequence at the start of s.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
	case ']':
		if i := strings.IndexByte(s, 0x07); i >= 0 {
			return i + 1
		}
		if i := strings.Index(s, "\x1b\\"); i >= 0 {
			return i + 2
		}
	}
	return min(2, len(s))
}

func applySGR(st style, params string) style {
	if params == "" {
		return defaultStyle()
	}
	ps := strings.Split(strings.ReplaceAll(params, ":", ";"), ";")
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			st = defaultStyle()
		case n == 1:
			st.bold = true
		case n == 22:
			st.bold = false
		case n == 7:
			st.reverse = true
		case n == 27:
			st.reverse = false
		case n >= 30 && n <= 37:
			st.fg = ansi16[n-30]
		case n >= 90 && n <= 97:
			st.fg = ansi16[n-90+8]
		case n == 39:
			st.fg = foreground
		case n >= 40 && n <= 47:
			st.bg = ansi16[n-40]
		case n >= 100 && n <= 107:
			st.bg = ansi16[n-100+8]
		case n == 49:
			st.bg = background
		case (n == 38 || n == 48) && i+1 < len(ps):
			var c color.RGBA
			switch ps[i+1] {
			case "5":
				if i+2 < len(ps) {
					k, _ := strconv.Atoi(ps[i+2])
					c = xterm256(k)
					i += 2
				}
			case "2":
				if i+4 < len(ps) {
					r, _ := strconv.Atoi(ps[i+2])
					g, _ := strconv.Atoi(ps[i+3])
					b, _ := strconv.Atoi(ps[i+4])
					c = color.RGBA{uint8(r), uint8(g), uint8(b), 0xff}
					i += 4
				}
			}
			if n == 38 {
				st.fg = c
			} else {
				st.bg = c
			}
		}
	}
	return st
}

// xterm256 is colour k of the xterm 256-colour palette.
func xterm256(k int) color.RGBA {
	switch {
	case k < 16:
		return ansi16[max(k, 0)]
	case k < 232:
		k -= 16
		level := func(v int) uint8 {
			if v == 0 {
				return 0
			}
			return uint8(55 + 40*v)
		}
		return color.RGBA{level(k / 36), level(k / 6 % 6), level(k % 6), 0xff}
	case k < 256:
		g := uint8(8 + 10*(k-232))
		return color.RGBA{g, g, g, 0xff}
	}
	return foreground
}

// Render draws the capture, cols×rows cells, as a PNG to w.
func Render(w io.Writer, capture string, cols, rows int) error {
	regular, err := face(gomono.TTF)
	if err != nil {
		return err
	}
	bold, err := face(gomonobold.TTF)
	if err != nil {
		return err
	}
	adv, _ := regular.GlyphAdvance('M')
	cw, ch := adv.Ceil(), regular.Metrics().Height.Ceil()+2
	ascent := regular.Metrics().Ascent.Ceil()
	const pad = 12
	img := image.NewRGBA(image.Rect(0, 0, cols*cw+2*pad, rows*ch+2*pad))
	draw.Draw(img, img.Bounds(), image.NewUniform(background), image.Point{}, draw.Src)
	for y, row := range Parse(capture, cols) {
		if y >= rows {
			break
		}
		for x, c := range row {
			if c.cont {
				continue
			}
			width := cw
			if c.wide {
				width = 2 * cw
			}
			cellRect := image.Rect(pad+x*cw, pad+y*ch, pad+x*cw+width, pad+(y+1)*ch)
			if c.bg != background {
				draw.Draw(img, cellRect, image.NewUniform(c.bg), image.Point{}, draw.Src)
			}
			if c.r == ' ' {
				continue
			}
			f := regular
			if c.bold {
				f = bold
			}
			r := c.r
			if _, ok := f.GlyphAdvance(r); !ok {
				r = fallback(r)
			}
			d := font.Drawer{Dst: img, Src: image.NewUniform(c.fg), Face: f,
				Dot: fixed.P(pad+x*cw, pad+y*ch+ascent+1)}
			d.DrawString(string(r))
		}
	}
	return png.Encode(w, img)
}

func face(ttf []byte) (font.Face, error) {
	f, err := opentype.Parse(ttf)
	if err != nil {
		return nil, err
	}
	return opentype.NewFace(f, &opentype.FaceOptions{Size: 14, DPI: 72, Hinting: font.HintingFull})
}

// fallback draws a symbol the font lacks as the nearest one it has (Go Mono has no
// dingbats): the UI's markers stay recognisable.
func fallback(r rune) rune {
	switch r {
	case '⏺', '◼', '⏵':
		return '•'
	case '⎿':
		return '└'
	case '❯', '⏸':
		return '>'
	case '✻', '✢', '✳', '✶', '✽', '·':
		return '*'
	case '⧗':
		return '~'
	case '✗':
		return 'x'
	}
	return '?'
}
