package memory

import (
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// Action is what the policy decides for a text.
type Action string

// The policy's actions.
const (
	// Save: the text may be stored.
	Save Action = "save"
	// Review: the text may hold personal or secret data the rules cannot be sure of; it
	// waits in the pending queue until a person approves or rejects it.
	Review Action = "review"
	// Refuse: the text looks like a secret; it is never written.
	Refuse Action = "refuse"
)

// Verdict is the policy's decision. Kind names what the text looks like ("an Anthropic
// API key", "a password", …) and Reason is a sentence for the user; neither repeats the
// text.
type Verdict struct {
	Action Action `json:"action"`
	Kind   string `json:"kind,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Compiled on first use (PERF-NOTES.md: package initialisation is paid by every run).
var (
	privateKeyRe  = lazy.NewRegexp(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)
	awsKeyRe      = lazy.NewRegexp(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)
	jwtRe         = lazy.NewRegexp(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`)
	passwordRe    = lazy.NewRegexp(`(?i)\b(?:password|passwd|passphrase|pwd|pin)\b\s*(?:is|was|=|:|->)\s*["'` + "`" + `]?([^\s"'` + "`" + `]+)`)
	tokenPhraseRe = lazy.NewRegexp(`(?i)\b(?:api[ _-]?key|secret(?:[ _-]?key)?|access[ _-]?key|token|credential)s?\b\s*(?:is|was|=|:|->)\s*["'` + "`" + `]?([^\s"'` + "`" + `]+)`)
	cardRe        = lazy.NewRegexp(`\b\d(?:[ -]?\d){12,18}\b`)
	ssnRe         = lazy.NewRegexp(`\b\d{3}-\d{2}-\d{4}\b`)
	rrnRe         = lazy.NewRegexp(`\b\d{6}-[1-4]\d{6}\b`)
	emailRe       = lazy.NewRegexp(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`)
	opaqueRe      = lazy.NewRegexp(`[A-Za-z0-9+/_=-]{32,}`)
	// urlPasswordRe is a URL carrying user:password@ (a database or registry URL).
	urlPasswordRe = lazy.NewRegexp(`\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@`)
	// liveTokenRe are the common service tokens by their prefixes.
	liveTokenRe = lazy.NewRegexp(`\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{16,}|npm_[A-Za-z0-9]{30,}|` +
		`pypi-[A-Za-z0-9_-]{30,}|glpat-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{30,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|` +
		`shp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32}|dop_v1_[a-f0-9]{64}|xapp-[0-9]-[A-Za-z0-9-]{20,})`)
)

// Evaluate applies the sensitive-data policy to a memory text: obvious secrets, tokens,
// passwords, private keys, payment-card and national-ID numbers are refused; e-mail
// addresses and long opaque strings that match no known key format go to review;
// everything else may be saved.
func Evaluate(text string) Verdict {
	if kind, ok := refusedKind(text); ok {
		return Verdict{Action: Refuse, Kind: kind,
			Reason: "it looks like " + kind + "; secrets are not stored in project memory (keep them in the environment or a secret manager)"}
	}
	if emailRe.MatchString(text) {
		return Verdict{Action: Review, Kind: "an e-mail address",
			Reason: "it contains an e-mail address (personal data); it waits for review: /memory approve or /memory reject"}
	}
	for _, m := range opaqueRe.FindAllString(text, -1) {
		if looksRandom(m) {
			return Verdict{Action: Review, Kind: "a long random-looking string",
				Reason: "it contains a long random-looking string that may be a credential; it waits for review: /memory approve or /memory reject"}
		}
	}
	return Verdict{Action: Save}
}

func refusedKind(text string) (string, bool) {
	if privateKeyRe.MatchString(text) {
		return "a private key", true
	}
	if kind, ok := redact.Detect(text); ok {
		return kind, true
	}
	if m := urlPasswordRe.FindStringSubmatch(text); m != nil && credentialValue(m[1]) {
		return "a URL with a password", true
	}
	if liveTokenRe.MatchString(text) {
		return "a service access token", true
	}
	if awsKeyRe.MatchString(text) {
		return "an AWS access key", true
	}
	if jwtRe.MatchString(text) {
		return "a JSON Web Token", true
	}
	if m := passwordRe.FindStringSubmatch(text); m != nil && credentialValue(m[1]) {
		return "a password", true
	}
	if m := tokenPhraseRe.FindStringSubmatch(text); m != nil && credentialValue(m[1]) && hasLetterAndDigit(m[1]) && len(m[1]) >= 8 {
		return "a token or key", true
	}
	for _, m := range cardRe.FindAllString(text, -1) {
		if luhn(m) {
			return "a payment card number", true
		}
	}
	if ssnRe.MatchString(text) || rrnRe.MatchString(text) {
		return "a national identity number", true
	}
	return "", false
}

// credentialValue is false for words that say where a secret is rather than what it is
// ("the password is in the vault", "token: $GITHUB_TOKEN").
func credentialValue(v string) bool {
	v = strings.TrimRight(v, ".,;:)")
	if v == "" || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "<") || strings.HasPrefix(v, "{") || v == redact.Placeholder {
		return false
	}
	switch strings.ToLower(v) {
	case "in", "on", "at", "the", "a", "an", "from", "stored", "kept", "set", "not", "required", "optional",
		"empty", "none", "null", "unset", "managed", "rotated", "read", "provided", "given", "passed", "used":
		return false
	}
	return true
}

func hasLetterAndDigit(s string) bool {
	letter := strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' }) >= 0
	return letter && strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
}

// looksRandom is true for a run mixing upper case, lower case and digits, as keys do;
// hex digests (commit ids) and identifiers in one case pass.
func looksRandom(s string) bool {
	var upper, lower, digit bool
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// luhn checks a card number candidate (digits with optional spaces or dashes).
func luhn(s string) bool {
	var digits []int
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits = append(digits, int(r-'0'))
		}
	}
	if len(digits) < 13 || len(digits) > 19 {
		return false
	}
	sum := 0
	for i := range digits {
		d := digits[len(digits)-1-i]
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
