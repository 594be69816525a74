package fs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// Read limits.
const (
	DefaultReadLimit = 2000    // lines returned when limit is omitted
	MaxLineLength    = 2000    // characters kept of one line
	MaxReadOutput    = 256_000 // characters of numbered output before Read stops early
)

// ReadParams are the Read tool's parameters.
type ReadParams struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to read"`
	Offset   int    `json:"offset,omitempty" jsonschema:"The 1-based line number to start reading from. Only provide if the file is too large to read at once"`
	Limit    int    `json:"limit,omitempty" jsonschema:"The number of lines to read (default 2000). Only provide if the file is too large to read at once"`
}

const readDescription = `Reads a file from the local filesystem.
- file_path should be an absolute path inside the working directories.
- By default it reads up to 2000 lines from the start of the file; use offset and limit for long files.
- Lines longer than 2000 characters are truncated.
- Output is in cat -n format: line numbers start at 1, followed by a tab and the line.
- Binary files are refused; image files are reported by type and size.
- To list a directory use Glob or Bash (ls), not Read.`

// Read is the Read tool.
type Read struct {
	*tools.Typed[ReadParams]
	ws *workspace.Workspace
}

// NewRead builds the Read tool over ws.
func NewRead(ws *workspace.Workspace) (*Read, error) {
	r := &Read{ws: ws}
	typed, err := tools.New("Read", readDescription, r.run, tools.WithFixedSchema(func(s *jsonschema.Schema) {
		toolkit.Min(s, "offset", 0)
		toolkit.Min(s, "limit", 1)
	}))
	if err != nil {
		return nil, err
	}
	r.Typed = typed
	return r, nil
}

// ConcurrencySafe reports that Read only reads: the agent may run its calls alongside
// other read-only calls of the same message.
func (r *Read) ConcurrencySafe(json.RawMessage) bool { return true }

// Describe returns the call record for args (the path as given; reads the real path).
func (r *Read) Describe(args json.RawMessage) record.Call {
	p, err := r.Decode(args)
	if err != nil {
		return record.Call{}
	}
	return describePath(r.ws, p.FilePath, false)
}

func describePath(ws *workspace.Workspace, filePath string, write bool) record.Call {
	rec := record.Call{FirstArg: filePath}
	if p, err := ws.Resolve(filePath); err == nil {
		if write {
			rec.Writes = []string{p.Real}
		} else {
			rec.Reads = []string{p.Real}
		}
	}
	return rec
}

func (r *Read) run(ctx context.Context, params ReadParams) llm.ToolResult {
	rec := record.Call{FirstArg: params.FilePath}
	p, err := resolve(r.ws, params.FilePath)
	if err != nil {
		return toolkit.PathFailure(rec, err)
	}
	rec.Reads = []string{p.Real}
	root, err := p.OpenRoot()
	if err != nil {
		return statFailure(rec, p.Abs, err)
	}
	defer root.Close()
	fi, err := root.Stat(p.Rel())
	if err != nil {
		return statFailure(rec, p.Abs, err)
	}
	if fi.IsDir() {
		return dirFailure(rec, p.Abs, "Use Glob or Bash (ls) to list a directory.")
	}
	if !fi.Mode().IsRegular() {
		return notRegularFailure(rec, p.Abs, fi.Mode())
	}
	if fi.Size() == 0 {
		return toolkit.Success(rec, fmt.Sprintf("<system-reminder>Warning: the file %s exists but is empty.</system-reminder>", p.Abs),
			map[string]any{"empty": true})
	}
	f, err := root.Open(p.Rel())
	if err != nil {
		return statFailure(rec, p.Abs, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64*1024)
	prefix, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return toolkit.Failure(rec, toolkit.CodeIO, "Cannot read "+p.Abs+": "+err.Error(), nil)
	}
	if t := imageType(p.Abs, prefix); t != "" {
		return toolkit.Success(rec, fmt.Sprintf("Image file: %s (%s, %s). Its pixels are not shown as text.", p.Abs, t, toolkit.Plural(int(fi.Size()), "byte", "bytes")),
			map[string]any{"image": true, "mimeType": t, "size": fi.Size()})
	}
	if isBinary(prefix) {
		return toolkit.Failure(rec, toolkit.CodeBinary, fmt.Sprintf("Cannot read %s: it is a binary file (%s, %s).", p.Abs, binaryType(p.Abs, prefix), toolkit.Plural(int(fi.Size()), "byte", "bytes")),
			map[string]any{"size": fi.Size()})
	}
	return readLines(ctx, rec, p.Abs, br, params)
}

// readLines formats the requested window and counts the lines after it.
func readLines(ctx context.Context, rec record.Call, display string, br *bufio.Reader, params ReadParams) llm.ToolResult {
	start := max(params.Offset, 1)
	limit := params.Limit
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	var out strings.Builder
	lines := lineReader{br: br}
	lineNo, shown, truncatedLines := 0, 0, 0
	capped := false
	for {
		if lineNo%4096 == 0 && ctx.Err() != nil {
			return toolkit.Failure(rec, toolkit.CodeAborted, "Read of "+display+" was aborted.", nil)
		}
		if shown >= limit || capped {
			rest, err := countLines(br)
			if err != nil {
				return toolkit.Failure(rec, toolkit.CodeIO, "Cannot read "+display+": "+err.Error(), nil)
			}
			lineNo += rest
			break
		}
		if lineNo+1 < start {
			ok, err := lines.skip()
			if err != nil {
				return toolkit.Failure(rec, toolkit.CodeIO, "Cannot read "+display+": "+err.Error(), nil)
			}
			if !ok {
				break
			}
			lineNo++
			continue
		}
		line, dropped, ok, err := lines.next()
		if err != nil {
			return toolkit.Failure(rec, toolkit.CodeIO, "Cannot read "+display+": "+err.Error(), nil)
		}
		if !ok {
			break
		}
		lineNo++
		text := strings.ToValidUTF8(string(line), "\uFFFD")
		if cut := toolkit.TruncatePrefix(text, dropped, MaxLineLength); cut != text {
			text = cut
			truncatedLines++
		}
		entry := fmt.Sprintf("%6d\t%s\n", lineNo, text)
		if out.Len()+len(entry) > MaxReadOutput && shown > 0 {
			capped = true
			continue
		}
		out.WriteString(entry)
		shown++
	}
	total := lineNo
	meta := map[string]any{"startLine": start, "numLines": shown, "totalLines": total}
	if start > total {
		return toolkit.Failure(rec, "offset_past_end", fmt.Sprintf("%s has %s; offset %d is past the end.", display, toolkit.Plural(total, "line", "lines"), start), meta)
	}
	end := start + shown - 1
	if end < total {
		reason := ""
		if capped {
			reason = fmt.Sprintf(" (output capped at %d characters)", MaxReadOutput)
		}
		fmt.Fprintf(&out, "\n(Showing lines %d-%d of %d%s. Use offset and limit to read more.)\n", start, end, total, reason)
	}
	if truncatedLines > 0 {
		fmt.Fprintf(&out, "(%s longer than %d characters truncated.)\n", toolkit.Plural(truncatedLines, "line", "lines"), MaxLineLength)
	}
	return toolkit.Success(rec, out.String(), meta)
}

// countLines counts the lines left in r (a last line without a newline counts).
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 64*1024)
	n, last := 0, byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}
