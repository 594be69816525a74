package bash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/robota-sdk/robota-go/pkg/engine/llm/tooloutput"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
)

// Limits of the Bash tool.
const (
	DefaultTimeout  = 120_000 // ms
	MaxTimeout      = 600_000 // ms
	MaxOutputChars  = 30_000
	drainGrace      = 2 * time.Second // how long output is still read after the group is gone
	codeTimeout     = "timeout"
	codeExitStatus  = "exit_status"
	codeStartFailed = "start_failed"
)

// Params are the Bash tool's parameters.
type Params struct {
	Command         string `json:"command" jsonschema:"The command to execute"`
	Timeout         int    `json:"timeout,omitempty" jsonschema:"Optional timeout in milliseconds (default 120000, max 600000)"`
	Description     string `json:"description,omitempty" jsonschema:"Clear, concise description of what this command does in 5-10 words"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Set to true to run this command in the background; its output is read later"`
}

// BackgroundRunner starts commands that outlive the tool call (filled by the runner layer).
type BackgroundRunner interface {
	StartBackground(ctx context.Context, req BackgroundRequest) (id string, err error)
}

// BackgroundRequest is what a BackgroundRunner is asked to start.
type BackgroundRequest struct {
	Command     string
	Description string
	Cwd         string
	// ToolCallID links the background task to the call that started it (may be empty).
	ToolCallID string
	// Env is the environment the command must run with (Config.Env); nil means the
	// runner's own.
	Env []string
}

// Config configures the Bash tool.
type Config struct {
	// Cwd is the directory commands run in (the session's cwd). Required.
	Cwd string
	// Shell is the shell binary; empty means bash from PATH, else /bin/sh.
	Shell string
	// Env is the environment of foreground and background commands (the settings `env`
	// applied); nil means the engine's own.
	Env []string
	// Background runs run_in_background commands; nil makes them fail as not available.
	Background BackgroundRunner
	// MaxOutputChars overrides the 30,000-character output limit (tests).
	MaxOutputChars int
	// Isolate, when set, makes the process a command runs as: the composition root runs
	// commands in the session's sandbox through it (pkg/sandbox). It returns nil to run
	// the command as usual. The command it returns must be in a process group of its own,
	// so a timeout kills everything it started. ctx is the call's: it may carry what the
	// sandbox of this one command is (a worker's job gets it from the engine with each
	// command, runnerapi.SandboxFrom).
	Isolate func(ctx context.Context, shell string, argv []string, dir string, env []string, command string) (*exec.Cmd, error)
	// Spawn, when set, starts a command elsewhere, before Isolate is asked: the
	// composition root runs commands in the session's sandbox server through it
	// (pkg/sandbox), which costs a message instead of a new sandbox per command. Its
	// stdout and stderr go to out. It returns nil to run the command as usual.
	Spawn func(shell string, argv []string, dir string, env []string, command string, out *os.File) (Process, error)
	// OutputDir is where the whole output of a truncated command is saved (created on
	// first use), so the model can Read what was cut; it must be a directory the Read
	// tool may read. Empty: output is not saved and the truncation note says so.
	OutputDir string
}

const description = `Executes a bash command in the session's working directory and returns its combined stdout and stderr.
- Each call starts a fresh shell in the working directory; use absolute paths or cd within one command.
- timeout is in milliseconds (default 120000, max 600000); on timeout the command and every process it started are killed.
- Output over 30000 characters is truncated in the middle; the note in its place says how many characters were cut and names the file holding the full output, which Read can open.
- Prefer Read, Edit, Write, Glob and Grep over cat, sed, echo >, find and grep.
- Set run_in_background for long-running processes such as servers.`

// Bash is the Bash tool.
type Bash struct {
	*tools.Typed[Params]
	cfg Config
}

// New builds the Bash tool.
func New(cfg Config) (*Bash, error) {
	if cfg.Cwd == "" {
		return nil, errors.New("bash tool: Config.Cwd is required")
	}
	if cfg.Shell == "" {
		cfg.Shell = "/bin/sh"
		if p, err := exec.LookPath("bash"); err == nil {
			cfg.Shell = p
		}
	}
	if cfg.MaxOutputChars <= 0 {
		cfg.MaxOutputChars = MaxOutputChars
	}
	b := &Bash{cfg: cfg}
	typed, err := tools.New("Bash", description, b.run, tools.WithFixedSchema(func(s *jsonschema.Schema) {
		toolkit.Min(s, "timeout", 1)
		toolkit.Max(s, "timeout", MaxTimeout)
	}))
	if err != nil {
		return nil, err
	}
	b.Typed = typed
	return b, nil
}

// Describe returns the call record: the command is the first argument; which paths a shell
// command touches is not knowable from its text, so none are listed.
func (b *Bash) Describe(args json.RawMessage) record.Call {
	p, err := b.Decode(args)
	if err != nil {
		return record.Call{}
	}
	return record.Call{FirstArg: p.Command}
}

func (b *Bash) run(ctx context.Context, p Params) llm.ToolResult {
	rec := record.Call{FirstArg: p.Command}
	if strings.TrimSpace(p.Command) == "" {
		return toolkit.Failure(rec, toolkit.CodeInvalidArgument, "The command is empty.", nil)
	}
	if p.RunInBackground {
		return b.background(ctx, rec, p)
	}
	if ctx.Err() != nil {
		return toolkit.Failure(rec, toolkit.CodeAborted, "The command was not started: the call was aborted.", nil)
	}
	timeout := time.Duration(p.Timeout) * time.Millisecond
	if p.Timeout <= 0 {
		timeout = DefaultTimeout * time.Millisecond
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	capt, state, err := b.exec(runCtx, p.Command, b.spillFile(ctx))
	elapsed := time.Since(start)
	if err != nil {
		return toolkit.Failure(rec, codeStartFailed, "Cannot start the command: "+err.Error(), nil)
	}
	out := capt.result(b.cfg.MaxOutputChars)
	text := strings.TrimRight(out.text, "\n")
	meta := map[string]any{
		"exitCode":    state.ExitCode(),
		"truncated":   out.truncated,
		"outputChars": capt.runes,
		"durationMs":  elapsed.Milliseconds(),
	}
	if out.truncated {
		meta["truncatedChars"] = out.cut
		if out.path != "" {
			meta["fullOutputPath"] = out.path
		}
	}
	if p.Description != "" {
		meta["description"] = p.Description
	}
	switch {
	case ctx.Err() != nil:
		meta["interrupted"] = true
		res := toolkit.Failure(rec, toolkit.CodeAborted, "The command was aborted; its process group was killed.", meta)
		res.Output = text
		return res
	case runCtx.Err() != nil:
		meta["timedOut"] = true
		res := toolkit.Failure(rec, codeTimeout, fmt.Sprintf("The command timed out after %d ms; its process group was killed.", timeout.Milliseconds()), meta)
		res.Output = text
		return res
	case !state.Success():
		res := toolkit.Failure(rec, codeExitStatus, exitText(state), meta)
		res.Output = text
		return res
	}
	if text == "" {
		text = "(no output)"
	}
	return toolkit.Success(rec, text, meta)
}

// spillFile returns the opener of the file a truncated output is saved in, named after
// the tool call; nil when no OutputDir is configured.
func (b *Bash) spillFile(ctx context.Context) func() (*os.File, error) {
	if b.cfg.OutputDir == "" {
		return nil
	}
	id := "call"
	if info, ok := llm.ToolCallFrom(ctx); ok && info.ID != "" {
		id = info.ID
	}
	return func() (*os.File, error) {
		return tooloutput.CreateFile(b.cfg.OutputDir, "bash-"+tooloutput.FileNamePart(id))
	}
}

// Process is a command Spawn started.
type Process interface {
	// Wait waits for the command; what it left in its process group is killed then.
	Wait() (syscall.WaitStatus, error)
	// Kill kills the command's process group.
	Kill() error
}

// exitState is how a command ended.
type exitState struct{ ws syscall.WaitStatus }

func stateOf(ps *os.ProcessState) exitState {
	ws, _ := ps.Sys().(syscall.WaitStatus)
	return exitState{ws}
}

// ExitCode is the exit code, -1 when a signal ended the command (as os.ProcessState's).
func (e exitState) ExitCode() int {
	if e.ws.Signaled() {
		return -1
	}
	return e.ws.ExitStatus()
}

func (e exitState) Success() bool { return e.ExitCode() == 0 }

func exitText(state exitState) string {
	if ws := state.ws; ws.Signaled() {
		return fmt.Sprintf("The command was killed by signal %d (%s).", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("Exit code %d", state.ExitCode())
}

// exec runs command in its own process group and returns its captured output and exit
// state. When ctx ends first, the group is killed.
func (b *Bash) exec(ctx context.Context, command string, spill func() (*os.File, error)) (*capture, exitState, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, exitState{}, err
	}
	defer pr.Close()
	if b.cfg.Spawn != nil {
		proc, err := b.cfg.Spawn(b.cfg.Shell, []string{b.cfg.Shell, "-c", command}, b.cfg.Cwd, b.cfg.Env, command, pw)
		if err != nil {
			pw.Close()
			return nil, exitState{}, err
		}
		if proc != nil {
			pw.Close() // the command holds the only write ends now
			return b.collect(ctx, pr, spill, proc.Wait, proc.Kill)
		}
	}
	var cmd *exec.Cmd
	if b.cfg.Isolate != nil {
		if cmd, err = b.cfg.Isolate(ctx, b.cfg.Shell, []string{b.cfg.Shell, "-c", command}, b.cfg.Cwd, b.cfg.Env, command); err != nil {
			pw.Close()
			return nil, exitState{}, err
		}
	}
	if cmd == nil {
		cmd = exec.Command(b.cfg.Shell, "-c", command)
		cmd.Dir = b.cfg.Cwd
		cmd.Env = b.cfg.Env
		cmd.SysProcAttr = shellAttrs()
	}
	cmd.Stdout = pw
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, exitState{}, err
	}
	pw.Close() // the children hold the only write ends now
	pgid := cmd.Process.Pid
	killGroup := func() error { return syscall.Kill(-pgid, syscall.SIGKILL) }
	return b.collect(ctx, pr, spill, func() (syscall.WaitStatus, error) {
		_ = cmd.Wait()
		// Whatever the shell left running in its group would keep the pipe open: end it.
		_ = killGroup()
		return stateOf(cmd.ProcessState).ws, nil
	}, killGroup)
}

// collect reads a started command's output from pr until it ends (killing its group when
// ctx ends first) and returns the output and how it ended.
func (b *Bash) collect(ctx context.Context, pr *os.File, spill func() (*os.File, error),
	wait func() (syscall.WaitStatus, error), kill func() error) (*capture, exitState, error) {
	out := newCapture(b.cfg.MaxOutputChars, spill)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr)
	}()
	var ws syscall.WaitStatus
	var werr error
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		ws, werr = wait()
	}()
	select {
	case <-waited:
	case <-ctx.Done():
		_ = kill()
		<-waited
	}
	// A process that left the group (setsid) may still hold the pipe; do not wait forever.
	_ = pr.SetReadDeadline(time.Now().Add(drainGrace))
	<-copied
	if werr != nil {
		return nil, exitState{}, werr
	}
	return out, exitState{ws}, nil
}

func (b *Bash) background(ctx context.Context, rec record.Call, p Params) llm.ToolResult {
	if b.cfg.Background == nil {
		return toolkit.Failure(rec, toolkit.CodeNotAvailable,
			"Background execution is not available in this session: no background runner is configured. Run the command without run_in_background, or with a timeout.", nil)
	}
	req := BackgroundRequest{Command: p.Command, Description: p.Description, Cwd: b.cfg.Cwd, Env: b.cfg.Env}
	if info, ok := llm.ToolCallFrom(ctx); ok {
		req.ToolCallID = info.ID
	}
	id, err := b.cfg.Background.StartBackground(ctx, req)
	if err != nil {
		return toolkit.Failure(rec, codeStartFailed, "Cannot start the background command: "+err.Error(), nil)
	}
	return toolkit.Success(rec, "Command running in background with ID: "+id, map[string]any{"backgroundTaskId": id})
}
