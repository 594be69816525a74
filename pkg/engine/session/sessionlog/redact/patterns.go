package redact

import (
	"regexp"
	"sort"
	"strings"
)

// tokenRule matches one kind of API-key-shaped text. Regexps use unbounded repetition and
// the minimum length is checked in code: Go's regexp engine simulates an NFA whose cost
// grows with counted repetitions such as {20,}. Each rule only runs when its literal
// marker occurs in the text.
type tokenRule struct {
	kind      string // what a match is, for Detect
	marker    string // literal that every match contains
	re        *regexp.Regexp
	prefixLen int  // length of the fixed prefix of a match
	minTail   int  // minimum length after the prefix
	digit     bool // the tail must contain a digit
}

var tokenRules = []tokenRule{
	// Anthropic keys are distinctive enough to need no boundary: "xsk-ant-…" is still a key.
	{kind: "an Anthropic API key", marker: "sk-ant-", re: regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]+`), prefixLen: 7, minTail: 8},
	// OpenAI-style keys (sk-…, sk-proj-…); the digit requirement spares words such as
	// "sk-learn-compatible-estimators".
	{kind: "an OpenAI-style API key", marker: "sk-", re: regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]+`), prefixLen: 3, minTail: 20, digit: true},
	{kind: "a GitHub token", marker: "gh", re: regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]+`), prefixLen: 4, minTail: 20},
	{kind: "a GitHub token", marker: "github_pat_", re: regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]+`), prefixLen: 11, minTail: 20},
	{kind: "a Slack token", marker: "xox", re: regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]+`), prefixLen: 5, minTail: 10},
	{kind: "a Google API key", marker: "AIza", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]+`), prefixLen: 4, minTail: 30},
}

// bearerPattern matches an HTTP bearer credential; group 2 is the token (at least 8
// characters, checked in code).
var bearerPattern = regexp.MustCompile(`\b(?:Bearer|bearer|BEARER)\s+([A-Za-z0-9\-._~+/]+=*)`)

const minBearerToken = 8

// secretWords are lower-case fragments every secret key name contains; pair redaction is
// skipped for text that has none of them.
var secretWords = []string{"key", "token", "secret", "passw", "passphrase", "authoriz", "cookie", "credential"}

// jsonKeyPattern matches a quoted member name and its colon in JSON-like text, also with
// escaped quotes (JSON text embedded in JSON text). Group 1 is the name; the value that
// follows is scanned by quotedValueEnd.
var jsonKeyPattern = regexp.MustCompile(`\\*"([A-Za-z0-9_.\-]+)\\*"\s*:\s*`)

// assignPattern matches KEY=value (environment variables, query strings, flags).
// Groups: 1 key, 2 value.
var assignPattern = regexp.MustCompile(`\b([A-Za-z0-9_.\-]+)=([^\s&;,'"]+)`)

// redactPatterns replaces the secrets pattern matching finds in s.
func redactPatterns(s string) string {
	if s == "" {
		return s
	}
	for _, r := range tokenRules {
		if !strings.Contains(s, r.marker) {
			continue
		}
		s = replaceMatches(s, r.re, func(m []int) (int, int, bool) {
			tail := s[m[0]+r.prefixLen : m[1]]
			return m[0], m[1], len(tail) >= r.minTail && (!r.digit || hasDigit(tail))
		})
	}
	if strings.Contains(s, "earer") || strings.Contains(s, "EARER") {
		s = replaceMatches(s, bearerPattern, func(m []int) (int, int, bool) {
			return m[2], m[3], m[3]-m[2] >= minBearerToken
		})
	}
	return redactPairs(s)
}

// replaceMatches replaces, for every match of re in s, the span pick returns (when it
// says so) with Placeholder.
func replaceMatches(s string, re *regexp.Regexp, pick func(m []int) (start, end int, ok bool)) string {
	matches := re.FindAllStringSubmatchIndex(s, -1)
	var b strings.Builder
	last := 0
	for _, m := range matches {
		start, end, ok := pick(m)
		if !ok {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Placeholder)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

type span struct{ start, end int }

// redactPairs replaces the values of secret-named "key": value and KEY=value pairs.
func redactPairs(s string) string {
	if !strings.ContainsAny(s, ":=") || !containsSecretWord(s) {
		return s
	}
	var spans []span
	for _, m := range jsonKeyPattern.FindAllStringSubmatchIndex(s, -1) {
		if !IsSecretKey(s[m[2]:m[3]]) {
			continue
		}
		if end := valueEnd(s, m[1]); end > m[1] {
			spans = append(spans, span{m[1], end})
		}
	}
	for _, m := range assignPattern.FindAllStringSubmatchIndex(s, -1) {
		if IsSecretKey(s[m[2]:m[3]]) {
			spans = append(spans, span{m[4], m[5]})
		}
	}
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			continue // overlaps a span already replaced
		}
		val := s[sp.start:sp.end]
		if !pairValueHidesSomething(val) {
			continue
		}
		b.WriteString(s[last:sp.start])
		b.WriteString(quoteLike(val, Placeholder))
		last = sp.end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// valueEnd returns the end of the JSON-like value starting at i: a run of digits, or a
// string quoted with n backslashes before its quotes (0 for plain JSON, 1 for JSON inside
// a JSON string, …) that ends at the first quote preceded by exactly n backslashes. An
// unterminated string runs to the end of s (truncated text still hides its tail).
func valueEnd(s string, i int) int {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > i {
		return j
	}
	n := 0
	for j < len(s) && s[j] == '\\' {
		n++
		j++
	}
	if j >= len(s) || s[j] != '"' {
		return i
	}
	for k := j + 1; k < len(s); k++ {
		if s[k] != '"' {
			continue
		}
		bs := 0
		for p := k - 1; p > j && s[p] == '\\'; p-- {
			bs++
		}
		if bs == n || (n == 0 && bs%2 == 0) {
			return k + 1
		}
	}
	return len(s)
}

// pairValueHidesSomething is false for empty quoted values and already-redacted ones.
func pairValueHidesSomething(val string) bool {
	inner := strings.Trim(val, `\"`)
	return inner != "" && inner != Placeholder && !strings.EqualFold(inner, "null") &&
		!strings.EqualFold(inner, "true") && !strings.EqualFold(inner, "false")
}

// quoteLike wraps replacement in the same quoting (plain or backslash-escaped) as val.
func quoteLike(val, replacement string) string {
	i := strings.IndexByte(val, '"')
	if i < 0 {
		return replacement
	}
	open := val[:i+1]
	return open + replacement + open
}

func containsSecretWord(s string) bool {
	// Short ASCII text (most strings of a log line) is searched in place; Unicode case
	// folding can make ASCII letters ("\u212a" is "k"), and long text is faster lowered.
	if len(s) > 256 || !ascii(s) {
		lower := strings.ToLower(s)
		for _, w := range secretWords {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	for _, w := range secretWords {
		if containsFoldASCII(s, w) {
			return true
		}
	}
	return false
}

// containsFoldASCII reports whether ASCII s contains the lower-case ASCII word w, ignoring
// case (strings.ToLower without its copy of s).
func containsFoldASCII(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for ; j < len(w); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}
