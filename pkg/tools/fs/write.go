package fs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// WriteParams are the Write tool's parameters.
type WriteParams struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to write (must be inside the working directories)"`
	Content  string `json:"content" jsonschema:"The content to write to the file"`
}

const writeDescription = `Writes a file to the local filesystem, replacing it if it exists.
- file_path should be an absolute path inside the working directories; missing parent directories are created.
- The write is atomic and keeps an existing file's permissions.
- Prefer Edit for changing part of an existing file.
- Content over 32 MiB is refused.`

// Write is the Write tool.
type Write struct {
	*tools.Typed[WriteParams]
	ws      *workspace.Workspace
	maxSize int64 // MaxFileSize; smaller in tests
}

// NewWrite builds the Write tool over ws.
func NewWrite(ws *workspace.Workspace) (*Write, error) {
	w := &Write{ws: ws, maxSize: MaxFileSize}
	typed, err := tools.New("Write", writeDescription, w.run)
	if err != nil {
		return nil, err
	}
	w.Typed = typed
	return w, nil
}

// Describe returns the call record for args.
func (w *Write) Describe(args json.RawMessage) record.Call {
	p, err := w.Decode(args)
	if err != nil {
		return record.Call{}
	}
	return describePath(w.ws, p.FilePath, true)
}

func (w *Write) run(ctx context.Context, params WriteParams) llm.ToolResult {
	rec := record.Call{FirstArg: params.FilePath}
	p, err := resolve(w.ws, params.FilePath)
	if err != nil {
		return toolkit.PathFailure(rec, err)
	}
	rec.Writes = []string{p.Real}
	if size := int64(len(params.Content)); size > w.maxSize {
		return toolkit.Failure(rec, CodeTooLarge, fmt.Sprintf("Cannot write %s: the content is %s, over Write's limit of %s. Nothing was written.",
			p.Abs, sizeText(size), sizeText(w.maxSize)), map[string]any{"size": size, "limit": w.maxSize})
	}
	if ctx.Err() != nil {
		return toolkit.Failure(rec, toolkit.CodeAborted, "Write to "+p.Abs+" was aborted before it started.", nil)
	}
	created, err := writeAtomic(p, []byte(params.Content))
	if err != nil {
		return writeFailure(rec, p.Abs, err)
	}
	lines := strings.Count(params.Content, "\n")
	if params.Content != "" && !strings.HasSuffix(params.Content, "\n") {
		lines++
	}
	meta := map[string]any{"created": created, "bytes": len(params.Content), "lines": lines}
	if created {
		return toolkit.Success(rec, "File created successfully at: "+p.Abs, meta)
	}
	return toolkit.Success(rec, fmt.Sprintf("The file %s has been updated (%s).", p.Abs, toolkit.Plural(lines, "line", "lines")), meta)
}

func writeFailure(rec record.Call, display string, err error) llm.ToolResult {
	if errors.Is(err, errIsDir) {
		return dirFailure(rec, display, "Give the path of a file inside it.")
	}
	return toolkit.Failure(rec, toolkit.CodeIO, "Cannot write "+display+": "+err.Error(), nil)
}
