package fs

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

// FuzzReplace checks Edit's matching on arbitrary content: a refusal changes nothing and is
// one of the known reasons with the right count; a success changes exactly the matched
// occurrences (text before the first match is untouched, startLine is that match's line),
// and the unified diff Edit reports turns the old content into the new one.
func FuzzReplace(f *testing.F) {
	for _, s := range []struct {
		content, old, new string
		all               bool
	}{
		{"a\nb\nc\n", "b", "B", false},
		{"foo foo", "foo", "bar", false},
		{"foo foo", "foo", "bar", true},
		{"x", "y", "z", false},
		{"same", "same", "same", false},
		{"one\r\ntwo\r\n", "one\ntwo", "1\n2", false},
		{"aaa", "aa", "a", true},
		{"no newline at end", "end", "finish\n", false},
		{"", "", "new", false},
		{"\n\n\n", "\n", "", true},
	} {
		f.Add(s.content, s.old, s.new, s.all)
	}
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		r, err := replace(content, old, new, all)
		if err != nil {
			switch {
			case errors.Is(err, errNoChange):
				if old != new {
					t.Fatalf("errNoChange for different strings %q %q", old, new)
				}
			case errors.Is(err, errEmptyMatch):
				if old != "" {
					t.Fatalf("errEmptyMatch for %q", old)
				}
			case errors.Is(err, errNoMatch):
				if strings.Contains(content, old) {
					t.Fatalf("errNoMatch but %q contains %q", content, old)
				}
			case errors.Is(err, errAmbiguous):
				if all || r.matches < 2 {
					t.Fatalf("errAmbiguous with all=%v matches=%d", all, r.matches)
				}
			default:
				t.Fatalf("unexpected error %v", err)
			}
			if r.content != "" {
				t.Fatalf("refusal carried content %q", r.content)
			}
			return
		}
		matchOld, matchNew := old, new
		if r.crlf {
			matchOld, matchNew = toCRLF(old), toCRLF(new)
		}
		first := strings.Index(content, matchOld)
		if first < 0 {
			t.Fatalf("success, but %q does not contain %q", content, matchOld)
		}
		n := strings.Count(content, matchOld)
		if !all && n != 1 || r.count != n {
			t.Fatalf("count = %d, occurrences = %d, all = %v", r.count, n, all)
		}
		if !strings.HasPrefix(r.content, content[:first]+matchNew) {
			t.Fatalf("text before the first match changed or replacement missing")
		}
		if want := 1 + strings.Count(content[:first], "\n"); r.startLine != want {
			t.Fatalf("startLine = %d, want %d", r.startLine, want)
		}
		if !all && r.content != content[:first]+matchNew+content[first+len(matchOld):] {
			t.Fatalf("single replacement touched more than the match")
		}
		diff := udiff.Unified("f", "f", content, r.content)
		applied, err := applyUnified(diff, content)
		if err != nil {
			t.Fatalf("reported diff does not apply: %v\n%s", err, diff)
		}
		if applied != r.content {
			t.Fatalf("reported diff yields %q, want %q", applied, r.content)
		}
	})
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@`)

// applyUnified is an independent oracle for the diffs Edit reports: it applies a unified
// diff (with "\\ No newline at end of file" markers) to old, checking every context and
// removed line.
func applyUnified(diff, old string) (string, error) {
	oldLines := strings.SplitAfter(old, "\n")
	if oldLines[len(oldLines)-1] == "" {
		oldLines = oldLines[:len(oldLines)-1]
	}
	type line struct {
		op   byte
		text string
	}
	var body []line
	for _, l := range strings.SplitAfter(diff, "\n") {
		switch {
		case l == "" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "\\"):
			if len(body) == 0 {
				return "", fmt.Errorf("marker before any line")
			}
			body[len(body)-1].text = strings.TrimSuffix(body[len(body)-1].text, "\n")
		case strings.HasPrefix(l, "@@"):
			m := hunkHeader.FindStringSubmatch(l)
			if m == nil {
				return "", fmt.Errorf("bad hunk header %q", l)
			}
			a, _ := strconv.Atoi(m[1])
			start := a - 1
			if m[2] == "0" { // an empty old range names the line before it
				start = a
			}
			body = append(body, line{op: '@', text: fmt.Sprint(start)})
		default:
			body = append(body, line{op: l[0], text: l[1:]})
		}
	}
	var out strings.Builder
	pos := 0
	for _, l := range body {
		switch l.op {
		case '@':
			var start int
			fmt.Sscan(l.text, &start)
			if start < pos || start > len(oldLines) {
				return "", fmt.Errorf("hunk at line %d out of order", start+1)
			}
			for ; pos < start; pos++ {
				out.WriteString(oldLines[pos])
			}
		case ' ', '-':
			if pos >= len(oldLines) || oldLines[pos] != l.text {
				return "", fmt.Errorf("line %d does not match %q", pos+1, l.text)
			}
			if l.op == ' ' {
				out.WriteString(l.text)
			}
			pos++
		case '+':
			out.WriteString(l.text)
		default:
			return "", fmt.Errorf("unknown diff line op %q", l.op)
		}
	}
	for ; pos < len(oldLines); pos++ {
		out.WriteString(oldLines[pos])
	}
	return out.String(), nil
}
