package tui

import (
	"strings"
	"testing"
)

func TestMarkdownRender(t *testing.T) {
	md := markdown{}
	in := "# Title\n\nSome **bold** and `code` text.\n\n- one\n- two\n  1. nested\n\n```go\nfunc main() {}\n```\n\n> quoted\n\nA [link](https://example.com)."
	want := strings.Join([]string{
		"# Title",
		"",
		"Some bold and code text.",
		"",
		"• one",
		"• two",
		"  1. nested",
		"",
		"  func main() {}",
		"",
		"│ quoted",
		"",
		"A link (https://example.com).",
	}, "\n")
	if got := md.render(in, 60); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMarkdownWrapsAndSanitizes(t *testing.T) {
	md := markdown{color: true}
	got := md.render("evil \x1b]0;title\x07 and a very long line that must wrap at the given width", 20)
	if strings.Contains(got, "\x1b]") || strings.Contains(got, "\x07") {
		t.Fatalf("an escape from the model reached the output: %q", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if w := displayWidth(l); w > 20 {
			t.Fatalf("line %q is %d cells wide", l, w)
		}
	}
}
