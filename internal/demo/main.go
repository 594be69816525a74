// Command demo is `make demo`: it runs the real binaries offline and shows,
// step by step, what the system does. Every step is a real process, file,
// socket or RPC; the only scripted part is the model (the script provider).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/robota-sdk/robota-go/internal/engineproc"
)

func main() {
	bin := flag.String("bin", "bin", "directory holding robota, robota-engine and robota-worker")
	examples := flag.String("examples", "examples", "directory holding demo/, demo.script.yaml and engine-clients/")
	only := flag.String("only", "", "run one part: tui or hosts")
	flag.StringVar(&screenshots, "screenshots", "", "with -only tui: write PNGs of the TUI's screens to this directory (the README's pictures)")
	flag.Parse()
	do := run
	if *only == "tui" {
		do = func(bin, examples string) error {
			bin, _ = filepath.Abs(bin)
			examples, _ = filepath.Abs(examples)
			return runTUI(bin, examples, 1)
		}
	}
	if *only == "hosts" {
		do = func(bin, _ string) error {
			bin, _ = filepath.Abs(bin)
			return runHosts(bin, 1)
		}
	}
	if err := do(*bin, *examples); err != nil {
		fmt.Fprintf(os.Stderr, "\ndemo failed: %v\n", err)
		os.Exit(1)
	}
}

func step(n int, title string)    { fmt.Printf("\n\033[1m[%d] %s\033[0m\n", n, title) }
func say(format string, a ...any) { fmt.Printf("    "+format+"\n", a...) }

func run(bin, examples string) error {
	bin, _ = filepath.Abs(bin)
	examples, _ = filepath.Abs(examples)
	if err := engineproc.CheckBinaries(bin); err != nil {
		return err
	}
	fmt.Println("\033[1mPart 1 — a coding session, headless (robota -p), offline with the script provider\033[0m")
	next, err := runSession(bin, examples)
	if err != nil {
		return err
	}
	fmt.Println("\n\033[1mPart 2 — subagents and background tasks in worker processes\033[0m")
	if next, err = runSubagents(bin, examples, next); err != nil {
		return err
	}
	fmt.Println("\n\033[1mPart 3 — the SDK layer: a custom command, a skill, edit checkpoints and /rewind\033[0m")
	if next, err = runSDKLayer(bin, examples, next); err != nil {
		return err
	}
	fmt.Println("\n\033[1mPart 4 — the engine daemon, a session in it driven from another language, and its worker processes\033[0m")
	if err := runEngine(bin, examples, next); err != nil {
		return err
	}
	fmt.Println("\n\033[1mPart 5 — workers across hosts: NATS JetStream, host agents, a host killed mid-job\033[0m")
	if err := runHosts(bin, next+6); err != nil { // runEngine numbers six steps from next
		return err
	}
	fmt.Println("\n\033[1mPart 6 — the terminal UI (robota at a terminal), driven in tmux\033[0m")
	if err := runTUI(bin, examples, 1); err != nil {
		return err
	}
	fmt.Print(`
Done. Shown: robota -p with real tools on a real project (Read, Glob, Edit, Bash),
permission rules (an allow list and a deny rule), persistence, auto-compaction and
resume; the command sandbox keeping a denied file and git hooks from commands built at
run time; the engine daemon on a 0600 unix socket with health and reflection; a client
in another language (examples/engine-clients) driving a session in the engine over
gRPC, approving a permission request, with a second client watching; subagents (the
Agent tool) in robota-worker processes of their own, in parallel and in a git worktree,
a background process read and stopped with TaskOutput/TaskStop, and a worker crash
reported while the session goes on; a custom command and a skill from .claude/,
/rewind restoring the files a resumed session's model edited, a plugin from a local
marketplace (its command and its hook), project memory refusing a secret; go-plugin
workers supervised and replaced; workers across hosts over NATS JetStream (an embedded
server, two host agents, a job moved to the other host when its first host was killed);
the terminal UI with its trust dialog, a streamed markdown answer, permission prompts,
an edit's diff and a command's output.
`)
	return nil
}
