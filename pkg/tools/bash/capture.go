package bash

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
)

// capture keeps the head and tail of a stream and counts its characters, so output of any
// size costs bounded memory and still truncates exactly in the middle.
type capture struct {
	mu       sync.Mutex
	keep     int // bytes kept at each end; at least 4× the characters shown per end
	head     []byte
	tail     []byte
	total    int64
	runes    int64
	overflow bool
}

func newCapture(maxChars int) *capture {
	return &capture{keep: 4*(maxChars/2+1) + 4}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	for _, b := range p {
		if !utf8.RuneStart(b) {
			continue
		}
		c.runes++
	}
	rest := p
	if room := c.keep - len(c.head); room > 0 {
		n := min(room, len(rest))
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		c.tail = append(c.tail, rest...)
		if len(c.tail) > 2*c.keep {
			c.overflow = true
			c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.keep:]...)
		}
	}
	return len(p), nil
}

// text returns the captured output, truncated in the middle to maxChars characters, and
// whether anything was cut.
func (c *capture) text(maxChars int) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.overflow {
		s := strings.ToValidUTF8(string(c.head)+string(c.tail), "\uFFFD")
		return toolkit.TruncateMiddle(s, maxChars)
	}
	headChars := maxChars / 2
	tailChars := maxChars - headChars
	head := firstRunes(string(c.head), headChars)
	tail := lastRunes(trimPartialStart(c.tail), tailChars)
	cut := c.runes - int64(headChars) - int64(tailChars)
	return head + toolkit.Marker(int(cut)) + tail, true
}

func firstRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return strings.ToValidUTF8(s[:i], "\uFFFD")
}

func lastRunes(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return strings.ToValidUTF8(s[i:], "\uFFFD")
}

// trimPartialStart drops continuation bytes at the start of a ring that began mid-rune.
func trimPartialStart(b []byte) string {
	i := 0
	for i < len(b) && i < utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i++
	}
	return string(b[i:])
}
