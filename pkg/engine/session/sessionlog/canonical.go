package sessionlog

import (
	"io"
	"slices"
	"strings"
	"unsafe"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// Most events need nothing of their data's tree but its redacted encoding: no member is
// referred to, lifted, moved to a payload file or held back. For them appendRedacted
// goes from data's JSON text straight to the line's, read by jsontext's decoder, without
// the tree's maps and slices: what decodeTree, redact.Value and appendTree make of the
// text, value for value (canonical_test.go compares them, also under fuzzing).

// appendRedacted appends the line form of raw, valid JSON text:
// appendTree(redact.Value(tree)) of raw's tree. ok is false when raw holds anything it
// does not take (invalid text, nesting deeper than maxCanonDepth) or a member name that
// redaction changes (the tree's rename is then left to redact.Value); dst is then to be
// dropped.
//
// raw is read in place, not copied (it is most of a line): nothing appendRedacted makes
// keeps a string of it (redact.Member keeps a copy of a name it remembers), and raw must
// not share memory with dst.
func appendRedacted(dst []byte, raw []byte) (out []byte, ok bool) {
	c := canon{s: unsafe.String(unsafe.SliceData(raw), len(raw))}
	return c.text(dst, raw, 0, 0, false)
}

// maxCanonDepth bounds the nesting appendRedacted takes: an object's members are read
// twice (to sort them, then to write them), so deeply nested text would cost its size
// times its depth. Deeper text takes the tree path, which is linear.
const maxCanonDepth = 64

type canon struct {
	s string // the whole text, for member names
}

// text appends the redacted form of the one value text holds, the part of c.s from base.
// schemaProps is redact.Value's: the members of a JSON Schema "properties" object name
// parameters, not secrets.
func (c *canon) text(dst, text []byte, base, depth int, schemaProps bool) ([]byte, bool) {
	d := getDecoder(text)
	defer putDecoder(d)
	dst, ok := c.value(dst, d, base, depth, schemaProps)
	if !ok {
		return dst, false
	}
	_, err := d.ReadToken()
	return dst, err == io.EOF
}

// value appends the redacted form of the value d (reading the text at base in c.s) reads
// next.
func (c *canon) value(dst []byte, d *textDecoder, base, depth int, schemaProps bool) ([]byte, bool) {
	if depth > maxCanonDepth {
		return dst, false
	}
	switch d.PeekKind() {
	case '{':
		return c.object(dst, d, base, depth+1, schemaProps)
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return dst, false
		}
		dst = append(dst, '[')
		for i := 0; ; i++ {
			switch d.PeekKind() {
			case ']':
				if _, err := d.ReadToken(); err != nil {
					return dst, false
				}
				return append(dst, ']'), true
			case 0:
				return dst, false
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = c.value(dst, d, base, depth+1, false); !ok {
				return dst, false
			}
		}
	case '"':
		v, err := d.ReadValue()
		if err != nil {
			return dst, false
		}
		return appendRedactedString(dst, v), true
	case '0', 't', 'f', 'n':
		v, err := d.ReadValue()
		if err != nil {
			return dst, false
		}
		return append(dst, v...), true
	}
	return dst, false
}

// appendRedactedString appends the redacted form of the string literal lit.
func appendRedactedString(dst, lit []byte) []byte {
	body := lit[1 : len(lit)-1]
	if plainString(body) {
		s := unsafe.String(unsafe.SliceData(body), len(body))
		if r := redact.String(s); r != s {
			return appendString(dst, r)
		}
		return append(dst, lit...) // as jsontext quotes it: nothing to escape
	}
	return appendString(dst, redact.String(unquote(lit)))
}

// member is an object member: its name and where its value's text is in the decoder's.
type member struct {
	key        string
	start, end int
}

func (c *canon) object(dst []byte, d *textDecoder, base, depth int, schemaProps bool) ([]byte, bool) {
	if _, err := d.ReadToken(); err != nil {
		return dst, false
	}
	var buf [16]member
	members := buf[:0]
	for d.PeekKind() == '"' {
		name, err := d.ReadValue()
		if err != nil {
			return dst, false
		}
		var key string
		if body := name[1 : len(name)-1]; plainString(body) {
			end := base + int(d.InputOffset()) - 1
			key = c.s[end-len(body) : end]
		} else {
			key = unquote(name)
		}
		v, err := d.ReadValue()
		if err != nil {
			return dst, false
		}
		end := int(d.InputOffset())
		members = append(members, member{key, end - len(v), end})
	}
	if _, err := d.ReadToken(); err != nil { // '}'
		return dst, false
	}
	// Sorted by name, as a map is encoded; of a repeated name the last member counts,
	// as in a decoded map.
	slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	dst = append(dst, '{')
	first := true
	for i, m := range members {
		if i+1 < len(members) && members[i+1].key == m.key {
			continue
		}
		secret, renamed := redact.Member(m.key)
		if renamed {
			return dst, false
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, m.key)
		dst = append(dst, ':')
		v := c.s[base+m.start : base+m.end]
		childIsObject := v[0] == '{'
		if !(schemaProps && childIsObject) && secret && hidesSomething(v) {
			dst = appendString(dst, redact.Placeholder)
			continue
		}
		var ok bool
		switch v[0] {
		case '{', '[':
			dst, ok = c.text(dst, unsafe.Slice(unsafe.StringData(v), len(v)), base+m.start, depth, m.key == "properties" && childIsObject)
		case '"':
			dst, ok = appendRedactedString(dst, unsafe.Slice(unsafe.StringData(v), len(v))), true
		default:
			dst, ok = append(dst, v...), true
		}
		if !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// hidesSomething is redact's, of a value's text: false for null, booleans, "" and the
// placeholder.
func hidesSomething(v string) bool {
	switch v[0] {
	case 'n', 't', 'f':
		return false
	case '"':
		s := unquote(unsafe.Slice(unsafe.StringData(v), len(v)))
		return s != "" && s != redact.Placeholder
	}
	return true
}
