package wordstats

import "testing"

func TestCountWords(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"one", 1},
		{"two words", 2},
		{"  spaced   out  ", 2},
		{"tabs\tand\nnewlines", 3},
	}
	for _, tt := range tests {
		if got := CountWords(tt.in); got != tt.want {
			t.Errorf("CountWords(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestLongest(t *testing.T) {
	if got := Longest("a quick brown fox"); got != "quick" {
		t.Errorf("Longest = %q, want quick", got)
	}
}
