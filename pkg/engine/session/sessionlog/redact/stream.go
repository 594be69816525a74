package redact

import "strings"

// SettledPrefix is for text that is still arriving, such as a model's streamed answer.
// It returns n, the length of the longest prefix of s that ends with ASCII whitespace and
// that no continuation can change the redaction of: for every x, String(s+x) begins with
// s[:n] unless secret is set. secret reports that s[:n] itself holds something String
// redacts (the caller must then treat the whole text as secret-bearing).
//
// Why the prefix is settled: every key pattern matches a run of non-whitespace characters
// (or, for a bearer token or a "key": value pair, the value after the whitespace that
// follows its name), so a secret that is not complete yet lies entirely after the last
// whitespace of s; a quoted pair value that starts before the cut is already redacted in
// s[:n], because an unterminated value runs to the end of the text. Only a text that is
// one JSON document is redacted as a whole (and re-encoded), so a text that starts like
// one (after leading whitespace) has no settled prefix until it is complete, nor has
// whitespace alone.
func SettledPrefix(s string) (n int, secret bool) {
	trimmed := strings.TrimLeft(s, asciiSpace)
	if trimmed == "" || trimmed[0] == '{' || trimmed[0] == '[' {
		return 0, false
	}
	// The regexps' \s is ASCII whitespace; other spaces (U+00A0, …) may sit inside a
	// KEY=value value, so they are no cut.
	n = strings.LastIndexAny(s, asciiSpace) + 1
	if n == 0 {
		return 0, false
	}
	prefix := s[:n]
	return n, String(prefix) != prefix
}

// asciiSpace is what RE2's \s matches.
const asciiSpace = " \t\n\f\r"
