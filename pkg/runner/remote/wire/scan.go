package wire

import (
	"strconv"
	"unicode/utf8"
)

// scanner reads the plain subset of JSON the hand-written decoders take (codec.go):
// objects, arrays, strings without escapes, integers, true and false. It never decides
// an input is bad: anything outside the subset (escapes, null, fractions, an unknown or
// repeated key, trailing bytes) makes it give up (ok false), and the reflective decoder
// reads the message instead, so its answer (a value or an error) is the only one.
// Why not a reused jsontext.Decoder: on a 13-job HostBatch, walking its tokens alone took
// as long as this full decode, and reading the strings out made it about 2× slower with 4×
// the allocations (25–30 µs against 12 µs), on the path every job crosses twice.
type scanner struct {
	b  []byte
	i  int
	ok bool
}

func newScanner(b []byte) scanner { return scanner{b: b, ok: true} }

func (s *scanner) fail() bool {
	s.ok = false
	return false
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// is skips white space and reports whether c comes next, taking it when it does.
func (s *scanner) is(c byte) bool {
	s.ws()
	if s.ok && s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) want(c byte) bool {
	if !s.is(c) {
		return s.fail()
	}
	return true
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.ws()
	return s.ok && s.i == len(s.b)
}

// raw returns the bytes of a string without escapes or control characters (valid
// UTF-8 kept as it is, so decoding it is taking it as it stands).
func (s *scanner) raw() []byte {
	if !s.want('"') {
		return nil
	}
	start, ascii := s.i, true
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			out := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(out) {
				s.fail() // the reflective decoder replaces invalid bytes
				return nil
			}
			return out
		case c == '\\' || c < 0x20:
			s.fail()
			return nil
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.fail()
	return nil
}

func (s *scanner) str() string {
	b := s.raw()
	if !s.ok {
		return ""
	}
	return string(b)
}

// digits returns an integer's bytes: -?(0|[1-9][0-9]*), not "-0"; any other number
// form (fraction, exponent) gives up.
func (s *scanner) digits() []byte {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	first := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	n := s.i - first
	if n == 0 || (s.b[first] == '0' && (n > 1 || first > start)) {
		s.fail()
		return nil
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			s.fail()
			return nil
		}
	}
	return s.b[start:s.i]
}

func (s *scanner) int() int {
	d := s.digits()
	if !s.ok {
		return 0
	}
	n, err := strconv.ParseInt(string(d), 10, strconv.IntSize)
	if err != nil {
		s.fail()
	}
	return int(n)
}

func (s *scanner) uint() uint64 {
	d := s.digits()
	if !s.ok {
		return 0
	}
	n, err := strconv.ParseUint(string(d), 10, 64)
	if err != nil {
		s.fail()
	}
	return n
}

func (s *scanner) bool() bool {
	s.ws()
	switch rest := s.b[s.i:]; {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.i += 4
		return true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.i += 5
		return false
	}
	s.fail()
	return false
}

// object reads an object, handing each key to field, which reads its value; seen keeps
// the keys met (field's bit numbers), so a repeated key gives up.
func (s *scanner) object(field func(key []byte) bool) {
	if !s.want('{') || s.is('}') {
		return
	}
	for s.ok {
		key := s.raw()
		if !s.ok || !s.want(':') || !field(key) {
			s.fail()
			return
		}
		if s.is(',') {
			continue
		}
		s.want('}')
		return
	}
}

// once marks bit in seen and reports whether it was clear (a key not met before).
func once(seen *uint32, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		return false
	}
	*seen |= 1 << bit
	return true
}

// array reads an array, calling elem for each element.
func (s *scanner) array(elem func()) {
	if !s.want('[') || s.is(']') {
		return
	}
	for s.ok {
		elem()
		if s.is(',') {
			continue
		}
		s.want(']')
		return
	}
}

func (s *scanner) strings() []string {
	out := []string{}
	s.array(func() { out = append(out, s.str()) })
	return out
}

func (s *scanner) strMap() map[string]string {
	out := map[string]string{}
	s.object(func(key []byte) bool {
		if _, dup := out[string(key)]; dup {
			return false
		}
		out[string(key)] = s.str()
		return s.ok
	})
	return out
}
