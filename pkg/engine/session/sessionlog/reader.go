package sessionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// SchemaVersion is the version of the line format written by this package.
const SchemaVersion = 1

// Entry is one log line.
type Entry struct {
	SchemaVersion int       `json:"schemaVersion"`
	Sequence      int64     `json:"sequence"`
	Timestamp     time.Time `json:"timestamp"`
	SessionID     string    `json:"sessionId"`
	Event         EventType `json:"event"`
	// Data is the event's redacted data; large values are PayloadRef objects (see Hydrate).
	Data json.RawMessage `json:"data,omitempty"`
	// Line is the 1-based line number the entry was read from (0 when not read from a file).
	Line int `json:"-"`
}

// SkippedLine is a line ReadLog could not use.
type SkippedLine struct {
	Line int
	// Partial is set for a last line without its '\n': a write cut short by a crash.
	Partial bool
	Err     error
}

// Contents is what ReadLog found.
type Contents struct {
	Entries []Entry
	Skipped []SkippedLine
}

// ReadLog parses a JSONL session log. Blank lines are ignored; a partial last line and
// lines that are not entries are reported in Skipped and never stop the reading. The error
// is for read failures only.
func ReadLog(r io.Reader) (Contents, error) {
	var c Contents
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				c.Skipped = append(c.Skipped, SkippedLine{Line: n, Partial: true,
					Err: errors.New("last line has no newline (incomplete write)")})
			} else if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
				var e Entry
				if perr := unmarshal(trimmed, &e); perr != nil {
					c.Skipped = append(c.Skipped, SkippedLine{Line: n, Err: perr})
				} else if e.Event == "" {
					c.Skipped = append(c.Skipped, SkippedLine{Line: n, Err: errors.New("entry has no event")})
				} else {
					e.Line = n
					c.Entries = append(c.Entries, e)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil {
			return c, fmt.Errorf("session log: read line %d: %w", n, err)
		}
	}
}

// ReadLogFile reads the log at path; a missing file reads as an empty log.
func ReadLogFile(path string) (Contents, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Contents{}, nil
	}
	if err != nil {
		return Contents{}, fmt.Errorf("session log: %w", err)
	}
	defer f.Close()
	return ReadLog(f)
}
