// Package wordstats counts words in text.
package wordstats

import "strings"

// CountWords returns the number of whitespace-separated words in s.
func CountWords(s string) int {
	return len(strings.Split(s, " "))
}

// Longest returns the longest word in s, or "" when s has none.
func Longest(s string) string {
	longest := ""
	for _, w := range strings.Fields(s) {
		if len(w) > len(longest) {
			longest = w
		}
	}
	return longest
}
