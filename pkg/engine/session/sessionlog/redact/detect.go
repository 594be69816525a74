package redact

import "strings"

// Detect reports whether s holds something the redaction would hide, and what it looks
// like ("an Anthropic API key", "a bearer token", "a value named password", …), so that
// a caller refusing the text can say why without repeating it. It uses the same rules as
// String: what Detect finds, String redacts.
func Detect(s string) (kind string, found bool) {
	if s == "" {
		return "", false
	}
	for _, r := range tokenRules {
		if !strings.Contains(s, r.marker) {
			continue
		}
		for _, m := range r.re.FindAllStringIndex(s, -1) {
			tail := s[m[0]+r.prefixLen : m[1]]
			if len(tail) >= r.minTail && (!r.digit || hasDigit(tail)) {
				return r.kind, true
			}
		}
	}
	if hasBearerWord(s) {
		for _, m := range bearerPattern.FindAllStringSubmatchIndex(s, -1) {
			if m[3]-m[2] >= minBearerToken {
				return "a bearer token", true
			}
		}
	}
	if key, ok := secretPair(s); ok {
		return "a value named " + key, true
	}
	return "", false
}

// secretPair finds the first secret-named "key": value or KEY=value pair of s whose value
// hides something, and returns its key.
func secretPair(s string) (string, bool) {
	if !hasPairSign(s) || !containsSecretWord(s) {
		return "", false
	}
	for _, m := range jsonKeyPattern.FindAllStringSubmatchIndex(s, -1) {
		if key := s[m[2]:m[3]]; IsSecretKey(key) {
			if end := valueEnd(s, m[1]); end > m[1] && pairValueHidesSomething(s[m[1]:end]) {
				return key, true
			}
		}
	}
	for _, m := range assignPattern.FindAllStringSubmatchIndex(s, -1) {
		if key := s[m[2]:m[3]]; IsSecretKey(key) && pairValueHidesSomething(s[m[4]:m[5]]) {
			return key, true
		}
	}
	return "", false
}
