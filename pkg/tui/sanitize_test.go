package tui

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "hello\nworld", "hello\nworld"},
		{"cjk", "한국어 日本語", "한국어 日本語"},
		{"csi", "a\x1b[31mred\x1b[0m", "a^[[31mred^[[0m"},
		{"osc title", "\x1b]0;pwned\x07x", "^[]0;pwned^Gx"},
		{"c1 csi", "a\u009b31mb", "a^?31mb"},
		{"crlf", "a\r\nb", "a\nb"},
		{"lone cr", "10%\r20%", "10%\n20%"},
		{"tab", "a\tb", "a    b"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"del", "a\x7fb", "a^?b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Sanitize(c.in); got != c.want {
				t.Fatalf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "a\x1b[2J", "\xff\xfe", "日本\r\n", "\u009b1m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Sanitize(s)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range got {
			if r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 {
				t.Fatalf("control %U left in %q", r, got)
			}
		}
		if strings.Contains(got, "\x1b") {
			t.Fatal("ESC left")
		}
	})
}
