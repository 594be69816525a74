package sessionlog

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The logger turns each event's data into a JSON tree (map[string]any, []any, string,
// json.Number, bool, nil), redacts and rearranges the tree, and encodes it as a line.
// encoding/json does both ends through reflection: its decoder validates and buffers
// the text again and allocates every key and string apart, its map encoder reflects
// over and sorts every object. decodeTree and appendTree do the same for the trees the
// logger handles, byte for byte and value for value (tree_test.go compares them with
// encoding/json, also under fuzzing), and leave anything else to encoding/json.

// maxTreeDepth is encoding/json's nesting limit: deeper text is left to it (and refused).
const maxTreeDepth = 10000

// decodeTree decodes raw, valid JSON text such as json.Marshal returns, into the tree
// json.Decoder with UseNumber makes of it. ok is false when raw holds anything it does
// not take (invalid or trailing text, too deep): the caller then decodes it with
// encoding/json, which reports the error. The text is copied once; the tree's keys and
// unescaped strings are parts of that copy.
func decodeTree(raw []byte) (tree any, ok bool) {
	d := treeDecoder{s: string(raw)}
	d.space()
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.s)
}

type treeDecoder struct {
	s string
	i int
}

func (d *treeDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *treeDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.s) || depth > maxTreeDepth {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *treeDecoder) literal(lit string) bool {
	if !strings.HasPrefix(d.s[d.i:], lit) {
		return false
	}
	d.i += len(lit)
	return true
}

func (d *treeDecoder) number() (any, bool) {
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		if !('0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			break
		}
		d.i++
	}
	n := d.s[start:d.i]
	if !isValidNumber(n) {
		return nil, false
	}
	return json.Number(n), true
}

func (d *treeDecoder) object(depth int) (any, bool) {
	d.i++ // '{'
	m := map[string]any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		m[k.(string)] = v // a repeated member: the last one wins, as in encoding/json
		d.space()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *treeDecoder) array(depth int) (any, bool) {
	d.i++ // '['
	a := []any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// str decodes the string at d.i: a part of d.s when it holds no escape and is valid
// UTF-8, else unquoted as encoding/json unquotes (invalid UTF-8 becomes U+FFFD).
func (d *treeDecoder) str() (any, bool) {
	s, ok := d.text()
	if !ok {
		return nil, false
	}
	return s, true
}

// text is str as a string.
func (d *treeDecoder) text() (string, bool) {
	start := d.i + 1
	plain := true
	i := start
	for ; i < len(d.s); i++ {
		c := d.s[i]
		if c == '"' {
			break
		}
		if c < ' ' {
			return "", false
		}
		if c == '\\' {
			plain = false
			i++ // the escaped byte cannot end the string
		} else if c >= utf8.RuneSelf {
			plain = false
		}
	}
	if i >= len(d.s) {
		return "", false
	}
	d.i = i + 1
	body := d.s[start:i]
	if plain || strings.IndexByte(body, '\\') < 0 && utf8.ValidString(body) {
		return body, true
	}
	return unquoteBody(body)
}

// JSON's one-letter escapes, both ways: unescaped[letter] is the byte "\\letter" stands
// for, escapeLetter[byte] the letter encoding/json writes for it (0: none).
var (
	unescaped    = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
	escapeLetter = [256]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}
)

// unquoteBody is encoding/json's unquote of a string literal's body.
func unquoteBody(s string) (string, bool) {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return "", false
			}
			switch e := s[r]; {
			case unescaped[e] != 0:
				b = append(b, unescaped[e])
				r++
			case e == 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default:
				return "", false
			}
		case c == '"', c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRuneInString(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b), true
}

func getu4(s string) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// isValidNumber is encoding/json's check of a number's text.
func isValidNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		if s = s[1:]; s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			if s = s[1:]; s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}

// appendTree appends v's JSON as encoding/json's Encoder with SetEscapeHTML(false)
// writes it (without the newline): objects with their members sorted by name. A value
// that is not part of a decoded tree (a struct, a number type, a typed map) is encoded
// by encoding/json.
func appendTree(dst []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendString(dst, t), nil
	case bool:
		return strconv.AppendBool(dst, t), nil
	case json.Number:
		n := string(t)
		if n == "" {
			n = "0"
		}
		if !isValidNumber(n) {
			return appendOther(dst, v)
		}
		return append(dst, n...), nil
	case map[string]any:
		if t == nil {
			return append(dst, "null"...), nil
		}
		return appendObject(dst, t)
	case []any:
		return appendArray(dst, t)
	case liftedContent:
		return appendArray(dst, t)
	case int:
		return strconv.AppendInt(dst, int64(t), 10), nil
	case int64:
		return strconv.AppendInt(dst, t, 10), nil
	}
	return appendOther(dst, v)
}

func appendArray(dst []byte, a []any) ([]byte, error) {
	if a == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, c := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendTree(dst, c); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// keyLists recycles the sorted member names of appendObject.
var keyLists = sync.Pool{New: func() any { s := make([]string, 0, 16); return &s }}

func appendObject(dst []byte, m map[string]any) ([]byte, error) {
	kp := keyLists.Get().(*[]string)
	keys := (*kp)[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		if dst, err = appendTree(dst, m[k]); err != nil {
			break
		}
	}
	clear(keys)
	*kp = keys[:0]
	keyLists.Put(kp)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendOther encodes a value that is not part of a tree with encoding/json.
func appendOther(dst []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

const hexDigits = "0123456789abcdef"

// appendString is encoding/json's string encoding without HTML escaping (what
// encodeJSON writes).
func appendString(dst []byte, s string) []byte { return appendEscaped(dst, s, false) }

// appendHTMLString is encoding/json's string encoding with HTML escaping (json.Marshal's).
func appendHTMLString(dst []byte, s string) []byte { return appendEscaped(dst, s, true) }

// appendEscaped is encoding/json's string encoding, with or without its HTML escaping of
// '<', '>' and '&'. Without it, runs of bytes that need no escape (printable ASCII but
// '"' and '\\') are passed over eight at a time: a streamed answer is one long such run.
func appendEscaped(dst []byte, s string, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		for !html && i+8 <= len(s) && plain8(s, i) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && (!html || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if l := escapeLetter[b]; l != 0 {
				dst = append(dst, '\\', l)
			} else {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plain8 reports whether s[i:i+8] holds only bytes appendString copies as they are
// (it may say false for some that are: the caller then looks at them one by one).
func plain8(s string, i int) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs } // a zero byte (exact for "none")
	return x&highs == 0 &&                                           // ASCII
		(x-0x20*ones)&^x&highs == 0 && // no byte below 0x20
		zero(x^('"'*ones)) == 0 && zero(x^('\\'*ones)) == 0
}

// appendLine appends a log line's entry with data's tree: {schemaVersion, sequence,
// timestamp, sessionId, event, data}, data left out when nil, as encoding/json encodes
// Entry.
func appendLine(dst []byte, seq int64, stamp time.Time, sessionID, event string, data any) ([]byte, error) {
	dst, err := appendHeader(dst, seq, stamp, sessionID, event)
	if err != nil {
		return nil, err
	}
	if data != nil {
		dst = append(dst, `,"data":`...)
		if dst, err = appendTree(dst, data); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendHeader appends a line's entry up to its data member (without it).
func appendHeader(dst []byte, seq int64, stamp time.Time, sessionID, event string) ([]byte, error) {
	dst = append(dst, `{"schemaVersion":`...)
	dst = strconv.AppendInt(dst, SchemaVersion, 10)
	dst = append(dst, `,"sequence":`...)
	dst = strconv.AppendInt(dst, seq, 10)
	dst = append(dst, `,"timestamp":"`...)
	dst, err := stamp.AppendText(dst) // MarshalJSON's text, quoted below
	if err != nil {
		return nil, err
	}
	dst = append(dst, '"')
	dst = append(dst, `,"sessionId":`...)
	dst = appendString(dst, sessionID)
	dst = append(dst, `,"event":`...)
	return appendString(dst, event), nil
}
