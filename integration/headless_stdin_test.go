package integration

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// stdinRun runs robota with stdin and returns what it printed and its exit status.
func (p *project) stdinRun(t *testing.T, ctx context.Context, stdin any, args ...string) runResult {
	t.Helper()
	cmd := p.command(ctx, args...)
	switch in := stdin.(type) {
	case *os.File:
		cmd.Stdin = in
	case string:
		cmd.Stdin = strings.NewReader(in) // a pipe that is written, then closed
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := runResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("robota %q did not finish in time (%v)\nstderr:\n%s", args, ctx.Err(), res.Stderr)
	case errors.As(err, &exitErr):
		res.Code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("robota %q: %v", args, err)
	}
	return res
}

// TestHeadlessStdin: piped stdin is the prompt of `robota -p` without one (`echo q |
// robota -p`, `-p ""`, `-p --flags PROMPT` too), and a stdin pipe that is never written
// to or closed (`sleep 30 | robota -p hi`) does not hang the run: after 3 s robota warns
// and answers the prompt it has.
func TestHeadlessStdin(t *testing.T) {
	p := newProject(t)
	script := p.script(t, "stdin", nil)
	offline := []string{"--provider", "script", "--script", script}

	t.Run("never-closing pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		// The write end stays open (and silent) until robota has exited, like `sleep 30 |`.
		defer w.Close()
		defer r.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res := p.stdinRun(t, ctx, r, append([]string{"-p", "hello there"}, offline...)...)
		if res.Code != 0 || res.Stdout != "Hello back.\n" {
			t.Fatalf("exit %d, stdout %q, want the answer\nstderr:\n%s", res.Code, res.Stdout, res.Stderr)
		}
		if !strings.Contains(res.Stderr, "no stdin data received in 3s, proceeding without it") {
			t.Fatalf("stderr %q lacks the stdin warning", res.Stderr)
		}
	})

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"echo q | robota -p", []string{"-p"}},
		{`-p ""`, []string{"-p", ""}},
		{"-p before the other flags", []string{"-p", "--output-format", "text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			res := p.stdinRun(t, ctx, "PIPED-QUESTION\n", append(tc.args, offline...)...)
			if res.Code != 0 || res.Stdout != "Answer to the piped question.\n" || res.Stderr != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
			}
		})
	}

	t.Run("prompt after the flags", func(t *testing.T) {
		res := p.mustRun(t, append(append([]string{"-p"}, offline...), "hello there")...)
		if res.Stdout != "Hello back.\n" {
			t.Fatalf("stdout %q", res.Stdout)
		}
	})

	t.Run("no prompt at all", func(t *testing.T) {
		res := p.run(t, append([]string{"-p"}, offline...)...) // stdin is /dev/null
		if res.Code != 2 || !strings.Contains(res.Stderr, "-p needs a prompt") {
			t.Fatalf("exit %d, stderr %q; want 2 and how to give a prompt", res.Code, res.Stderr)
		}
	})
}

// TestHeadlessMaxTurns: --max-turns 1 ends with the forced summary, exit 1, the cap named
// on stderr in text mode, and error_max_turns with num_turns 1 in json (the summary call is
// not a turn).
func TestHeadlessMaxTurns(t *testing.T) {
	p := newProject(t)
	p.writeFile(t, "notes.txt", "some notes\n")
	args := []string{"-p", "keep reading", "--max-turns", "1", "--allowedTools", "Read",
		"--provider", "script", "--script", p.script(t, "stdin", nil)}

	text := p.run(t, args...)
	if text.Code != 1 || text.Stdout != "Out of turns: I read the notes once.\n" ||
		!strings.Contains(text.Stderr, "Reached maximum number of turns (1)") {
		t.Fatalf("text: exit %d, stdout %q, stderr %q", text.Code, text.Stdout, text.Stderr)
	}
	res := resultObject(t, p.run(t, append(args, "--output-format", "json")...).Stdout)
	if res["subtype"] != "error_max_turns" || res["is_error"] != true || res["num_turns"] != 1.0 ||
		!strings.Contains(toString(res["errors"]), "Reached maximum number of turns (1)") {
		t.Fatalf("json result %v", res)
	}
}

func toString(v any) string {
	if l, ok := v.([]any); ok {
		var parts []string
		for _, x := range l {
			s, _ := x.(string)
			parts = append(parts, s)
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
