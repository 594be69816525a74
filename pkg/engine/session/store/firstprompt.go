package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// firstPromptScan bounds how much of a journal a listing reads for its first prompt:
// the history's first lines (the system message and the first user message) are near
// the start; a journal whose first prompt lies further (after a compaction reset, or
// behind a huge system message) is listed without one.
const firstPromptScan = 256 << 10

// firstPromptLen is the length, in runes, of a listed first prompt.
const firstPromptLen = 80

// firstPrompt returns the text of the first user message among the journal lines in
// data[start:] (a prefix of a journal: its last line may be cut), shortened to one line.
func firstPrompt(data []byte, start int64) string {
	if start < 0 || start >= int64(len(data)) {
		return ""
	}
	for rest := data[start:]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return "" // a cut line
		}
		line := rest[:i]
		rest = rest[i+1:]
		if !bytes.HasPrefix(line, prefixMessage) || !bytes.Contains(line, []byte(`"role":"user"`)) {
			continue
		}
		var m llm.Message
		if err := json.Unmarshal(line, &messageLine{M: &m}); err != nil || m.Role != llm.RoleUser {
			continue
		}
		if t := oneLine(m.Text()); t != "" {
			return t
		}
	}
	return ""
}

// firstPromptOf reads the start of the journal f for its first prompt; start is where
// the history in force begins (after the last reset).
func firstPromptOf(f io.ReaderAt, start int64) string {
	buf := make([]byte, firstPromptScan)
	n, err := f.ReadAt(buf, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return firstPrompt(buf[:n], 0)
}

// oneLine makes a listing's one-line text of at most firstPromptLen runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > firstPromptLen {
		return string(r[:firstPromptLen-1]) + "…"
	}
	return s
}

// firstUserText is a decoded history's first prompt, shortened like a journal's.
func firstUserText(msgs []llm.Message) string {
	for _, m := range msgs {
		if m.Role == llm.RoleUser {
			if t := oneLine(m.Text()); t != "" {
				return t
			}
		}
	}
	return ""
}
