package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// GrepParams are the Grep tool's parameters (Claude Code's names, ripgrep's flags).
type GrepParams struct {
	Pattern         string `json:"pattern" jsonschema:"The regular expression to search for in file contents (RE2 syntax)"`
	Path            string `json:"path,omitempty" jsonschema:"File or directory to search in (default: the working directory)"`
	Glob            string `json:"glob,omitempty" jsonschema:"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\"); rg --glob semantics"`
	Type            string `json:"type,omitempty" jsonschema:"File type to search (e.g. go, js, py, rust, java); more efficient than glob for standard file types"`
	OutputMode      string `json:"output_mode,omitempty" jsonschema:"\"content\" shows matching lines, \"files_with_matches\" shows file paths (default), \"count\" shows match counts"`
	CaseInsensitive bool   `json:"-i,omitempty" jsonschema:"Case insensitive search"`
	LineNumbers     *bool  `json:"-n,omitempty" jsonschema:"Show line numbers in output (content mode; default true)"`
	After           int    `json:"-A,omitempty" jsonschema:"Number of lines to show after each match (content mode)"`
	Before          int    `json:"-B,omitempty" jsonschema:"Number of lines to show before each match (content mode)"`
	Context         int    `json:"-C,omitempty" jsonschema:"Number of lines to show before and after each match (content mode); -A and -B take precedence"`
	Multiline       bool   `json:"multiline,omitempty" jsonschema:"Enable multiline mode where . matches newlines and patterns can span lines"`
	HeadLimit       int    `json:"head_limit,omitempty" jsonschema:"Limit output to the first N lines or entries"`
}

const grepDescription = `A powerful search tool built on ripgrep.
- Searches file contents with a regular expression (RE2 syntax: \w, \d, \s and \b are ASCII; literal braces need escaping, e.g. interface\{\}).
- Filter files with glob (e.g. "*.js", "**/*.tsx") or type (e.g. "js", "py", "go").
- output_mode: "files_with_matches" (default, newest first), "content" (matching lines, with -A/-B/-C context and -n line numbers), "count".
- .gitignore is respected, hidden files are searched, binary files and files over 64 MiB are skipped.
- Use multiline for patterns that span lines.
- Always use Grep for search tasks instead of grep or rg in Bash.`

// GrepConfig configures the Grep tool.
type GrepConfig struct {
	Workspace *workspace.Workspace
	// RipgrepPath is the rg binary; empty means "rg" from PATH when it is there.
	RipgrepPath string
	// NoRipgrep forces the pure-Go backend.
	NoRipgrep bool
	// Exclude keeps files and directories out of every search (nil: none).
	Exclude Exclude
	// MaxFileSize is the size in bytes above which files are not searched (0:
	// DefaultMaxFileSize). Both backends skip such files in a directory search; a file
	// named as the path gets a file_too_large failure.
	MaxFileSize int64
}

// DefaultMaxFileSize is the largest file Grep searches unless GrepConfig says otherwise.
const DefaultMaxFileSize = 64 << 20

// codeFileTooLarge is the failure code for a named file over the size cap.
const codeFileTooLarge = "file_too_large"

// Grep is the Grep tool.
type Grep struct {
	*tools.Typed[GrepParams]
	ws          *workspace.Workspace
	backend     backend
	exclude     Exclude
	maxFileSize int64
}

// NewGrep builds the Grep tool: ripgrep when available, the Go backend otherwise.
func NewGrep(cfg GrepConfig) (*Grep, error) {
	if cfg.Workspace == nil {
		return nil, errors.New("grep tool: GrepConfig.Workspace is required")
	}
	g := &Grep{ws: cfg.Workspace, backend: goBackend{}, exclude: cfg.Exclude, maxFileSize: cfg.MaxFileSize}
	if g.maxFileSize <= 0 {
		g.maxFileSize = DefaultMaxFileSize
	}
	if !cfg.NoRipgrep {
		path := cfg.RipgrepPath
		if path == "" {
			path, _ = exec.LookPath("rg")
		}
		if path != "" {
			g.backend = rgBackend{path: path}
		}
	}
	typed, err := tools.New("Grep", grepDescription, g.run, tools.WithFixedSchema(func(s *jsonschema.Schema) {
		toolkit.Enum(s, "output_mode", ModeContent, ModeFiles, ModeCount)
		if n := s.Properties["-n"]; n != nil { // a *bool only to tell "absent" from false
			n.Types, n.Type = nil, "boolean"
		}
		for _, p := range []string{"-A", "-B", "-C", "head_limit"} {
			toolkit.Min(s, p, 0)
		}
	}))
	if err != nil {
		return nil, err
	}
	g.Typed = typed
	return g, nil
}

// Backend names the search backend in use ("ripgrep" or "go").
func (g *Grep) Backend() string { return g.backend.name() }

// ConcurrencySafe reports that Grep only reads: the agent may run its calls alongside
// other read-only calls of the same message.
func (g *Grep) ConcurrencySafe(json.RawMessage) bool { return true }

// Describe returns the call record: the pattern, and the searched path as a read.
func (g *Grep) Describe(args json.RawMessage) record.Call {
	p, err := g.Decode(args)
	if err != nil {
		return record.Call{}
	}
	return describeSearch(g.ws, p.Pattern, p.Path)
}

func describeSearch(ws *workspace.Workspace, firstArg, path string) record.Call {
	rec := record.Call{FirstArg: firstArg}
	if path == "" {
		path = ws.Cwd()
	}
	if p, err := ws.Resolve(path); err == nil {
		rec.Reads = []string{p.Real}
	}
	return rec
}

const codeInvalidPattern = "invalid_pattern"

func (g *Grep) run(ctx context.Context, params GrepParams) llm.ToolResult {
	rec := record.Call{FirstArg: params.Pattern}
	req, fail := g.request(&rec, params, g.exclude.forCall(ctx))
	if fail != nil {
		return *fail
	}
	results, err := g.backend.search(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return toolkit.Failure(rec, toolkit.CodeAborted, "The search was aborted.", nil)
		}
		return toolkit.Failure(rec, toolkit.CodeIO, "Search failed: "+err.Error(), nil)
	}
	sortResults(results, req.mode)
	lineNumbers := params.LineNumbers == nil || *params.LineNumbers
	out := formatResults(results, req.mode, lineNumbers, req.before > 0 || req.after > 0, params.HeadLimit)
	return toolkit.Success(rec, out.text, map[string]any{
		"backend": g.backend.name(), "numFiles": out.files, "numMatchingLines": out.lines, "truncated": out.truncated || out.headLimits,
	})
}

// request validates params into a grepRequest, or returns the failed result to give back.
func (g *Grep) request(rec *record.Call, params GrepParams, exclude Exclude) (grepRequest, *llm.ToolResult) {
	fail := func(code, msg string) (grepRequest, *llm.ToolResult) {
		res := toolkit.Failure(*rec, code, msg, nil)
		return grepRequest{}, &res
	}
	req := grepRequest{mode: params.OutputMode, multiline: params.Multiline, exclude: exclude, maxFileSize: g.maxFileSize}
	if req.mode == "" {
		req.mode = ModeFiles
	}
	pat, err := compilePattern(params.Pattern, params.CaseInsensitive, params.Multiline)
	if err != nil {
		return fail(codeInvalidPattern, err.Error())
	}
	req.pat = pat
	if params.Glob != "" {
		o, err := parseOverride(params.Glob)
		if err != nil {
			return fail(toolkit.CodeInvalidArgument, fmt.Sprintf("Invalid glob %q: check its brackets and braces.", params.Glob))
		}
		req.glob, req.globRaw = &o, params.Glob
	}
	if params.Type != "" {
		globs, ok := fileTypes.Get()[strings.ToLower(params.Type)]
		if !ok {
			return fail(toolkit.CodeInvalidArgument, fmt.Sprintf("Unknown file type %q. Known types: %s. Use glob for others.", params.Type, strings.Join(typeNames(), ", ")))
		}
		req.typeGlobs = globs
	}
	req.before, req.after = params.Context, params.Context
	if params.Before > 0 {
		req.before = params.Before
	}
	if params.After > 0 {
		req.after = params.After
	}
	path := params.Path
	if path == "" {
		path = g.ws.Cwd()
	}
	p, err := g.ws.Resolve(path)
	if err != nil {
		res := toolkit.PathFailure(*rec, err)
		return grepRequest{}, &res
	}
	rec.Reads = []string{p.Real}
	fi, err := os.Stat(p.Real)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return fail(toolkit.CodeNotFound, "Path does not exist: "+p.Abs)
	case err != nil:
		return fail(toolkit.CodeIO, "Cannot access "+p.Abs+": "+err.Error())
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return fail(toolkit.CodeNotRegular, p.Abs+" is neither a directory nor a regular file.")
	case !fi.IsDir() && fi.Size() > g.maxFileSize:
		return fail(codeFileTooLarge, fmt.Sprintf("%s is %s, over Grep's limit of %s. Use Read with offset and limit to page through it.",
			p.Abs, toolkit.Plural(int(fi.Size()), "byte", "bytes"), toolkit.Plural(int(g.maxFileSize), "byte", "bytes")))
	}
	req.root, req.isFile = p.Real, !fi.IsDir()
	return req, nil
}

func typeNames() []string {
	names := make([]string, 0, len(fileTypes.Get()))
	for n := range fileTypes.Get() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
