package redact

import (
	"regexp"
	"sort"
	"strings"
)

// tokenPatterns match API-key-shaped text. Each match is replaced whole by Placeholder,
// except Bearer, whose scheme word is kept so the text stays readable.
var tokenPatterns = []*regexp.Regexp{
	// Anthropic keys are distinctive enough to need no boundary: "xsk-ant-…" is still a key.
	regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{8,}`),
	// OpenAI-style keys (sk-…, sk-proj-…); a digit is required (see hasDigit) so words like
	// "sk-learn-compatible-estimators" survive.
	regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{20,}`),
	regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{30,}`),
}

// bearerPattern matches an HTTP bearer credential; group 2 is the token.
var bearerPattern = regexp.MustCompile(`\b(Bearer|bearer|BEARER)\s+([A-Za-z0-9\-._~+/]{8,}=*)`)

// jsonKeyPattern matches a quoted member name and its colon in JSON-like text, also with
// escaped quotes (JSON text embedded in JSON text). Group 1 is the name; the value that
// follows is scanned by quotedValueEnd.
var jsonKeyPattern = regexp.MustCompile(`\\*"([A-Za-z0-9_.\-]{1,64})\\*"\s*:\s*`)

// assignPattern matches KEY=value (environment variables, query strings, flags).
// Groups: 1 key, 2 value.
var assignPattern = regexp.MustCompile(`\b([A-Za-z0-9_.\-]{1,64})=([^\s&;,'"]+)`)

// redactPatterns replaces the secrets pattern matching finds in s.
func redactPatterns(s string) string {
	if s == "" {
		return s
	}
	for i, re := range tokenPatterns {
		requireDigit := i == 1
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if requireDigit && !hasDigit(m[len("sk-"):]) {
				return m
			}
			return Placeholder
		})
	}
	s = bearerPattern.ReplaceAllString(s, "$1 "+Placeholder)
	return redactPairs(s)
}

type span struct{ start, end int }

// redactPairs replaces the values of secret-named "key": value and KEY=value pairs.
func redactPairs(s string) string {
	if !strings.ContainsAny(s, ":=") {
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

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}
