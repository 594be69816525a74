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
// goes from data's JSON text straight to the line's, in one pass of jsontext's decoder,
// without the tree's maps and slices: what decodeTree, redact.Value and appendTree make
// of the text, value for value (canonical_test.go compares them, also under fuzzing).

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
	d := getDecoder(raw)
	defer putDecoder(d)
	c := canon{s: unsafe.String(unsafe.SliceData(raw), len(raw)), d: d}
	defer c.release()
	dst, ok = c.value(dst, 0, false)
	if !ok {
		return dst, false
	}
	_, err := d.ReadToken()
	return dst, err == io.EOF
}

// maxCanonDepth bounds the nesting appendRedacted takes: an object's members are written
// in the text's order and then moved into name order, so each byte is copied once per
// enclosing object. Deeper text takes the tree path.
const maxCanonDepth = 64

type canon struct {
	s string // the text d reads, for member names
	d *textDecoder
	// scratch holds an object's members while they are put in order (an inner object
	// is done with it before its outer one takes it).
	scratch *[]byte
}

func (c *canon) release() {
	if c.scratch != nil {
		putEncodeBuffer(c.scratch)
	}
}

// value appends the redacted form of the value c.d reads next. schemaProps is
// redact.Value's: the members of a JSON Schema "properties" object name parameters, not
// secrets.
func (c *canon) value(dst []byte, depth int, schemaProps bool) ([]byte, bool) {
	if depth > maxCanonDepth {
		return dst, false
	}
	d := c.d
	switch d.PeekKind() {
	case '{':
		return c.object(dst, depth+1, schemaProps)
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
			if dst, ok = c.value(dst, depth+1, false); !ok {
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

// member is an object member: its name and where its redacted value is in dst.
type member struct {
	key        string
	start, end int
}

// object appends the redacted object c.d reads next, its members sorted by name (as a
// map is encoded): they are written as they come, then put in order.
func (c *canon) object(dst []byte, depth int, schemaProps bool) ([]byte, bool) {
	d := c.d
	if _, err := d.ReadToken(); err != nil {
		return dst, false
	}
	var buf [16]member
	members := buf[:0]
	from := len(dst)
	for d.PeekKind() == '"' {
		name, err := d.ReadValue()
		if err != nil {
			return dst, false
		}
		var key string
		if body := name[1 : len(name)-1]; plainString(body) {
			end := int(d.InputOffset()) - 1
			key = c.s[end-len(body) : end]
		} else {
			key = unquote(name)
		}
		secret, renamed := redact.Member(key)
		if renamed {
			return dst, false
		}
		start := len(dst)
		kind := d.PeekKind()
		var ok bool
		switch {
		case schemaProps && kind == '{' || !secret:
			dst, ok = c.value(dst, depth, key == "properties" && kind == '{')
		case kind == '"':
			// A secret's string is hidden unless it is "" or the placeholder already.
			var v []byte
			if v, err = d.ReadValue(); err == nil {
				if s := unquote(v); s != "" && s != redact.Placeholder {
					dst = appendString(dst, redact.Placeholder)
				} else {
					dst = appendString(dst, s)
				}
				ok = true
			}
		case kind == 'n' || kind == 't' || kind == 'f':
			dst, ok = c.value(dst, depth, false)
		default: // a number, object or array under a secret's name: hidden whole
			ok = d.SkipValue() == nil
			dst = appendString(dst, redact.Placeholder)
		}
		if !ok {
			return dst, false
		}
		members = append(members, member{key, start, len(dst)})
	}
	if _, err := d.ReadToken(); err != nil { // '}'
		return dst, false
	}
	// In name order; of a repeated name the last member counts, as in a decoded map.
	slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	if c.scratch == nil {
		c.scratch = getEncodeBuffer()
	}
	values := append((*c.scratch)[:0], dst[from:]...)
	*c.scratch = values
	dst = append(dst[:from], '{')
	first := true
	for i, m := range members {
		if i+1 < len(members) && members[i+1].key == m.key {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, m.key)
		dst = append(dst, ':')
		dst = append(dst, values[m.start-from:m.end-from]...)
	}
	return append(dst, '}'), true
}
