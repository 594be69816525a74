package sessionlog

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// decodeTree decodes one JSON document into the tree encoding/json decodes it to with
// UseNumber (map[string]any, []any, string, json.Number, bool, nil), without its
// reflection: every logged event goes through this decode, and encoding/json spends
// most of a small event's logging time here. A string with escapes other than the
// common ones, or with bytes that are not UTF-8, is decoded by encoding/json itself, so
// the tree is the same. Trailing data other than whitespace is an error.
func decodeTree(raw []byte) (any, error) {
	d := treeDecoder{b: raw}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.i = skipSpace(raw, d.i); d.i != len(raw) {
		return nil, errTreeSyntax
	}
	return v, nil
}

var errTreeSyntax = errors.New("session log: malformed JSON")

// maxTreeDepth matches encoding/json's nesting limit.
const maxTreeDepth = 10000

type treeDecoder struct {
	b []byte
	i int
}

func (d *treeDecoder) value(depth int) (any, error) {
	if depth > maxTreeDepth {
		return nil, errTreeSyntax
	}
	d.i = skipSpace(d.b, d.i)
	if d.i >= len(d.b) {
		return nil, errTreeSyntax
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == 't':
		return d.literal("true", true)
	case c == 'f':
		return d.literal("false", false)
	case c == 'n':
		return d.literal("null", nil)
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, errTreeSyntax
}

func (d *treeDecoder) literal(word string, v any) (any, error) {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return nil, errTreeSyntax
	}
	d.i += len(word)
	return v, nil
}

func (d *treeDecoder) object(depth int) (any, error) {
	m := map[string]any{}
	d.i++ // {
	d.i = skipSpace(d.b, d.i)
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.i = skipSpace(d.b, d.i)
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, errTreeSyntax
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.i = skipSpace(d.b, d.i); d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errTreeSyntax
		}
		d.i++
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k.(string)] = v
		if d.i = skipSpace(d.b, d.i); d.i >= len(d.b) {
			return nil, errTreeSyntax
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, errTreeSyntax
		}
	}
}

func (d *treeDecoder) array(depth int) (any, error) {
	a := []any{}
	d.i++ // [
	d.i = skipSpace(d.b, d.i)
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if d.i = skipSpace(d.b, d.i); d.i >= len(d.b) {
			return nil, errTreeSyntax
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, errTreeSyntax
		}
	}
}

// str decodes the string at d.i. Plain ASCII-or-UTF-8 text without escapes is taken as
// it is, and the usual escapes are undone here; anything else goes to encoding/json.
func (d *treeDecoder) str() (any, error) {
	start := d.i
	end := skipString(d.b, start)
	if end < 0 || end > len(d.b) {
		return nil, errTreeSyntax
	}
	d.i = end
	body := d.b[start+1 : end-1]
	plain, ascii := true, true
	for _, c := range body {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if plain && (ascii || utf8.Valid(body)) {
		return string(body), nil
	}
	if s, ok := unescapeCommon(body); ok {
		return s, nil
	}
	var s string
	if err := json.Unmarshal(d.b[start:end], &s); err != nil {
		return nil, err
	}
	return s, nil
}

// unescapeCommon undoes the escapes json.Marshal writes for text (\" \\ \/ \n \r \t \b \f
// and \u00XX, \u2028, \u2029, \ufffd: single BMP code points that are not surrogates) in
// valid UTF-8; ok is false for anything else.
func unescapeCommon(body []byte) (string, bool) {
	if !utf8.Valid(body) {
		return "", false
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c < 0x20 {
			return "", false
		}
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			if i+4 >= len(body) {
				return "", false
			}
			r := rune(0)
			for _, h := range body[i+1 : i+5] {
				switch {
				case h >= '0' && h <= '9':
					r = r<<4 | rune(h-'0')
				case h >= 'a' && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case h >= 'A' && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return "", false
				}
			}
			if r >= 0xD800 && r <= 0xDFFF { // surrogates: encoding/json's rules
				return "", false
			}
			out = utf8.AppendRune(out, r)
			i += 4
		default:
			return "", false
		}
	}
	return string(out), true
}

// number takes a JSON number as json.Number, as UseNumber does.
func (d *treeDecoder) number() (any, error) {
	start := d.i
	end := skipValue(d.b, start)
	if end <= start || end > len(d.b) || !json.Valid(d.b[start:end]) {
		return nil, errTreeSyntax
	}
	d.i = end
	return json.Number(d.b[start:end]), nil
}
