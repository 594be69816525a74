package sessionlog

import (
	stdjson "encoding/json"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// The log reads and writes JSON with JSON v2 (github.com/go-json-experiment/json and its
// jsontext), with encoding/json's meaning of the data's struct tags and values: the
// data's types are tagged for encoding/json, and the log's format is what encoding/json
// wrote. encoding/json's own types (RawMessage, Number) stay the data's types. The tests
// compare what is written with encoding/json itself (the oracle).

// v1Options are encoding/json's semantics as JSON v2 emulates them (legacy omitempty,
// nil as null, map members sorted, names matched without case, invalid UTF-8 as U+FFFD,
// ...), but for HTML characters, which are not escaped (the line quotes strings itself),
// with repeated member names taken (the last one counts, as in encoding/json), and an
// encoding/json Number written as its number (JSON v2 would quote it). Map members stay
// sorted although the line sorts them again: two names that differ only in invalid
// UTF-8 become one, and the member that counts is then encoding/json's. Built on first
// use, not in a package init: robota pays every init on every command (issue 29).
var v1Options = &lazy.Value[json.Options]{Build: func() json.Options {
	return json.JoinOptions(jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false),
		jsontext.AllowDuplicateNames(true), json.WithMarshalers(json.MarshalToFunc(marshalNumber)))
}}

// marshalNumber writes an encoding/json Number as encoding/json does: "" as 0, what is
// not a number refused.
func marshalNumber(enc *jsontext.Encoder, n stdjson.Number) error {
	if n == "" {
		n = "0"
	}
	if !isNumber(string(n)) {
		return fmt.Errorf("json: invalid number literal %q", string(n))
	}
	return enc.WriteValue(jsontext.Value(n))
}

// marshal is json.Marshal(v) of encoding/json, by JSON v2.
func marshal(v any) ([]byte, error) { return json.Marshal(v, v1Options.Get()) }

// unmarshal is json.Unmarshal(b, v) of encoding/json, by JSON v2.
func unmarshal(b []byte, v any) error { return json.Unmarshal(b, v, v1Options.Get()) }

// validJSON reports whether b is one JSON value, as encoding/json's Valid does (invalid
// UTF-8 and repeated names taken).
func validJSON(b []byte) bool { return jsontext.Value(b).IsValid(decodeOptions.Get()...) }
