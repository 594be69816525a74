package store

import (
	"bytes"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// redactPayload redacts one encoded JSON value (a message, an event entry, a header) as
// it is written. redact.JSON decodes the value into a generic tree and walks it, which
// costs more than encoding it did, so a value is first scanned for anything redact could
// act on (mayHoldSecret); only values that may hold a secret take the full walk. The
// scan is a superset of redact's triggers, so the result is what redact.JSON alone gives
// (TestMayHoldSecretCoversRedact checks this against redact itself).
func redactPayload(b []byte) ([]byte, error) {
	if !mayHoldSecret(b) {
		return b, nil
	}
	return redact.JSON(b)
}

// tokenMarkers are the literal fragments every key-shaped text redact replaces contains
// (sk-ant-…, sk-…, ghp_…, github_pat_…, xox?-…, AIza…, Bearer …), case as redact matches.
var tokenMarkers = [][]byte{
	[]byte("sk-"), []byte("ghp_"), []byte("gho_"), []byte("ghu_"), []byte("ghs_"), []byte("ghr_"),
	[]byte("github_pat_"), []byte("xox"), []byte("AIza"), []byte("earer"), []byte("EARER"),
}

// secretKeyEnds are what a secret member or pair name ends with once normalized the way
// redact.IsSecretKey does (lower case, without '-', '_', '.', ' '): its exact names and
// its suffixes.
var secretKeyEnds = [][]byte{
	[]byte("apikey"), []byte("authorization"), []byte("token"), []byte("secret"),
	[]byte("password"), []byte("passwd"), []byte("passphrase"), []byte("privatekey"),
	[]byte("secretkey"), []byte("secretaccesskey"), []byte("cookie"), []byte("credentials"),
}

// mayHoldSecret reports whether redact could change the encoded JSON value b. It is
// conservative: true whenever
//   - b has a \u escape (an escape can spell any letter, also inside embedded JSON);
//   - b contains a token marker;
//   - once lower-cased and stripped of '-', '_', '.' and ' ', b has a secret key name
//     ending right before a quote, a backslash (the quote of embedded JSON) or '=': the
//     only places where a member name, a "key": value pair or a KEY=value pair ends.
//
// Apart from \u escapes, JSON encoding writes every letter of a string as itself, so a
// name redact would see in a decoded string is visible here too.
func mayHoldSecret(b []byte) bool {
	if bytes.Contains(b, []byte(`\u`)) {
		return true
	}
	for _, m := range tokenMarkers {
		if bytes.Contains(b, m) {
			return true
		}
	}
	lower := b
	for _, c := range b {
		if c >= 0x80 { // unicode case folding (e.g. the Kelvin sign lower-cases to 'k')
			lower = bytes.ToLower(b)
			break
		}
	}
	norm := make([]byte, 0, len(lower))
	for _, c := range lower {
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		norm = append(norm, c)
	}
	for _, w := range secretKeyEnds {
		for rest := norm; ; {
			i := bytes.Index(rest, w)
			if i < 0 {
				break
			}
			end := i + len(w)
			if end == len(rest) {
				return true
			}
			if c := rest[end]; c == '"' || c == '\\' || c == '=' {
				return true
			}
			rest = rest[i+1:]
		}
	}
	return false
}
