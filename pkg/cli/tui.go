package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/charmbracelet/x/term"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
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
	var sess tui.Session
	if o.Engine != "" {
		r, code := engineSession(ctx, o, cwd, stderr)
		if r == nil {
			return code
		}
		sess = r
	} else {
		workers := pool.New(pool.Launcher(nil, nil))
		defer workers.Close()
		s, err := interactive.New(ctx, sessionOptions(o, cwd, workers))
		if err != nil {
			return reportSetupError(err, stderr)
		}
		printWarnings(stderr, s.Assembled(), o.Verbose)
		sess = tui.NewInProcess(s, cwd)
	}
	id := sess.Info().ID
	err = tui.Run(ctx, sess, tui.Options{In: stdin, Out: out, HistoryFile: historyFile(), NoColor: noColor()})
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "Resume this session with:\nrobota --resume %s\n", id)
	return exitOK
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
