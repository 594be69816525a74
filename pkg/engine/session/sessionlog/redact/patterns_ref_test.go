package redact

import (
	"slices"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// refRedactPatterns is redactPatterns as it was before the gates and the one-pass
// secret-word search: the gated form must redact exactly as it did.
func refRedactPatterns(s string) string {
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
	if !strings.ContainsAny(s, ":=") || !refContainsSecretWord(s) {
		return s
	}
	return redactPairs(s)
}

func refContainsSecretWord(s string) bool {
	lower := strings.ToLower(s)
	for _, w := range secretWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

var patternSamples = []string{
	"", "executionId", "2026-11-28T03:39:05.798Z", "8462e682-003f-4885-bec3-3a183d68988b",
	"key sk-ant-api03-abcdefgh", "sk-proj-abcdefghijklmnopqrstu1", "ghp_abcdefghijklmnopqrstuvwxyz",
	"github_pat_abcdefghijklmnopqrstuvwxyz", "xoxb-1234567890-abc", "AIzaabcdefghijklmnopqrstuvwxyz0123456",
	"Authorization: Bearer abcdefghijkl", "bearer\tabcdefghij", `{"apiKey": "v"}`, "API_KEY=abc", "Token:1234",
	"PASSWORD=x", "passphrase=y", "K\u212aey=1", "my TOKEN: \"zz\"", "ÄÖ token=1", strings.Repeat("a", 600) + " token=1",
	"x[REDACTED]za", "AI[REDACTED]", "cookie=c", "credential:\"q\"", "authorize=1", "secret=s",
}

func TestGatedPatternsRedactAsBefore(t *testing.T) {
	var long []string
	for _, s := range patternSamples {
		long = append(long, strings.Repeat("y", maxGatedLength)+s, s+strings.Repeat(" The quick brown fox.", 30))
	}
	for _, s := range append(long, patternSamples...) {
		if got, want := redactPatterns(s), refRedactPatterns(s); got != want {
			t.Errorf("redactPatterns(%q) = %q, before %q", s, got, want)
		}
		if got, want := containsSecretWord(s), refContainsSecretWord(s); got != want {
			t.Errorf("containsSecretWord(%q) = %v, before %v", s, got, want)
		}
	}
}

func FuzzGatedPatterns(f *testing.F) {
	for _, s := range patternSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Long texts are gated otherwise than short ones.
		for _, long := range []string{s, strings.Repeat("y", maxGatedLength) + s, s + strings.Repeat(" filler", 80)} {
			if got, want := redactPatterns(long), refRedactPatterns(long); got != want {
				t.Fatalf("redactPatterns(%q) = %q, before %q", long, got, want)
			}
		}
		if got, want := containsSecretWord(s), refContainsSecretWord(s); got != want {
			t.Fatalf("containsSecretWord(%q) = %v, before %v", s, got, want)
		}
	})
}

// TestSecretWordsAtMatchesSecretWords: the written-out index lists each of secretWords
// under its first letter, in secretWords' order, and nothing else.
func TestSecretWordsAtMatchesSecretWords(t *testing.T) {
	var want [256][]string
	for _, w := range secretWords {
		want[w[0]] = append(want[w[0]], w)
	}
	for c := range want {
		if !slices.Equal(secretWordsAt[c], want[c]) {
			t.Errorf("secretWordsAt[%q] = %q, want %q", rune(c), secretWordsAt[c], want[c])
		}
	}
}

// TestPatternsCompile: every expression compiles (a bad one would panic only at first
// use) and matches the sample it is written for.
func TestPatternsCompile(t *testing.T) {
	for _, tc := range []struct {
		re     *lazy.Regexp
		sample string
	}{
		{tokenRules[0].re, "sk-ant-api03-abcdefgh"},
		{tokenRules[1].re, "sk-proj-abcdefghijklmnopqrstu1"},
		{tokenRules[2].re, "ghp_abcdefghijklmnopqrstuvwxyz"},
		{tokenRules[3].re, "github_pat_abcdefghijklmnopqrstuvwxyz"},
		{tokenRules[4].re, "xoxb-1234567890-abc"},
		{tokenRules[5].re, "AIzaabcdefghijklmnopqrstuvwxyz0123456"},
		{bearerPattern, "Bearer abcdefghijkl"},
		{jsonKeyPattern, `"apiKey": `},
		{assignPattern, "API_KEY=abc"},
	} {
		if !tc.re.MatchString(tc.sample) {
			t.Errorf("%s does not match %q", tc.re, tc.sample)
		}
	}
	if len(tokenRules) != 6 {
		t.Errorf("tokenRules has %d rules; give each new one a sample here", len(tokenRules))
	}
}

// TestExactSecretKeys: every exact secret name is one (also spelled with separators and
// capitals), and a name that only contains one is not exact.
func TestExactSecretKeys(t *testing.T) {
	for _, k := range []string{
		"apikey", "xapikey", "authorization", "proxyauthorization", "accesstoken", "refreshtoken",
		"idtoken", "authtoken", "sessiontoken", "bearertoken", "token", "secret", "clientsecret",
		"password", "passwd", "passphrase", "privatekey", "secretkey", "secretaccesskey", "cookie",
		"setcookie", "credentials",
	} {
		if !isExactSecretKey([]byte(k)) || !IsSecretKey(strings.ToUpper(k[:1])+k[1:]) {
			t.Errorf("%q is not taken as a secret name", k)
		}
	}
	for _, k := range []string{"", "credential", "cookies", "authorizations", "xcookie", "apikeys"} {
		if isExactSecretKey([]byte(k)) {
			t.Errorf("%q is taken as an exact secret name", k)
		}
	}
}
