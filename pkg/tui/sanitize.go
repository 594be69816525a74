package tui

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes text from the model or a tool safe to print: invalid UTF-8 becomes
// U+FFFD, ESC and the other C0/C1 control characters are shown in caret notation (^[)
// so no escape sequence reaches the terminal, CRLF becomes LF and a lone CR starts a
// new line, tabs become spaces (their width is then known). Newlines are kept.
func Sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				break // CRLF: the LF follows
			}
			b.WriteByte('\n')
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case r >= 0x80 && r < 0xa0: // C1 controls (CSI, OSC ... as one code point)
			b.WriteString("^?")
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain reports whether s is valid UTF-8 without control characters other than LF.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			if !utf8.ValidString(s[i:]) {
				return false
			}
			for _, r := range s[i:] {
				if r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 {
					return false
				}
			}
			return true
		}
	}
	return true
}
