package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
)

// Placeholder replaces every redacted value and key text.
const Placeholder = "[REDACTED]"

// maxEmbeddedDepth bounds how many levels of JSON-inside-a-string are parsed; deeper
// documents still get pattern redaction.
const maxEmbeddedDepth = 4

// isExactSecretKey reports whether n is a normalized (lower case, no '-', '_', '.', ' ')
// member name whose value is a secret. A switch, not a map: it needs no package init.
func isExactSecretKey(n []byte) bool {
	switch string(n) {
	case "apikey", "xapikey", "authorization", "proxyauthorization",
		"accesstoken", "refreshtoken", "idtoken", "authtoken",
		"sessiontoken", "bearertoken", "token", "secret",
		"clientsecret", "password", "passwd", "passphrase",
		"privatekey", "secretkey", "secretaccesskey", "cookie",
		"setcookie", "credentials":
		return true
	}
	return false
}

// secretKeySuffixes catch prefixed names such as openaiApiKey, GITHUB_TOKEN, dbPassword.
var secretKeySuffixes = []string{"apikey", "token", "secret", "password", "passwd", "privatekey", "secretkey"}

// IsSecretKey reports whether an object member named key holds a secret.
func IsSecretKey(key string) bool {
	var buf [64]byte
	var n []byte
	if ascii(key) && len(key) <= len(buf) { // every member name of a log line: no allocation
		n = buf[:0]
		for i := 0; i < len(key); i++ {
			switch c := key[i]; {
			case c == '-' || c == '_' || c == '.' || c == ' ':
			case 'A' <= c && c <= 'Z':
				n = append(n, c+'a'-'A')
			default:
				n = append(n, c)
			}
		}
	} else {
		n = []byte(normalizeKey(key))
	}
	if len(n) == 0 {
		return false
	}
	if isExactSecretKey(n) {
		return true
	}
	for _, s := range secretKeySuffixes {
		if bytes.HasSuffix(n, []byte(s)) {
			return true
		}
	}
	return false
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func normalizeKey(key string) string {
	if len(key) > 64 {
		return ""
	}
	var b strings.Builder
	for _, r := range strings.ToLower(key) {
		switch r {
		case '-', '_', '.', ' ':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Value returns a redacted copy of a JSON tree as produced by encoding/json decoding into
// any (map[string]any, []any, string, float64 or json.Number, bool, nil). Values of other
// types are returned unchanged. Objects and arrays in which nothing is redacted are not
// copied: the result shares them with v.
func Value(v any) any {
	out, _ := value(v, 0, false)
	return out
}

// String redacts free text: API-key-shaped substrings, secret key/value pairs and, when the
// whole string is a JSON object or array, the members of that document.
func String(s string) string {
	out, _ := str(s, 0)
	return out
}

// Name redacts an object member's name as Value does: by pattern only, never parsed as
// JSON.
func Name(key string) string {
	out, _ := str(key, maxEmbeddedDepth)
	return out
}

// Member tells how Value treats an object member named key: whether the name holds a
// secret (IsSecretKey) and whether redaction changes the name (Name(key) != key). The
// names of a log's lines are few and repeat on every line, so the answers for short
// names are remembered (up to maxRememberedNames of them).
func Member(key string) (secret, renamed bool) {
	if len(key) > 64 {
		return IsSecretKey(key), Name(key) != key
	}
	if v, ok := rememberedNames.Load(key); ok {
		m := v.(uint8)
		return m&1 != 0, m&2 != 0
	}
	secret, renamed = IsSecretKey(key), Name(key) != key
	if rememberedCount.Load() < maxRememberedNames {
		var m uint8
		if secret {
			m |= 1
		}
		if renamed {
			m |= 2
		}
		if _, loaded := rememberedNames.LoadOrStore(strings.Clone(key), m); !loaded {
			rememberedCount.Add(1)
		}
	}
	return secret, renamed
}

// maxRememberedNames bounds what Member remembers: names of arbitrary documents (a
// tool's input) must not grow it without end.
const maxRememberedNames = 4096

var (
	rememberedNames sync.Map // name -> uint8: 1 secret, 2 renamed
	rememberedCount atomic.Int64
)

// JSON redacts a JSON document. When nothing needs redacting it returns raw itself, so the
// document keeps its layout and member order; otherwise it returns the redacted document
// re-encoded (members sorted). It returns an error only when raw is not valid JSON.
func JSON(raw []byte) ([]byte, error) {
	tree, err := decode(raw)
	if err != nil {
		return nil, err
	}
	out, changed := value(tree, 0, false)
	if !changed {
		return raw, nil
	}
	return encode(out)
}

// value redacts v and reports whether anything changed. schemaProps is set for the members
// of a JSON Schema "properties" object, whose names are parameters, not secrets.
func value(v any, depth int, schemaProps bool) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		// The members that change; the object is copied only when there are some.
		type member struct {
			k, nk string
			v     any
		}
		var changes []member
		for k, child := range t {
			nk, kChanged := str(k, maxEmbeddedDepth) // keys: patterns only, never parsed
			_, childIsObject := child.(map[string]any)
			if !(schemaProps && childIsObject) && IsSecretKey(k) && hidesSomething(child) {
				changes = append(changes, member{k, nk, Placeholder})
				continue
			}
			nv, c := value(child, depth, k == "properties" && childIsObject)
			if c || kChanged {
				changes = append(changes, member{k, nk, nv})
			}
		}
		if len(changes) == 0 {
			return t, false
		}
		out := make(map[string]any, len(t))
		for k, child := range t {
			out[k] = child
		}
		for _, m := range changes {
			delete(out, m.k)
		}
		for _, m := range changes {
			out[m.nk] = m.v
		}
		return out, true
	case []any:
		var out []any
		for i, child := range t {
			nv, c := value(child, depth, false)
			if c && out == nil {
				out = make([]any, len(t))
				copy(out, t)
			}
			if out != nil {
				out[i] = nv
			}
		}
		if out == nil {
			return t, false
		}
		return out, true
	case string:
		return str(t, depth)
	default:
		return v, false
	}
}

// hidesSomething is false for values that cannot carry a secret.
func hidesSomething(v any) bool {
	switch t := v.(type) {
	case nil, bool:
		return false
	case string:
		return t != "" && t != Placeholder
	default:
		return true
	}
}

// str redacts one string; depth counts enclosing JSON-in-string levels.
func str(s string, depth int) (string, bool) {
	if depth < maxEmbeddedDepth {
		if out, changed, ok := embeddedJSON(s, depth); ok {
			return out, changed
		}
	}
	out := redactPatterns(s)
	return out, out != s
}

// embeddedJSON redacts s as a JSON document when it is one (an object or an array). ok is
// false when s is not JSON, so the caller falls back to pattern redaction.
func embeddedJSON(s string, depth int) (out string, changed, ok bool) {
	trimmed := strings.TrimSpace(s)
	if len(trimmed) < 2 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return "", false, false
	}
	tree, err := decode([]byte(trimmed))
	if err != nil {
		return "", false, false
	}
	red, changed := value(tree, depth+1, false)
	if !changed {
		return s, false, true
	}
	b, err := encode(red)
	if err != nil {
		return "", false, false
	}
	return string(b), true, true
}

func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return v, nil
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
