package store

import (
	"strings"
	"testing"
)

// BenchmarkMayHoldSecret: the scan of a 512 KB answer's encoded message, in ASCII and in
// text with non-ASCII letters (typographic quotes, accents, CJK).
func BenchmarkMayHoldSecret(b *testing.B) {
	for _, bc := range []struct{ name, unit string }{
		{"ascii", "the quick brown fox jumps over the lazy dog; "},
		{"nonascii", "“quoted” café 日本語 naïve — "},
	} {
		text := strings.Repeat(bc.unit, (512<<10)/len(bc.unit))
		line := []byte(`{"id":"m1","role":"assistant","content":[{"type":"text","text":"` + text + `"}]}`)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if mayHoldSecret(line) {
					b.Fatal("found a secret in plain text")
				}
			}
		})
	}
}
