package tools

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// describeValidationError turns a jsonschema-go error chain such as
//
//	validating root: validating /properties/sub: validating /properties/sub/properties/a/items: type: x has type "string", want "integer"
//
// into the offending parameter path ("sub.a[]") and the problem text.
func describeValidationError(err error) (field, problem string) {
	msg := err.Error()
	pointer := ""
	for {
		i := strings.Index(msg, "validating ")
		if i != 0 {
			break
		}
		rest := msg[len("validating "):]
		j := strings.Index(rest, ": ")
		if j < 0 {
			break
		}
		if seg := rest[:j]; strings.HasPrefix(seg, "/") {
			pointer = seg
		}
		msg = rest[j+2:]
	}
	field = pointerToField(pointer)
	problem = msg
	join := func(name string) string {
		if field == "" {
			return name
		}
		return field + "." + name
	}
	switch {
	case strings.HasPrefix(msg, "required: missing properties: "):
		if names := quotedList(strings.TrimPrefix(msg, "required: missing properties: ")); len(names) > 0 {
			return join(names[0]), "missing required parameter"
		}
	case strings.HasPrefix(msg, "unexpected additional properties "):
		if names := quotedList(strings.TrimPrefix(msg, "unexpected additional properties ")); len(names) > 0 {
			return join(names[0]), "unknown parameter"
		}
	case boundRE.MatchString(msg):
		problem = describeBound(boundRE.FindStringSubmatch(msg))
	case lengthRE.MatchString(msg):
		m := lengthRE.FindStringSubmatch(msg)
		word := map[string]string{"minLength": "at least", "maxLength": "at most"}[m[1]]
		problem = fmt.Sprintf("must be %s %s characters long (got %s)", word, m[3], m[2])
	case strings.HasPrefix(msg, "type: "):
		// "type: 3 has type "integer", want "string"" → "has type "integer", want "string""
		if k := strings.LastIndex(msg, " has type "); k >= 0 {
			problem = "wrong type: got" + strings.TrimPrefix(msg[k:], " has type")
		}
	}
	return field, problem
}

func pointerToField(ptr string) string {
	if ptr == "" {
		return ""
	}
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties":
			if i+1 < len(segs) {
				i++
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(unescapePointer(segs[i]))
			}
		case "items", "additionalProperties":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(segs) {
				i++
				b.WriteString("[" + segs[i] + "]")
			}
		}
	}
	return b.String()
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// quotedList parses a Go %q-formatted string slice like ["a" "b"].
func quotedList(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "[")
	s = strings.TrimSuffix(s, "]")
	var out []string
	for _, f := range strings.Fields(s) {
		var name string
		if err := json.Unmarshal([]byte(f), &name); err == nil {
			out = append(out, name)
		}
	}
	return out
}

// jsonschema-go reports bounds as "minimum: 0/1 is less than 1.000000" (the
// value is a big.Rat); models read "must be at least 1 (got 0)" better.
//
// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var (
	boundRE  = lazy.NewRegexp(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum): (\S+) is (?:less|greater) than (?:or equal to )?(\S+)$`)
	lengthRE = lazy.NewRegexp(`^(minLength|maxLength): ".*" contains (\d+) Unicode code points, (?:fewer|more) than (\d+)$`)
)

func describeBound(m []string) string {
	word := map[string]string{
		"minimum": "at least", "maximum": "at most",
		"exclusiveMinimum": "greater than", "exclusiveMaximum": "less than",
	}[m[1]]
	return fmt.Sprintf("must be %s %s (got %s)", word, trimNumber(m[3]), ratString(m[2]))
}

func ratString(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func trimNumber(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
