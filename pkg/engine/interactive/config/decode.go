package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// jsonSpace is JSON's white space (RFC 8259), narrower than unicode.IsSpace.
const jsonSpace = " \t\r\n"

// decodeFile parses one settings file into a generic tree: map[string]any whose values
// are string, json.Number, bool, nil, []any or map[string]any. An empty file is an empty
// object. Syntax errors carry the line and column of the offending byte.
func decodeFile(data []byte, src Source) (map[string]any, *Issue) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(bytes.Trim(data, jsonSpace)) == 0 {
		return map[string]any{}, nil
	}
	// A RawMessage target makes Unmarshal run only its validating scanner, whose
	// SyntaxError carries the byte offset (a Decoder reports truncation without one).
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		issue := Issue{Severity: SeverityError, File: src.Display, Message: err.Error(), Err: ErrSyntax}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			issue.Line, issue.Column = position(data, syn)
		}
		return nil, &issue
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil { // unreachable after the validity check
		return nil, &Issue{Severity: SeverityError, File: src.Display, Message: err.Error(), Err: ErrSyntax}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &Issue{Severity: SeverityError, File: src.Display,
			Message: fmt.Sprintf("want object at top level, got %s", jsonType(v)), Err: ErrType}
	}
	return obj, nil
}

// position converts a SyntaxError offset to a 1-based line and column (in runes).
// The scanner counts the offending byte in Offset, except at end of input, where the
// position is just past the last byte.
func position(data []byte, syn *json.SyntaxError) (line, col int) {
	at := int(syn.Offset)
	if at > 0 && !(at == len(data) && syn.Error() == "unexpected end of JSON input") {
		at--
	}
	at = min(max(at, 0), len(data))
	before := data[:at]
	line = 1 + bytes.Count(before, []byte{'\n'})
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	col = 1 + utf8.RuneCount(before[lineStart:])
	return line, col
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
