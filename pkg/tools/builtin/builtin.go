package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/bash"
	"github.com/robota-sdk/robota-go/pkg/tools/fs"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/search"
	"github.com/robota-sdk/robota-go/pkg/tools/web"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// Names lists the built-in tools in the order New returns them.
var Names = []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep", "WebFetch", "WebSearch"}

// Config configures the built-in tools.
type Config struct {
	// Cwd is the session's working directory; AdditionalDirectories widen the workspace.
	Cwd                   string
	AdditionalDirectories []string
	// Env is the environment of Bash commands; nil means the engine's own.
	Env []string
	// ToolOutputDir is where Bash saves the whole output of a command it truncates (see
	// bash.Config.OutputDir); it should be inside the workspace so Read can open it.
	ToolOutputDir string
	// Background runs Bash's run_in_background commands (nil: not available).
	Background bash.BackgroundRunner
	// Search backs WebSearch (nil: not available).
	Search web.SearchBackend
	// Fetch configures WebFetch (timeouts, size caps, prompt processor).
	Fetch web.FetchConfig
	// NoRipgrep forces Grep's pure-Go backend even when rg is on PATH.
	NoRipgrep bool
	// Isolate runs Bash commands in the session's sandbox (bash.Config.Isolate); nil runs
	// them as they are.
	Isolate func(ctx context.Context, shell string, argv []string, dir string, env []string, command string) (*exec.Cmd, error)
	// Spawn starts Bash commands in the session's sandbox server (bash.Config.Spawn);
	// nil leaves them to Isolate.
	Spawn func(shell string, argv []string, dir string, env []string, command string, out *os.File) (bash.Process, error)
	// Exclude, when set, reports whether a search tool ("Grep" or "Glob") must leave the
	// file or directory at absPath out: such files are never read, matched, counted or
	// listed (see search.Exclude). It lets deny rules reach every file a search walks over;
	// the tool name is there because rules may name one search tool only. It is called
	// concurrently.
	Exclude func(tool, absPath string) bool
}

// Describer is what every built-in tool implements: the call record for a call's arguments.
type Describer interface {
	Describe(args json.RawMessage) record.Call
}

// New builds the eight tools over the workspace cfg describes.
func New(cfg Config) ([]llm.Tool, *workspace.Workspace, error) {
	ws, err := workspace.New(cfg.Cwd, cfg.AdditionalDirectories...)
	if err != nil {
		return nil, nil, err
	}
	bashTool, err := bash.New(bash.Config{Cwd: ws.Cwd(), Env: cfg.Env, Background: cfg.Background, OutputDir: cfg.ToolOutputDir,
		Isolate: cfg.Isolate, Spawn: cfg.Spawn})
	if err != nil {
		return nil, nil, fmt.Errorf("building Bash: %w", err)
	}
	read, err := fs.NewRead(ws)
	if err != nil {
		return nil, nil, fmt.Errorf("building Read: %w", err)
	}
	write, err := fs.NewWrite(ws)
	if err != nil {
		return nil, nil, fmt.Errorf("building Write: %w", err)
	}
	edit, err := fs.NewEdit(ws)
	if err != nil {
		return nil, nil, fmt.Errorf("building Edit: %w", err)
	}
	glob, err := search.NewGlob(search.GlobConfig{Workspace: ws, Exclude: cfg.excludeFor("Glob")})
	if err != nil {
		return nil, nil, fmt.Errorf("building Glob: %w", err)
	}
	grep, err := search.NewGrep(search.GrepConfig{Workspace: ws, NoRipgrep: cfg.NoRipgrep, Exclude: cfg.excludeFor("Grep")})
	if err != nil {
		return nil, nil, fmt.Errorf("building Grep: %w", err)
	}
	fetch, err := web.NewFetch(cfg.Fetch)
	if err != nil {
		return nil, nil, fmt.Errorf("building WebFetch: %w", err)
	}
	webSearch, err := web.NewSearch(cfg.Search)
	if err != nil {
		return nil, nil, fmt.Errorf("building WebSearch: %w", err)
	}
	return []llm.Tool{bashTool, read, write, edit, glob, grep, fetch, webSearch}, ws, nil
}

func (cfg Config) excludeFor(tool string) search.Exclude {
	if cfg.Exclude == nil {
		return nil
	}
	return func(absPath string) bool { return cfg.Exclude(tool, absPath) }
}

// Describe returns the record of a call to tool, when tool is a Describer.
func Describe(tool llm.Tool, args json.RawMessage) (record.Call, bool) {
	d, ok := tool.(Describer)
	if !ok {
		return record.Call{}, false
	}
	return d.Describe(args), true
}
