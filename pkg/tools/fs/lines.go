package fs

import (
	"bufio"
	"errors"
	"io"
	"unicode/utf8"
)

// keepBytes is how much of one line Read holds: enough for MaxLineLength characters of any
// width plus one more byte, so a longer line is always seen to be longer.
const keepBytes = MaxLineLength*utf8.UTFMax + 1

// lineReader reads lines of any length in bounded memory: a line's first keepBytes bytes are
// kept and only the characters of the rest are counted, so memory does not grow with the
// longest line of a file.
type lineReader struct {
	br   *bufio.Reader
	line []byte // reused across lines
}

// next reads one line and returns its start (without the line terminator) and how many
// characters of it were dropped after that start. ok is false at the end of the input.
// The returned slice is valid until the next call.
func (r *lineReader) next() (kept []byte, dropped int, ok bool, err error) {
	r.line = r.line[:0]
	read, lastCR := false, false
	for {
		chunk, err := r.br.ReadSlice('\n')
		read = read || len(chunk) > 0
		if err == nil {
			chunk = chunk[:len(chunk)-1] // the \n
		}
		if room := keepBytes - len(r.line); room > 0 {
			n := min(room, len(chunk))
			r.line = append(r.line, chunk[:n]...)
			chunk = chunk[n:]
		}
		dropped += runeStarts(chunk)
		if len(chunk) > 0 {
			lastCR = chunk[len(chunk)-1] == '\r'
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, 0, false, err
		case !read:
			return nil, 0, false, nil
		}
		break
	}
	// A line ending in \r\n (or a last line ending in \r) loses the \r, wherever it was.
	if dropped > 0 {
		if lastCR {
			dropped--
		}
	} else if n := len(r.line); n > 0 && r.line[n-1] == '\r' {
		r.line = r.line[:n-1]
	}
	return r.line, dropped, true, nil
}

// skip reads past one line without keeping any of it. ok is false at the end of the input.
func (r *lineReader) skip() (ok bool, err error) {
	read := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		read = read || len(chunk) > 0
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return false, err
		}
		return read, nil
	}
}

// runeStarts counts the bytes of b that begin a character (UTF-8 continuation bytes do not),
// which is b's character count however b was cut from a longer text.
func runeStarts(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}
