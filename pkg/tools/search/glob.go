package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// MaxGlobResults caps Glob's output.
const MaxGlobResults = 1000

// GlobParams are the Glob tool's parameters.
type GlobParams struct {
	Pattern string `json:"pattern" jsonschema:"The glob pattern to match files against (e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\")"`
	Path    string `json:"path,omitempty" jsonschema:"The directory to search in (default: the working directory)"`
}

const globDescription = `Fast file pattern matching for any codebase size.
- Supports glob patterns like "**/*.js" or "src/**/*.ts" (**, *, ?, [abc], {a,b}).
- Returns matching file paths sorted by modification time, newest first (at most 1000).
- .gitignore is respected; hidden files are included.
- Use Grep to search file contents.`

// GlobConfig configures the Glob tool.
type GlobConfig struct {
	Workspace *workspace.Workspace
	// Exclude keeps files and directories out of every listing (nil: none).
	Exclude Exclude
}

// Glob is the Glob tool.
type Glob struct {
	*tools.Typed[GlobParams]
	ws      *workspace.Workspace
	exclude Exclude
}

// NewGlob builds the Glob tool.
func NewGlob(cfg GlobConfig) (*Glob, error) {
	if cfg.Workspace == nil {
		return nil, errors.New("glob tool: GlobConfig.Workspace is required")
	}
	g := &Glob{ws: cfg.Workspace, exclude: cfg.Exclude}
	typed, err := tools.New("Glob", globDescription, g.run)
	if err != nil {
		return nil, err
	}
	g.Typed = typed
	return g, nil
}

// ConcurrencySafe reports that Glob only reads: the agent may run its calls alongside
// other read-only calls of the same message.
func (g *Glob) ConcurrencySafe(json.RawMessage) bool { return true }

// Describe returns the call record: the pattern, and the searched directory as a read.
func (g *Glob) Describe(args json.RawMessage) record.Call {
	p, err := g.Decode(args)
	if err != nil {
		return record.Call{}
	}
	return describeSearch(g.ws, p.Pattern, p.Path)
}

func (g *Glob) run(ctx context.Context, params GlobParams) llm.ToolResult {
	rec := record.Call{FirstArg: params.Pattern}
	pattern, dir := filepath.ToSlash(params.Pattern), params.Path
	if filepath.IsAbs(params.Pattern) {
		// An absolute pattern carries its own directory: split it off the static prefix.
		base, rest := doublestar.SplitPattern(pattern)
		dir, pattern = filepath.FromSlash(base), rest
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == ".." {
			return toolkit.Failure(rec, codeInvalidPattern, fmt.Sprintf("Glob pattern %q contains \"..\": give the directory to search in as path instead.", params.Pattern), nil)
		}
	}
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return toolkit.Failure(rec, codeInvalidPattern, fmt.Sprintf("Invalid glob pattern %q: check its brackets and braces.", params.Pattern), nil)
	}
	if dir == "" {
		dir = g.ws.Cwd()
	}
	p, err := g.ws.Resolve(dir)
	if err != nil {
		return toolkit.PathFailure(rec, err)
	}
	rec.Reads = []string{p.Real}
	switch fi, err := os.Stat(p.Real); {
	case errors.Is(err, iofs.ErrNotExist):
		return toolkit.Failure(rec, toolkit.CodeNotFound, "Directory does not exist: "+p.Abs, nil)
	case err != nil:
		return toolkit.Failure(rec, toolkit.CodeIO, "Cannot access "+p.Abs+": "+err.Error(), nil)
	case !fi.IsDir():
		return toolkit.Failure(rec, toolkit.CodeNotDirectory, p.Abs+" is not a directory. Give the directory to search in as path.", nil)
	}
	matches, total, err := globFiles(ctx, p.Real, pattern, g.exclude.forCall(ctx), MaxGlobResults)
	if err != nil {
		return toolkit.Failure(rec, toolkit.CodeAborted, "The search was aborted.", nil)
	}
	meta := map[string]any{"numFiles": total, "truncated": total > MaxGlobResults}
	if total == 0 {
		return toolkit.Success(rec, "No files found", meta)
	}
	var b strings.Builder
	for _, m := range matches {
		b.WriteString(m.path)
		b.WriteByte('\n')
	}
	if total > MaxGlobResults {
		fmt.Fprintf(&b, "(Results are truncated: showing the %d most recently modified of %d files. Use a more specific path or pattern.)\n", MaxGlobResults, total)
	}
	return toolkit.Success(rec, strings.TrimSuffix(b.String(), "\n"), meta)
}

// globFiles returns the limit newest files below root whose root-relative path matches
// pattern and that exclude leaves in, newest first (ties by path), and how many matched in
// all. It holds at most limit matches at any time, however many files match. The walk
// starts at the pattern's static prefix and, for a pattern without **, goes no deeper than
// it has segments.
func globFiles(ctx context.Context, root, pattern string, exclude Exclude, limit int) ([]globMatch, int, error) {
	if exclude.excludes(root) {
		return nil, 0, ctx.Err()
	}
	base, _ := doublestar.SplitPattern(pattern)
	var prefix []string
	if base != "." {
		prefix = strings.Split(base, "/")
	}
	depth := -1
	if !strings.Contains(pattern, "**") {
		depth = strings.Count(pattern, "/") + 1
	}
	var (
		mu     sync.Mutex
		newest = newNewestN(limit)
	)
	policy := withExclude(globPolicy{pattern: pattern, depth: depth}, exclude)
	err := walk(ctx, root, prefix, policy, func(e entry) {
		var mtime int64
		if fi, err := e.d.Info(); err == nil {
			mtime = fi.ModTime().UnixNano()
		}
		mu.Lock()
		newest.add(globMatch{path: e.abs, mtime: mtime})
		mu.Unlock()
	})
	if err != nil {
		return nil, 0, err
	}
	return newest.sorted(), newest.total, nil
}

type globPolicy struct {
	pattern string
	depth   int // maximum path segments, -1 for unlimited
}

func (p globPolicy) descend(e entry) bool {
	if e.ignored {
		return false
	}
	return p.depth < 0 || strings.Count(e.rel, "/")+1 < p.depth
}

func (p globPolicy) include(e entry) bool {
	if e.ignored {
		return false
	}
	ok, _ := doublestar.Match(p.pattern, e.rel)
	return ok
}
