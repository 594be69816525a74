package contextload

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseImports(t *testing.T) {
	in := strings.Join([]string{
		"@README.md at the start, @docs/a.md, and (@b.md) is not after white space",
		"mail me@example.com; mention @someone; code `@c.md` and ``@d.md ` still code``",
		"  ```go",
		"@fenced.md",
		"  ```",
		"~~~~",
		"@tilde-fenced.md",
		"```",
		"@still-fenced.md",
		"~~~~",
		"after @~/notes.md and @/abs/e.md. Trailing `` unmatched @f.md",
	}, "\n")
	var got []string
	for _, r := range ParseImports(in) {
		got = append(got, r.target+"@"+string(rune('0'+r.line)))
	}
	want := []string{"README.md@1", "docs/a.md,@1", "~/notes.md@;", "/abs/e.md.@;", "f.md@;"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStripCodeSpans(t *testing.T) {
	for in, want := range map[string]string{
		"a `b` c":           "a     c",
		"``a ` b`` c":       "          c",
		"` unmatched":       "` unmatched",
		"`` x ` y `` `z`":   "               ",
		"```a`` b``` @c.md": "            @c.md",
	} {
		if got := stripCodeSpans(in); got != want {
			t.Errorf("stripCodeSpans(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkStripCodeSpansPathological(b *testing.B) {
	var sb strings.Builder
	for n := 1; sb.Len() < 1<<20; n++ {
		sb.WriteString(strings.Repeat("`", n))
		sb.WriteString(" x ")
	}
	line := sb.String()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		stripCodeSpans(line)
	}
}
