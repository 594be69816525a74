package redact

import (
	"sort"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// tokenRule matches one kind of API-key-shaped text. Regexps use unbounded repetition and
// the minimum length is checked in code: Go's regexp engine simulates an NFA whose cost
// grows with counted repetitions such as {20,}. Each rule only runs when its literal
// marker occurs in the text.
type tokenRule struct {
	kind      string // what a match is, for Detect
	marker    string // literal that every match contains
	re        *lazy.Regexp
	prefixLen int  // length of the fixed prefix of a match
	minTail   int  // minimum length after the prefix
	digit     bool // the tail must contain a digit
	gate      gate // a byte every match contains (see gates)
}

// The expressions here are compiled on first use (internal/lazy), not in a package init:
// robota pays every init on every command (issue 29).
var tokenRules = []tokenRule{
	// Anthropic keys are distinctive enough to need no boundary: "xsk-ant-…" is still a key.
	{kind: "an Anthropic API key", marker: "sk-ant-", re: lazy.NewRegexp(`sk-ant-[A-Za-z0-9_\-]+`), prefixLen: 7, minTail: 8, gate: gateDash},
	// OpenAI-style keys (sk-…, sk-proj-…); the digit requirement spares words such as
	// "sk-learn-compatible-estimators".
	{kind: "an OpenAI-style API key", marker: "sk-", re: lazy.NewRegexp(`\bsk-[A-Za-z0-9_\-]+`), prefixLen: 3, minTail: 20, digit: true, gate: gateDash},
	{kind: "a GitHub token", marker: "gh", re: lazy.NewRegexp(`\bgh[pousr]_[A-Za-z0-9]+`), prefixLen: 4, minTail: 20, gate: gateUnderscore},
	{kind: "a GitHub token", marker: "github_pat_", re: lazy.NewRegexp(`\bgithub_pat_[A-Za-z0-9_]+`), prefixLen: 11, minTail: 20, gate: gateUnderscore},
	{kind: "a Slack token", marker: "xox", re: lazy.NewRegexp(`\bxox[abprs]-[A-Za-z0-9\-]+`), prefixLen: 5, minTail: 10, gate: gateDash},
	{kind: "a Google API key", marker: "AIza", re: lazy.NewRegexp(`\bAIza[0-9A-Za-z_\-]+`), prefixLen: 4, minTail: 30, gate: gateA},
}

// bearerPattern matches an HTTP bearer credential; group 2 is the token (at least 8
// characters, checked in code).
var bearerPattern = lazy.NewRegexp(`\b(?:Bearer|bearer|BEARER)\s+([A-Za-z0-9\-._~+/]+=*)`)

const minBearerToken = 8

// secretWords are lower-case fragments every secret key name contains; pair redaction is
// skipped for text that has none of them.
var secretWords = []string{"key", "token", "secret", "passw", "passphrase", "authoriz", "cookie", "credential"}

// jsonKeyPattern matches a quoted member name and its colon in JSON-like text, also with
// escaped quotes (JSON text embedded in JSON text). Group 1 is the name; the value that
// follows is scanned by quotedValueEnd.
var jsonKeyPattern = lazy.NewRegexp(`\\*"([A-Za-z0-9_.\-]+)\\*"\s*:\s*`)

// assignPattern matches KEY=value (environment variables, query strings, flags).
// Groups: 1 key, 2 value.
var assignPattern = lazy.NewRegexp(`\b([A-Za-z0-9_.\-]+)=([^\s&;,'"]+)`)

// gate is a set of bytes found in a text, each of which some pattern needs: a pattern
// whose byte is absent cannot match. Most strings of a log line (identifiers, member
// names, roles, short words) hold none of them and are passed over in one look at
// their bytes instead of a search per pattern.
type gate uint8

const (
	gateDash       gate = 1 << iota // sk-ant-, sk-, xox…-
	gateUnderscore                  // gh…_, github_pat_
	gateA                           // AIza
	gateSpace                       // a bearer token follows its scheme after \s
	gatePair                        // ':' or '=' of a "key": value or KEY=value pair
)

var gateOf = [256]gate{'-': gateDash, '_': gateUnderscore, 'A': gateA,
	' ': gateSpace, '\t': gateSpace, '\n': gateSpace, '\f': gateSpace, '\r': gateSpace,
	':': gatePair, '=': gatePair}

// maxGatedLength bounds the texts whose bytes are looked at one by one: the searches of
// a long text run on vectorized code and are cheaper than the loop.
const maxGatedLength = 512

// gates returns the gates of s's bytes. A long s is searched for each byte (on
// vectorized code) but whitespace, which a long text holds anyway. Redaction only
// inserts Placeholder, which holds no gate byte but 'A', and no "AIza" can form across
// its ends ('[' and ']'), so the gates of a text hold for its redacted forms too.
func gates(s string) gate {
	if len(s) > maxGatedLength {
		g := gateSpace
		for _, c := range [...]struct {
			b byte
			g gate
		}{{'-', gateDash}, {'_', gateUnderscore}, {'A', gateA}, {':', gatePair}, {'=', gatePair}} {
			if g&c.g == 0 && strings.IndexByte(s, c.b) >= 0 {
				g |= c.g
			}
		}
		return g
	}
	var g gate
	for i := 0; i < len(s); i++ {
		g |= gateOf[s[i]]
	}
	return g
}

// redactPatterns replaces the secrets pattern matching finds in s.
func redactPatterns(s string) string {
	if s == "" {
		return s
	}
	g := gates(s)
	if g == 0 {
		return s
	}
	for _, r := range tokenRules {
		if g&r.gate == 0 || !strings.Contains(s, r.marker) {
			continue
		}
		s = replaceMatches(s, r.re, func(m []int) (int, int, bool) {
			tail := s[m[0]+r.prefixLen : m[1]]
			return m[0], m[1], len(tail) >= r.minTail && (!r.digit || hasDigit(tail))
		})
	}
	if g&gateSpace != 0 && hasBearerWord(s) {
		s = replaceMatches(s, bearerPattern, func(m []int) (int, int, bool) {
			return m[2], m[3], m[3]-m[2] >= minBearerToken
		})
	}
	if g&gatePair == 0 {
		return s
	}
	return redactPairs(s)
}

// replaceMatches replaces, for every match of re in s, the span pick returns (when it
// says so) with Placeholder.
func replaceMatches(s string, re *lazy.Regexp, pick func(m []int) (start, end int, ok bool)) string {
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

// hasBearerWord reports whether s holds one of the words bearerPattern starts with (a
// search for each runs on its first letter, which is rarer than "earer"'s).
func hasBearerWord(s string) bool {
	return strings.Contains(s, "Bearer") || strings.Contains(s, "bearer") || strings.Contains(s, "BEARER")
}

// hasPairSign reports whether s holds ':' or '=' (strings.ContainsAny, on vectorized code).
func hasPairSign(s string) bool {
	return strings.IndexByte(s, ':') >= 0 || strings.IndexByte(s, '=') >= 0
}

// redactPairs replaces the values of secret-named "key": value and KEY=value pairs.
func redactPairs(s string) string {
	if !hasPairSign(s) || !containsSecretWord(s) {
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
	// One pass: each word is tried where its first letter is.
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		for _, w := range secretWordsAt[c] {
			if hasPrefixFoldASCII(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// secretWordsAt lists secretWords by their first letter, in their order. It is written
// out so the compiler lays it out (no package init); TestSecretWordsAtMatchesSecretWords
// checks it.
var secretWordsAt = [256][]string{
	'a': {"authoriz"},
	'c': {"cookie", "credential"},
	'k': {"key"},
	'p': {"passw", "passphrase"},
	's': {"secret"},
	't': {"token"},
}

// hasPrefixFoldASCII reports whether ASCII s starts with the lower-case ASCII word w,
// ignoring case.
func hasPrefixFoldASCII(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for j := 0; j < len(w); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[j] {
			return false
		}
	}
	return true
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}
