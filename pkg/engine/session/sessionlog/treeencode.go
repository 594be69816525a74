package sessionlog

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// appendTree appends the JSON encoding/json (without HTML escaping) writes for v: the
// tree types decodeTree makes are written here, without reflection (map members in
// sorted key order, strings escaped as encoding/json escapes them), and any other value
// the logger put in a tree (a PayloadRef, a count) by encoding/json itself.
func appendTree(dst []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendJSONString(dst, t), nil
	case bool:
		return strconv.AppendBool(dst, t), nil
	case json.Number:
		if t == "" || !json.Valid([]byte(t)) {
			return appendOther(dst, v) // encoding/json's own rules (and error)
		}
		return append(dst, t...), nil
	case int:
		return strconv.AppendInt(dst, int64(t), 10), nil
	case int64:
		return strconv.AppendInt(dst, t, 10), nil
	case map[string]any:
		if t == nil {
			return append(dst, "null"...), nil
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendTree(dst, t[k]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		if t == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range t {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendTree(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return appendOther(dst, v)
}

// appendOther encodes v with encoding/json, as the logger's lines are (no HTML escaping).
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

// appendJSONString appends s quoted as encoding/json quotes it with HTML escaping off:
// '"' and '\\' escaped, control characters as \b \f \n \r \t or \u00XX, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendLine appends the line of an entry: lineEntry as encoding/json writes it, the
// data tree by appendTree.
func appendLine(dst []byte, e lineEntry) ([]byte, error) {
	if y := e.Timestamp.Year(); y < 0 || y > 9999 || e.Timestamp.Location() != time.UTC {
		return appendOther(dst, e) // encoding/json's own rules (and error)
	}
	dst = append(dst, `{"schemaVersion":`...)
	dst = strconv.AppendInt(dst, int64(e.SchemaVersion), 10)
	dst = append(dst, `,"sequence":`...)
	dst = strconv.AppendInt(dst, e.Sequence, 10)
	dst = append(dst, `,"timestamp":"`...)
	dst = e.Timestamp.AppendFormat(dst, "2006-01-02T15:04:05.999999999Z07:00")
	dst = append(dst, `","sessionId":`...)
	dst = appendJSONString(dst, e.SessionID)
	dst = append(dst, `,"event":`...)
	dst = appendJSONString(dst, string(e.Event))
	if e.Data != nil {
		dst = append(dst, `,"data":`...)
		var err error
		if dst, err = appendTree(dst, e.Data); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}
