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

// secretKeyEnds are what a secret member or pair name ends with once normalized the way
// redact.IsSecretKey does (lower case, without '-', '_', '.', ' '): its exact names and
// its suffixes.
var secretKeyEnds = []string{
	"apikey", "authorization", "token", "secret", "password", "passwd", "passphrase",
	"privatekey", "secretkey", "secretaccesskey", "cookie", "credentials",
}

// mayHoldSecret reports whether redact could change the encoded JSON value b. It is
// conservative: true whenever
//   - b has a \u escape (an escape can spell any letter, also inside embedded JSON);
//   - b contains a token marker: the literal every key-shaped text redact replaces
//     contains (sk-, gh[pousr]_, github_pat_, xox, AIza, and (B)earer / BEARER);
//   - once lower-cased and stripped of '-', '_', '.' and ' ', b has a secret key name
//     ending right before a quote, a backslash (the quote of embedded JSON), '=' or the
//     end: the only places where a member name, a "key": value pair or a KEY=value pair
//     ends.
//
// Apart from \u escapes, JSON encoding writes every letter of a string as itself, so a
// name redact would see in a decoded string is visible here too. It is one pass over b.
// Redact lower-cases names with strings.ToLower, which turns two non-ASCII letters into
// ASCII ones (lowersToASCII); only text holding one of them takes a second pass, over a
// lower-cased copy. Other non-ASCII text needs none: lower-casing leaves its ASCII bytes,
// which are all the name check looks at, as they are (up to case, which it ignores).
func mayHoldSecret(b []byte) bool {
	found, folds := scanSecret(b, true, true)
	if found || !folds {
		return found
	}
	found, _ = scanSecret(bytes.ToLower(b), false, true)
	return found
}

// lowersToASCII are the runes above ASCII whose lower case (unicode.ToLower, as
// strings.ToLower uses) is ASCII: LATIN CAPITAL LETTER I WITH DOT ABOVE ('i') and KELVIN
// SIGN ('k'). TestLowersToASCIIIsComplete checks the list against every rune.
var lowersToASCII = []string{"\u0130", "\u212a"}

// lowersToASCIIAt reports whether one of lowersToASCII starts at b[i].
func lowersToASCIIAt(b []byte, i int) bool {
	for _, r := range lowersToASCII {
		if b[i] == r[0] && bytes.HasPrefix(b[i:], []byte(r)) {
			return true
		}
	}
	return false
}

// The three byte tables below are written out, not computed from secretKeyEnds and
// lowersToASCII, so the compiler lays them out and the package needs no init (issue
// 29); TestByteTablesMatchTheirSources checks them against their sources.

// scanTrigger marks the bytes scanSecret stops at: the rare byte of each token marker,
// the bytes a secret name ends before, and the first bytes of lowersToASCII. Every other
// byte costs one table lookup.
var scanTrigger = [256]bool{
	'-': true, '_': true, 'x': true, 'I': true, 'b': true, 'B': true, '\\': true, '"': true, '=': true,
	0xc4: true, 0xe2: true, // lowersToASCII: "\u0130", "\u212a"
}

// secretLast marks the bytes a secret name ends with (lower case): the last bytes of
// secretKeyEnds.
var secretLast = [256]bool{'y': true, 'n': true, 't': true, 'd': true, 'e': true, 's': true}

// mayEndName marks the bytes that may come right before the end of a secret name: its
// last letters in either case, and the separators normalization drops.
var mayEndName = [256]bool{
	'y': true, 'n': true, 't': true, 'd': true, 'e': true, 's': true,
	'Y': true, 'N': true, 'T': true, 'D': true, 'E': true, 'S': true,
	'-': true, '_': true, '.': true, ' ': true,
}

// scanSecret looks for token markers (in b as it is) and for secret names ending before a
// quote, a backslash, '=' or the end (in b normalized, looking back from there). folds
// reports a rune of lowersToASCII in b.
func scanSecret(b []byte, markers, names bool) (found, folds bool) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !scanTrigger[c] {
			continue
		}
		if c >= 0x80 {
			folds = folds || lowersToASCIIAt(b, i)
			continue
		}
		if markers {
			switch c {
			case '-': // sk-
				if i >= 2 && b[i-2] == 's' && b[i-1] == 'k' {
					return true, folds
				}
			case '_': // gh[pousr]_, github_pat_
				if i >= 3 && b[i-3] == 'g' && b[i-2] == 'h' && bytes.IndexByte([]byte("pousr"), b[i-1]) >= 0 {
					return true, folds
				}
				if i >= 10 && string(b[i-10:i]) == "github_pat" {
					return true, folds
				}
			case 'x': // xox
				if i+2 < len(b) && b[i+1] == 'o' && b[i+2] == 'x' {
					return true, folds
				}
			case 'I': // AIza
				if i >= 1 && i+2 < len(b) && b[i-1] == 'A' && b[i+1] == 'z' && b[i+2] == 'a' {
					return true, folds
				}
			case 'b', 'B': // Bearer, bearer, BEARER (redact's marker: earer, EARER)
				if i+5 < len(b) && (string(b[i+1:i+6]) == "earer" || string(b[i+1:i+6]) == "EARER") {
					return true, folds
				}
			case '\\': // \u
				if i+1 < len(b) && b[i+1] == 'u' {
					return true, folds
				}
			}
		}
		if names && (c == '"' || c == '\\' || c == '=') && mayEndNameAt(b, i) && secretNameEndsAt(b, i) {
			return true, folds
		}
	}
	return names && secretNameEndsAt(b, len(b)), folds
}

// mayEndNameAt is a quick look at the two bytes before i: false when they cannot be the
// end of a secret name (its last two letters, in either case, unless a separator is
// among them).
func mayEndNameAt(b []byte, i int) bool {
	if i < 2 {
		return i == 1 && mayEndName[b[0]]
	}
	last, prev := b[i-1], b[i-2]
	if !mayEndName[last] {
		return false
	}
	if last < 'A' || prev == '-' || prev == '_' || prev == '.' || prev == ' ' {
		return true // a separator: let the full check normalize
	}
	last, prev = last|0x20, prev|0x20 // ASCII lower case (the bytes are letters here or fail below)
	switch last {
	case 'y', 't':
		return prev == 'e'
	case 'n':
		return prev == 'o' || prev == 'e'
	case 'd':
		return prev == 'r' || prev == 'w'
	case 'e':
		return prev == 's' || prev == 'i'
	case 's':
		return prev == 'l'
	}
	return true
}

// secretNameEndsAt reports whether the bytes before i, normalized as redact.IsSecretKey
// normalizes a name, end with a secret name.
func secretNameEndsAt(b []byte, i int) bool {
	var tail [16]byte // normalized bytes before i; tail[15] is the last
	k := len(tail)
	for j := i - 1; j >= 0 && k > 0; j-- {
		c := b[j]
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if k == len(tail) && !secretLast[c] {
			return false
		}
		k--
		tail[k] = c
	}
	got := tail[k:]
	for _, w := range secretKeyEnds {
		if len(got) >= len(w) && string(got[len(got)-len(w):]) == w {
			return true
		}
	}
	return false
}
