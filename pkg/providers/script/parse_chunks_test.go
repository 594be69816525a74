package script

import (
	"slices"
	"testing"
)

func TestSplitChunksBySize(t *testing.T) {
	tests := []struct {
		text string
		size int
		want []string
	}{
		{"", 3, nil},
		{"abcdefg", 3, []string{"abc", "def", "g"}},
		{"abcdef", 3, []string{"abc", "def"}},
		{"héllo wörld", 4, []string{"héll", "o wö", "rld"}},
		{"日本語テキスト", 2, []string{"日本", "語テ", "キス", "ト"}},
		{"ab", 5, []string{"ab"}},
		{"hello  world", 0, []string{"hello  ", "world"}},
	}
	for _, tt := range tests {
		if got := splitChunks(tt.text, tt.size); !slices.Equal(got, tt.want) {
			t.Errorf("splitChunks(%q, %d) = %q, want %q", tt.text, tt.size, got, tt.want)
		}
	}
}
