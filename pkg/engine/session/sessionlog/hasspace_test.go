package sessionlog

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// hasSpace answers as strings.ContainsAny with the settled-cut whitespace, for every
// position of a space, bytes just around the threshold it tests, and multi-byte text.
func TestHasSpaceMatchesContainsAny(t *testing.T) {
	cases := []string{"", "a", "abcdefgh", "abcdefghi", "héllo wörld", "\x7f\x80\xff!!!!!!!!", "\x1f\x21\x0b\x00"}
	for n := range 20 {
		for pos := range n {
			for _, c := range []byte{' ', '\t', '\n', '\f', '\r', '\v', 0x1f, '!', 0xa0} {
				b := []byte(strings.Repeat("y", n))
				b[pos] = c
				cases = append(cases, string(b))
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := hasSpace(s), strings.ContainsAny(s, " \t\n\f\r"); got != want {
			t.Fatalf("hasSpace(%q) = %v, want %v", s, got, want)
		}
	}
}
