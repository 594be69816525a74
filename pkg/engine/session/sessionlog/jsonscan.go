package sessionlog

import "encoding/json"

// A small JSON scanner for native request bodies: the logger splits a body into its
// members and its conversation array into elements at every request, and the body holds
// the whole conversation. encoding/json would decode or validate all of it each time; this
// only finds value boundaries, at the speed of a byte loop. It assumes well-formed input
// (what a provider's encoder produced) and reports ok = false on anything it does not
// follow, so the caller writes the body unchanged.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset just past the string starting at b[i] ('"'), or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the offset just past the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default: // number, true, false, null
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// rawMember is one member of a JSON object, its value as written.
type rawMember struct {
	key   string
	value []byte
}

// objectMembers splits the object b into its members, in order.
func objectMembers(b []byte) ([]rawMember, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	var out []rawMember
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end := skipString(b, i)
		var key string
		if end < 0 || json.Unmarshal(b[i:end], &key) != nil {
			return nil, false
		}
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return nil, false
		}
		start := skipSpace(b, i+1)
		if end = skipValue(b, start); end < 0 {
			return nil, false
		}
		out = append(out, rawMember{key: key, value: b[start:end]})
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return out, skipSpace(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

// arrayElements splits the array b into its elements, in order.
func arrayElements(b []byte) ([][]byte, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	out := [][]byte{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, skipSpace(b, i+1) == len(b)
	}
	for {
		end := skipValue(b, i)
		if end < 0 {
			return nil, false
		}
		out = append(out, b[i:end])
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			return out, skipSpace(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}
