package fs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// EditParams are the Edit tool's parameters.
type EditParams struct {
	FilePath   string `json:"file_path" jsonschema:"The absolute path to the file to modify"`
	OldString  string `json:"old_string" jsonschema:"The exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"The text to replace it with (must differ from old_string)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_string (default false)"`
}

const editDescription = `Performs an exact string replacement in a file.
- old_string must occur exactly once in the file, unless replace_all is true; include enough surrounding context to make it unique.
- Preserve the exact indentation of the file; do not include the line-number prefix Read shows.
- An empty old_string creates a file that does not exist yet (or fills an empty one).
- The write is atomic; the result gives the line of the first change and a unified diff.
- Files over 32 MiB are refused; change them with a command instead.`

// Edit is the Edit tool.
type Edit struct {
	*tools.Typed[EditParams]
	ws      *workspace.Workspace
	maxSize int64 // MaxFileSize; smaller in tests
}

// NewEdit builds the Edit tool over ws.
func NewEdit(ws *workspace.Workspace) (*Edit, error) {
	e := &Edit{ws: ws, maxSize: MaxFileSize}
	typed, err := tools.New("Edit", editDescription, e.run)
	if err != nil {
		return nil, err
	}
	e.Typed = typed
	return e, nil
}

// Describe returns the call record for args.
func (e *Edit) Describe(args json.RawMessage) record.Call {
	p, err := e.Decode(args)
	if err != nil {
		return record.Call{}
	}
	return describePath(e.ws, p.FilePath, true)
}

func (e *Edit) run(ctx context.Context, params EditParams) llm.ToolResult {
	rec := record.Call{FirstArg: params.FilePath}
	p, err := resolve(e.ws, params.FilePath)
	if err != nil {
		return toolkit.PathFailure(rec, err)
	}
	rec.Writes = []string{p.Real}
	if params.OldString == params.NewString {
		return toolkit.Failure(rec, "no_change", "No changes to make: old_string and new_string are exactly the same.", nil)
	}
	root, err := p.OpenRoot()
	if err != nil {
		return statFailure(rec, p.Abs, err)
	}
	defer root.Close()
	fi, err := root.Stat(p.Rel())
	switch {
	case errors.Is(err, iofs.ErrNotExist) && params.OldString == "":
		return e.write(ctx, rec, p, "", replacement{content: params.NewString, count: 1, startLine: 1})
	case err != nil:
		return statFailure(rec, p.Abs, err)
	case fi.IsDir():
		return dirFailure(rec, p.Abs, "Edit changes files.")
	case !fi.Mode().IsRegular():
		return notRegularFailure(rec, p.Abs, fi.Mode())
	}
	if fi.Size() > e.maxSize {
		return e.tooLarge(rec, p.Abs, fi.Size())
	}
	data, err := readAtMost(root, p.Rel(), e.maxSize)
	if errors.Is(err, errTooLarge) { // it grew since the stat
		return e.tooLarge(rec, p.Abs, int64(len(data)))
	}
	if err != nil {
		return statFailure(rec, p.Abs, err)
	}
	if isBinary(data) {
		return toolkit.Failure(rec, toolkit.CodeBinary, fmt.Sprintf("Cannot edit %s: it is a binary file.", p.Abs), nil)
	}
	content := string(data)
	if params.OldString == "" {
		if content != "" {
			return toolkit.Failure(rec, "empty_old_string", fmt.Sprintf("old_string is empty but %s is not empty. Give the exact text to replace, or use Write to replace the whole file.", p.Abs), nil)
		}
		return e.write(ctx, rec, p, content, replacement{content: params.NewString, count: 1, startLine: 1})
	}
	r, err := replace(content, params.OldString, params.NewString, params.ReplaceAll)
	switch {
	case errors.Is(err, errNoMatch):
		return toolkit.Failure(rec, "no_match", fmt.Sprintf("String to replace not found in %s. The file was not changed.\nString: %s", p.Abs, toolkit.Quote(params.OldString, 500)), nil)
	case errors.Is(err, errAmbiguous):
		return toolkit.Failure(rec, "ambiguous_match", fmt.Sprintf("Found %d matches of the string to replace in %s, but replace_all is false. The file was not changed. To replace every occurrence, set replace_all to true; to replace one, add surrounding context to old_string so it matches exactly once.\nString: %s", r.matches, p.Abs, toolkit.Quote(params.OldString, 500)),
			map[string]any{"matches": r.matches})
	case err != nil:
		return toolkit.Failure(rec, toolkit.CodeInvalidArgument, err.Error(), nil)
	}
	return e.write(ctx, rec, p, content, r)
}

func (e *Edit) tooLarge(rec record.Call, display string, size int64) llm.ToolResult {
	return toolkit.Failure(rec, CodeTooLarge, fmt.Sprintf("Cannot edit %s: it is %s, over Edit's limit of %s. The file was not read or changed; change a file this large with a command (sed, a script) instead.",
		display, sizeText(size), sizeText(e.maxSize)), map[string]any{"size": size, "limit": e.maxSize})
}

// readAtMost reads the file at rel, failing with errTooLarge (and the bytes read so far)
// once it holds more than limit bytes: the file may have grown since it was measured.
func readAtMost(root *os.Root, rel string, limit int64) ([]byte, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return data, errTooLarge
	}
	return data, nil
}

var errTooLarge = errors.New("file too large")

func (e *Edit) write(ctx context.Context, rec record.Call, p workspace.Path, before string, r replacement) llm.ToolResult {
	if ctx.Err() != nil {
		return toolkit.Failure(rec, toolkit.CodeAborted, "Edit of "+p.Abs+" was aborted before writing.", nil)
	}
	created, err := writeAtomic(p, []byte(r.content))
	if err != nil {
		return writeFailure(rec, p.Abs, err)
	}
	diff := udiff.Unified(p.Abs, p.Abs, before, r.content)
	meta := map[string]any{"startLine": r.startLine, "replacements": r.count, "diff": diff}
	if created {
		meta["created"] = true
		return toolkit.Success(rec, fmt.Sprintf("File created successfully at: %s\n\n%s", p.Abs, diff), meta)
	}
	out := fmt.Sprintf("The file %s has been updated: %s, first change at line %d.", p.Abs, toolkit.Plural(r.count, "replacement", "replacements"), r.startLine)
	if r.crlf {
		out += " (old_string and new_string were matched with the file's CRLF line endings.)"
	}
	return toolkit.Success(rec, out+"\n\n"+diff, meta)
}
