package bash

import (
	"github.com/robota-sdk/robota-go/pkg/engine/llm/tooloutput"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture keeps the head and tail of a stream and counts its characters, so output of any
// size costs bounded memory and still truncates exactly in the middle. Once the stream is
// longer than the limit it also copies everything to a spill file (when one can be
// opened), so the model can Read what the truncation removed.
type capture struct {
	mu       sync.Mutex
	limit    int // characters shown
	keep     int // bytes kept at each end; at least 4× the characters shown per end
	head     []byte
	tail     []byte
	total    int64
	runes    int64
	overflow bool

	open     func() (*os.File, error) // nil: output is never saved
	spill    *os.File
	spillErr error
}

func newCapture(maxChars int, open func() (*os.File, error)) *capture {
	return &capture{limit: maxChars, keep: 4*(maxChars/2+1) + 4, open: open}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.save(p)
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

// save copies p to the spill file, opening it (with everything captured so far, which is
// still all of the stream) when the stream first grows past limit bytes: fewer bytes
// cannot hold more than limit characters, so shorter output never needs a file.
func (c *capture) save(p []byte) {
	if c.open == nil || c.spillErr != nil {
		return
	}
	if c.spill == nil {
		if c.total+int64(len(p)) <= int64(c.limit) {
			return
		}
		f, err := c.open()
		if err != nil {
			c.spillErr = err
			return
		}
		c.spill = f
		if _, err := f.Write(append(append([]byte(nil), c.head...), c.tail...)); err != nil {
			c.spillErr = err
			return
		}
	}
	if _, err := c.spill.Write(p); err != nil {
		c.spillErr = err
	}
}

// output is the captured stream as the model sees it.
type output struct {
	text      string
	truncated bool
	cut       int64  // characters removed
	path      string // where the whole stream is, when it was truncated and saved
	saveErr   error  // why it could not be saved (nil when no file was wanted)
}

// result returns the captured output, truncated in the middle so that it and the marker
// together hold at most maxChars characters, and closes the spill file: kept when the
// output was truncated, removed otherwise.
func (c *capture) result(maxChars int) output {
	c.mu.Lock()
	defer c.mu.Unlock()
	var whole string // the stream, when all of it is still in memory
	n := c.runes
	if !c.overflow {
		whole = strings.ToValidUTF8(string(c.head)+string(c.tail), "\uFFFD")
		n = int64(utf8.RuneCountInString(whole))
	}
	out := output{truncated: n > int64(maxChars)}
	c.closeSpill(out.truncated)
	if !out.truncated {
		out.text = whole
		return out
	}
	if c.spill != nil && c.spillErr == nil {
		out.path = c.spill.Name()
	}
	out.saveErr = c.spillErr
	// The marker's length depends on the count it states; sized for the largest possible
	// count, the real one is never longer, so the whole text stays within maxChars.
	budget := max(0, maxChars-utf8.RuneCountInString(tooloutput.TruncationMarker(int(n), out.path, out.saveErr)))
	headChars := budget / 2
	tailChars := budget - headChars
	out.cut = n - int64(headChars) - int64(tailChars)
	var head, tail string
	if c.overflow {
		head = firstRunes(string(c.head), headChars)
		tail = lastRunes(trimPartialStart(c.tail), tailChars)
	} else {
		head, tail = firstRunes(whole, headChars), lastRunes(whole, tailChars)
	}
	out.text = head + tooloutput.TruncationMarker(int(out.cut), out.path, out.saveErr) + tail
	return out
}

func (c *capture) closeSpill(keep bool) {
	if c.spill == nil {
		return
	}
	if err := c.spill.Close(); err != nil && c.spillErr == nil {
		c.spillErr = err
	}
	if !keep || c.spillErr != nil {
		_ = os.Remove(c.spill.Name())
	}
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
