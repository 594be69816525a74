package sessionlog

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// Most events need nothing of their data's tree but its redacted encoding: no member is
// referred to, lifted, moved to a payload file or held back. For them appendRedacted
// goes from data's JSON text straight to the line's, in one pass and without the tree's
// maps and slices: what decodeTree, redact.Value and appendTree make of the text, byte
// for byte (canonical_test.go compares them, also under fuzzing).

// appendRedacted appends the line form of raw, valid JSON text as json.Marshal returns
// it: encodeJSON(redact.Value(tree)) of raw's tree. ok is false when raw holds anything
// it does not take (see decodeTree) or a member name that redaction changes (the tree's
// rename is then left to redact.Value); dst is then to be dropped.
//
// raw is read in place, not copied (it is most of a line): nothing appendRedacted makes
// keeps a string of it (redact.Member keeps a copy of a name it remembers), and raw must
// not share memory with dst.
func appendRedacted(dst []byte, raw []byte) (out []byte, ok bool) {
	c := canon{s: unsafe.String(unsafe.SliceData(raw), len(raw)), ok: true}
	c.space()
	dst = c.value(dst, 0, false)
	c.space()
	return dst, c.ok && c.i == len(c.s)
}

// maxCanonDepth bounds the nesting appendRedacted takes: an object's members are read
// twice (to sort them, then to write them), so deeply nested text would cost its size
// times its depth. Deeper text takes the tree path, which is linear.
const maxCanonDepth = 64

type canon struct {
	s  string
	i  int
	ok bool
}

func (c *canon) space() {
	for c.i < len(c.s) {
		switch c.s[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *canon) fail() { c.ok = false; c.i = len(c.s) }

// more takes what follows a member or an element: a ',' (true: another follows) or
// the container's closing byte (false); anything else fails (false, c.ok unset).
func (c *canon) more(closing byte) bool {
	c.space()
	switch {
	case c.i >= len(c.s):
		c.fail()
	case c.s[c.i] == ',':
		c.i++
		return true
	case c.s[c.i] == closing:
		c.i++
	default:
		c.fail()
	}
	return false
}

// value appends the redacted form of the value at c.i. schemaProps is redact.Value's:
// the members of a JSON Schema "properties" object name parameters, not secrets.
func (c *canon) value(dst []byte, depth int, schemaProps bool) []byte {
	if !c.ok || c.i >= len(c.s) || depth > maxCanonDepth {
		c.fail()
		return dst
	}
	switch b := c.s[c.i]; {
	case b == '{':
		return c.object(dst, depth+1, schemaProps)
	case b == '[':
		return c.array(dst, depth+1)
	case b == '"':
		s, ok := c.str()
		if !ok {
			c.fail()
			return dst
		}
		return appendString(dst, redact.String(s))
	case b == 't' || b == 'f' || b == 'n' || b == '-' || '0' <= b && b <= '9':
		if text, ok := c.scalar(); ok {
			return append(dst, text...)
		}
	}
	c.fail()
	return dst
}

// scalar reads the literal or number at c.i and returns its text.
func (c *canon) scalar() (string, bool) {
	start := c.i
	switch b := c.s[c.i]; b {
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if lit[0] == b && strings.HasPrefix(c.s[c.i:], lit) {
				c.i += len(lit)
				return lit, true
			}
		}
		return "", false
	}
	for c.i < len(c.s) {
		d := c.s[c.i]
		if !('0' <= d && d <= '9' || d == '-' || d == '+' || d == '.' || d == 'e' || d == 'E') {
			break
		}
		c.i++
	}
	n := c.s[start:c.i]
	return n, isValidNumber(n)
}

// str reads the string at c.i (see treeDecoder.str).
func (c *canon) str() (string, bool) {
	d := treeDecoder{s: c.s, i: c.i}
	s, ok := d.text()
	c.i = d.i
	return s, ok
}

// member is an object member: its name and where its value's text is.
type member struct {
	key        string
	start, end int
}

func (c *canon) object(dst []byte, depth int, schemaProps bool) []byte {
	c.i++ // '{'
	var buf [16]member
	members := buf[:0]
	c.space()
	if c.i < len(c.s) && c.s[c.i] == '}' {
		c.i++
		return append(dst, '{', '}')
	}
	for c.ok {
		c.space()
		if c.i >= len(c.s) || c.s[c.i] != '"' {
			c.fail()
			break
		}
		k, ok := c.str()
		if !ok {
			c.fail()
			break
		}
		c.space()
		if c.i >= len(c.s) || c.s[c.i] != ':' {
			c.fail()
			break
		}
		c.i++
		c.space()
		start := c.i
		c.skip(depth)
		members = append(members, member{k, start, c.i})
		if !c.more('}') {
			break
		}
	}
	if !c.ok {
		return dst
	}
	end := c.i
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
			c.fail()
			return dst
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, m.key)
		dst = append(dst, ':')
		childIsObject := c.s[m.start] == '{'
		if !(schemaProps && childIsObject) && secret && c.hidesSomething(m) {
			dst = appendString(dst, redact.Placeholder)
			continue
		}
		c.i = m.start
		dst = c.value(dst, depth, m.key == "properties" && childIsObject)
		if !c.ok {
			return dst
		}
	}
	c.i = end
	return append(dst, '}')
}

// hidesSomething is redact's: false for null, booleans, "" and the placeholder.
func (c *canon) hidesSomething(m member) bool {
	switch c.s[m.start] {
	case 'n', 't', 'f':
		return false
	case '"':
		d := treeDecoder{s: c.s, i: m.start}
		s, _ := d.text()
		return s != "" && s != redact.Placeholder
	}
	return true
}

func (c *canon) array(dst []byte, depth int) []byte {
	c.i++ // '['
	dst = append(dst, '[')
	c.space()
	if c.i < len(c.s) && c.s[c.i] == ']' {
		c.i++
		return append(dst, ']')
	}
	for c.ok {
		c.space()
		dst = c.value(dst, depth, false)
		if !c.more(']') {
			if c.ok {
				return append(dst, ']')
			}
			break
		}
		dst = append(dst, ',')
	}
	return dst
}

// skip moves past the value at c.i, checking its syntax as decodeTree does.
func (c *canon) skip(depth int) {
	if c.i >= len(c.s) || depth > maxCanonDepth {
		c.fail()
		return
	}
	switch b := c.s[c.i]; {
	case b == '{':
		c.i++
		c.space()
		if c.i < len(c.s) && c.s[c.i] == '}' {
			c.i++
			return
		}
		for c.ok {
			c.space()
			if c.i >= len(c.s) || c.s[c.i] != '"' {
				c.fail()
				return
			}
			if _, ok := c.str(); !ok {
				c.fail()
				return
			}
			c.space()
			if c.i >= len(c.s) || c.s[c.i] != ':' {
				c.fail()
				return
			}
			c.i++
			c.space()
			c.skip(depth + 1)
			if !c.more('}') {
				return
			}
		}
	case b == '[':
		c.i++
		c.space()
		if c.i < len(c.s) && c.s[c.i] == ']' {
			c.i++
			return
		}
		for c.ok {
			c.space()
			c.skip(depth + 1)
			if !c.more(']') {
				return
			}
		}
	case b == '"':
		if _, ok := c.str(); !ok {
			c.fail()
		}
	case b == 't' || b == 'f' || b == 'n' || b == '-' || '0' <= b && b <= '9':
		if _, ok := c.scalar(); !ok {
			c.fail()
		}
	default:
		c.fail()
	}
}
