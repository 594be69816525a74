package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// The logger turns each event's data into a JSON tree (map[string]any, []any, string,
// json.Number, bool, nil), redacts and rearranges the tree, and encodes it as a line.
// The text is read by jsontext's decoder (the Go team's JSON v2 tokenizer: it validates
// as it reads, in one pass over the text, without reflection), and the tree is written
// back with jsontext's string quoting, objects with their members sorted by name.
// tree_test.go compares both with encoding/json (decoding both texts and comparing the
// values), also under fuzzing.

// decodeOptions are those of every decoder here: a repeated member name is taken (the
// last one wins, as in encoding/json), and so is invalid UTF-8 (replaced by U+FFFD, as
// encoding/json does). The depth limit is jsontext's (10,000), encoding/json's too.
// Built on first use, as v1Options.
var decodeOptions = &lazy.Value[[]jsontext.Options]{Build: func() []jsontext.Options {
	return []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
}}

// textDecoder is a pooled jsontext decoder reading a text in place (a bytes.Buffer is read
// without a copy), so offsets it reports are offsets in the text.
type textDecoder struct {
	jsontext.Decoder
	in bytes.Buffer
}

var textDecoders = sync.Pool{New: func() any { return new(textDecoder) }}

func getDecoder(text []byte) *textDecoder {
	d := textDecoders.Get().(*textDecoder)
	d.in = *bytes.NewBuffer(text)
	d.Reset(&d.in, decodeOptions.Get()...)
	return d
}

func putDecoder(d *textDecoder) {
	d.in = bytes.Buffer{}
	d.Reset(&d.in) // drop the text
	textDecoders.Put(d)
}

// errTrailing is the error of a text that goes on after its value.
var errTrailing = errors.New("invalid JSON: text after the value")

// decodeTree decodes raw, valid JSON text such as json.Marshal returns, into the tree
// json.Decoder with UseNumber makes of it; invalid text (trailing text, too deep) is an
// error. The text is copied once; the tree's keys and the strings that need no unquoting
// are parts of that copy.
func decodeTree(raw []byte) (any, error) {
	d := getDecoder(raw)
	defer putDecoder(d)
	t := treeReader{d: d, s: string(raw)}
	v, err := t.value()
	if err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errTrailing
		}
		return nil, err
	}
	return v, nil
}

type treeReader struct {
	d *textDecoder
	s string // the decoder's text, as a string the tree's strings are parts of
}

func (t *treeReader) value() (any, error) {
	switch t.d.PeekKind() {
	case '{':
		if _, err := t.d.ReadToken(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for t.d.PeekKind() == '"' {
			k, err := t.str()
			if err != nil {
				return nil, err
			}
			v, err := t.value()
			if err != nil {
				return nil, err
			}
			m[k] = v // a repeated member: the last one wins, as in encoding/json
		}
		_, err := t.d.ReadToken() // '}', or the error
		return m, err
	case '[':
		if _, err := t.d.ReadToken(); err != nil {
			return nil, err
		}
		a := []any{}
		for k := t.d.PeekKind(); k != ']' && k != 0; k = t.d.PeekKind() {
			v, err := t.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := t.d.ReadToken() // ']', or the error
		return a, err
	case '"':
		return t.str()
	case '0':
		v, err := t.d.ReadValue()
		if err != nil {
			return nil, err
		}
		return json.Number(t.part(v)), nil
	case 't', 'f', 'n':
		v, err := t.d.ReadValue()
		if err != nil {
			return nil, err
		}
		switch v[0] {
		case 't':
			return true, nil
		case 'f':
			return false, nil
		}
		return nil, nil
	}
	_, err := t.d.ReadToken() // the error PeekKind saw
	if err == nil {
		err = errors.New("invalid JSON")
	}
	return nil, err
}

// part is the text of v, the value the decoder read last, as a part of t.s.
func (t *treeReader) part(v jsontext.Value) string {
	end := int(t.d.InputOffset())
	return t.s[end-len(v) : end]
}

// str reads a string (or a member name): a part of t.s when it needs no unquoting.
func (t *treeReader) str() (string, error) {
	v, err := t.d.ReadValue()
	if err != nil {
		return "", err
	}
	if body := v[1 : len(v)-1]; plainString(body) {
		q := t.part(v)
		return q[1 : len(q)-1], nil
	}
	return unquote(v), nil
}

// plainString reports whether a string literal's body is its value: no escape, valid
// UTF-8.
func plainString(body []byte) bool {
	return bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body)
}

// unquote is a valid string literal's value (invalid UTF-8 replaced by U+FFFD, of
// which jsontext's error tells: the replacement is what encoding/json does too).
func unquote(lit []byte) string {
	b, _ := jsontext.AppendUnquote(nil, lit)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendTree appends v's JSON without a newline: objects with their members sorted by
// name, strings as jsontext quotes them (the minimal escaping of RFC 8785: no HTML
// escapes; invalid UTF-8 as U+FFFD). A value that is not part of a decoded tree (a
// struct, a number type, a typed map) is encoded by encoding/json.
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
		if !isNumber(n) {
			return nil, fmt.Errorf("json: invalid number literal %q", n)
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

// isNumber reports whether n is one JSON number.
func isNumber(n string) bool {
	return (n[0] == '-' || '0' <= n[0] && n[0] <= '9') && jsontext.Value(n).IsValid()
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

// appendOther encodes a value that is not part of a tree as encoding/json does (by JSON
// v2: marshal).
func appendOther(dst []byte, v any) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendString appends s quoted by jsontext (invalid UTF-8, which only a string given
// as such can hold, becomes U+FFFD: jsontext's error says so and is not one here).
func appendString(dst []byte, s string) []byte {
	dst, _ = jsontext.AppendQuote(dst, s)
	return dst
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
