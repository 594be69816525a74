package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"

	"github.com/charmbracelet/x/term"

	"github.com/robota-sdk/robota-go/pkg/runner/pool"
	"github.com/robota-sdk/robota-go/pkg/tui"
)

// runInteractive starts the terminal UI (pkg/tui) over an in-process session, or over a
// session in the engine at --engine. It needs a terminal on stdin and stdout; without
// one it says how to run headless.
func runInteractive(ctx context.Context, o Options, stdin *os.File, stdout, stderr io.Writer) int {
	out, _ := stdout.(*os.File)
	if !term.IsTerminal(stdin.Fd()) || out == nil || !term.IsTerminal(out.Fd()) {
		fmt.Fprintln(stderr, "robota: the interactive UI needs a terminal (stdin and stdout); for a headless run use robota -p \"PROMPT\" (or pipe the prompt: CMD | robota -p)")
		return exitConfig
	}
	cwd, err := resolveCwd(o.Cwd)
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitConfig
	}
	if code, ok := askTrust(cwd, stdin, out, stderr); !ok {
		return code
	}
	if !o.StrictMCPConfig {
		if code, ok := askMCPServers(cwd, stdin, out, stderr); !ok {
			return code
		}
	}
	var sess tui.Session
	var deferred *tui.Deferred
	var open func(context.Context, string) (tui.Session, error)
	if o.Engine != "" {
		r, code := engineSession(ctx, o, cwd, stderr)
		if r == nil {
			return code
		}
		sess = r
		open = func(_ context.Context, id string) (tui.Session, error) {
			return openEngineSession(ctx, resumeOptions(o, id), cwd)
		}
	} else {
		workers := pool.New(pool.Launcher(nil, nil))
		defer workers.Close()
		// The first frame does not wait for the session: it assembles while the UI
		// shows (DESIGN: the first frame within 100 ms); a setup error ends the UI and
		// is reported as a headless run reports it.
		d := tui.NewDeferred(tui.Info{Cwd: cwd, Model: o.Model, PermissionMode: o.PermissionMode}, func() (tui.Session, []string, error) {
			s, err := assemble.New(ctx, sessionOptions(o, cwd, workers))
			if err != nil {
				return nil, nil, err
			}
			var notes strings.Builder
			printWarnings(&notes, assemble.Of(s), o.Verbose)
			return tui.NewInProcess(s, cwd), strings.Split(strings.TrimSpace(notes.String()), "\n"), nil
		})
		deferred, sess = d, d
		open = func(_ context.Context, id string) (tui.Session, error) {
			s, err := assemble.New(ctx, sessionOptions(resumeOptions(o, id), cwd, workers))
			if err != nil {
				return nil, err
			}
			return tui.NewInProcess(s, cwd), nil
		}
	}
	var last string
	err = tui.Run(ctx, sess, tui.Options{In: stdin, Out: out, HistoryFile: historyFile(), NoColor: noColor(), Prompt: o.Prompt,
		Open: open, PickSession: o.PickSession, Ended: func(id string) { last = id }})
	if deferred != nil && deferred.Err() != nil {
		return reportSetupError(deferred.Err(), stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "Resume this session with:\nrobota --resume %s\n", last)
	return exitOK
}

// resumeOptions are the options of a session opened by /resume: o's, resuming id (an id
// or a name) instead of what the command line started.
func resumeOptions(o Options, id string) Options {
	o.Resume, o.Continue, o.ForkSession, o.PickSession = id, false, false, false
	o.Prompt, o.SessionID, o.Name = "", "", ""
	return o
}

// askTrust asks whether to trust cwd at the first interactive start there, before the
// session reads any project setting, hook or MCP server; the answer is remembered in
// the user's ~/.robota/trusted-folders.json. Headless -p never asks (trust implied, as
// claude -p). ok false: exit with code.
func askTrust(cwd string, stdin, out *os.File, stderr io.Writer) (code int, ok bool) {
	home, err := os.UserHomeDir()
	if err != nil {
		return exitOK, true // no user settings to remember it in: nothing to ask against
	}
	path := filepath.Join(home, tui.TrustFile)
	trusted, err := tui.Trusted(path, cwd)
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitConfig, false
	}
	if trusted {
		return exitOK, true
	}
	yes, err := tui.AskTrust(stdin, out, cwd, noColor())
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitFailed, false
	}
	if !yes {
		fmt.Fprintf(stderr, "robota: %s is not trusted; nothing was run (robota -p runs without asking)\n", cwd)
		return exitFailed, false
	}
	if err := tui.Trust(path, cwd, time.Now()); err != nil {
		fmt.Fprintf(stderr, "robota: warning: could not remember the trust in %s: %v\n", path, err)
	}
	return exitOK, true
}

// askMCPServers asks about each project .mcp.json server no setting approves or
// refuses yet, before the session starts any, and keeps the answers in the project's
// .claude/settings.local.json (Claude Code's dialog). ok false: exit with code.
func askMCPServers(cwd string, stdin, out *os.File, stderr io.Writer) (code int, ok bool) {
	home, _ := os.UserHomeDir()
	pending, err := tui.PendingMCPServers(home, cwd)
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitConfig, false
	}
	for _, name := range pending {
		choice, err := tui.AskMCP(stdin, out, name, noColor())
		if err != nil {
			fmt.Fprintf(stderr, "robota: %v\n", err)
			return exitFailed, false
		}
		if err := tui.RecordMCPChoice(cwd, name, choice); err != nil {
			fmt.Fprintf(stderr, "robota: could not keep the answer about MCP server %q: %v\n", name, err)
			return exitFailed, false
		}
		if choice == tui.MCPAllowAll {
			break
		}
	}
	return exitOK, true
}

// historyFile is the prompt history shared by the user's sessions (per project inside).
func historyFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".robota", "history.jsonl")
}

// noColor follows NO_COLOR (any value) and a dumb terminal.
func noColor() bool {
	_, set := os.LookupEnv("NO_COLOR")
	return set || os.Getenv("TERM") == "dumb"
}
