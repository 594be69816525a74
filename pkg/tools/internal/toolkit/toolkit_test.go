package toolkit

import (
	"github.com/robota-sdk/robota-go/pkg/engine/llm/tooloutput"
	"strings"
	"testing"
)

func TestTruncateMiddle(t *testing.T) {
	for _, tc := range []struct {
		in        string
		max       int
		want      string
		truncated bool
	}{
		{"short", 10, "short", false},
		{"0123456789", 10, "0123456789", false},
		{"0123456789AB", 10, "01234" + tooloutput.Marker(2) + "789AB", true},
		{"ééééééé", 4, "éé" + tooloutput.Marker(3) + "éé", true},
		{"abcde", 3, "a" + tooloutput.Marker(2) + "de", true},
	} {
		got, truncated := TruncateMiddle(tc.in, tc.max)
		if got != tc.want || truncated != tc.truncated {
			t.Errorf("TruncateMiddle(%q, %d) = %q, %v; want %q, %v", tc.in, tc.max, got, truncated, tc.want, tc.truncated)
		}
	}
	if !strings.Contains(tooloutput.Marker(7), "[7 characters truncated]") {
		t.Fatalf("marker %q does not say how much was cut", tooloutput.Marker(7))
	}
}

func TestTruncateLine(t *testing.T) {
	if got := TruncateLine("abcdef", 6); got != "abcdef" {
		t.Fatalf("got %q", got)
	}
	if got := TruncateLine("ééééé", 2); got != "éé... [3 characters truncated]" {
		t.Fatalf("got %q", got)
	}
}
