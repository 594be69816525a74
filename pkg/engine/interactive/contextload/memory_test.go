package contextload

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapMemory(t *testing.T) {
	lines := func(n, width int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%-*s\n", width-1, fmt.Sprintf("line %d", i+1))
		}
		return b.String()
	}
	tests := []struct {
		name      string
		in        string
		wantLines int
		wantBytes int
		truncated bool
	}{
		{"small", "- a\n- b\n", 2, 8, false},
		{"no final newline", "- a\n- b", 2, 7, false},
		{"exactly 200 lines", lines(200, 10), 200, 2000, false},
		{"line cap", lines(250, 10), 200, 2000, true},
		{"byte cap at a line end", lines(150, 300), 85, 85 * 300, true},
		{"byte cap before line cap", lines(199, 200), 128, 128 * 200, true},
		{"one huge line of multibyte runes", strings.Repeat("한", 10000), 1, 8533 * 3, true},
		{"empty", "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := CapMemory(tt.in)
			if got := countLines(m.Content); got != tt.wantLines {
				t.Errorf("lines = %d, want %d", got, tt.wantLines)
			}
			if len(m.Content) != tt.wantBytes {
				t.Errorf("bytes = %d, want %d", len(m.Content), tt.wantBytes)
			}
			if m.Truncated != tt.truncated {
				t.Errorf("truncated = %v", m.Truncated)
			}
			if len(m.Content) > MemoryMaxBytes || countLines(m.Content) > MemoryMaxLines {
				t.Errorf("cap exceeded: %d bytes, %d lines", len(m.Content), countLines(m.Content))
			}
			if !strings.HasPrefix(tt.in, m.Content) || !utf8.ValidString(m.Content) {
				t.Errorf("content is not a valid prefix of the file")
			}
			if m.TotalBytes != len(tt.in) || m.TotalLines != countLines(tt.in) {
				t.Errorf("totals %d bytes %d lines", m.TotalBytes, m.TotalLines)
			}
		})
	}
}

func TestMemoryCapInPrompt(t *testing.T) {
	tmp := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "- fact %d\n", i)
	}
	tree(t, tmp, map[string]string{
		"p/.robota/memory/MEMORY.md":       b.String(),
		"p/.robota/memory/topics/build.md": "topic files are not injected at startup\n",
	})
	c, err := Load(Options{Cwd: filepath.Join(tmp, "p"), StopAt: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Memory.Truncated || c.Memory.TotalLines != 300 || countLines(c.Memory.Content) != 200 {
		t.Fatalf("memory = %+v", c.Memory)
	}
	prompt := BuildSystemPrompt(PromptInput{Context: c, Now: fixedClock, Platform: "linux/amd64"})
	for _, want := range []string{"# Project Memory\n\n- fact 1\n", "- fact 200\n", "[truncated: 200 of 300 lines, 2092 of 3192 bytes shown]"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	for _, absent := range []string{"- fact 201\n", "topic files"} {
		if strings.Contains(prompt, absent) {
			t.Errorf("prompt contains %q", absent)
		}
	}
}
