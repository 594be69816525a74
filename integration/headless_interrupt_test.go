package integration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeadlessCtrlCSavesAndResumes: SIGINT aborts the turn, robota exits 130 and names
// the saved session, and the session resumes afterwards. While the answer streams, the
// partial text is saved marked interrupted; while a Bash command runs, the command is
// killed and its result saved as an error, and the model is not called again.
func TestHeadlessCtrlCSavesAndResumes(t *testing.T) {
	const story = "Once upon a time a tiny agent streamed its words very slowly into a terminal, one by one, until somebody pressed Control-C and it had to stop."
	for _, tc := range []struct {
		name, prompt, waitFor string
		check                 func(t *testing.T, last storedMessage)
	}{{
		name: "while streaming", prompt: "tell me a long story", waitFor: `"event":"text_delta"`,
		check: func(t *testing.T, last storedMessage) {
			partial := last.text()
			if last.Role != "assistant" || last.State != "interrupted" {
				t.Fatalf("last saved message is %s (state %q), want the interrupted assistant answer", last.Role, last.State)
			}
			if partial == "" || len(partial) >= len(story) || !strings.HasPrefix(story, partial) {
				t.Fatalf("saved partial answer %q, want a non-empty proper prefix of the story", partial)
			}
		},
	}, {
		name: "while a tool runs", prompt: "run the slow job", waitFor: `"event":"tool_execution_request"`,
		check: func(t *testing.T, last storedMessage) {
			if last.Role != "tool" || len(last.Content) != 1 || last.Content[0].ToolResult == nil || !last.Content[0].ToolResult.IsError {
				t.Fatalf("last saved message is %s %q, want the aborted command's error result", last.Role, last.text())
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			p.fullLog(t) // the test reads streamed events in the log
			base := []string{"--provider", "script", "--script", p.script(t, "interrupt", nil), "--allowedTools", "Bash(sleep *)"}
			id, stdout, stderr, err := interruptRun(t, p, tc.waitFor, syscall.SIGINT, append([]string{"-p", tc.prompt, "--output-format", "stream-json"}, base...))
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
				t.Fatalf("after SIGINT robota ended with %v, want exit status 130\nstderr:\n%s", err, stderr)
			}
			if !strings.Contains(stderr, "--resume "+id) {
				t.Fatalf("stderr does not tell how to resume the saved session:\n%s", stderr)
			}
			jsonLines(t, stdout)
			rec := p.record(t, id)
			tc.check(t, rec.Messages[len(rec.Messages)-1])
			if strings.Contains(stdout, "UNREACHED") {
				t.Fatalf("the model was called again after the interrupt:\n%s", stdout)
			}

			next := resultObject(t, p.mustRun(t, append([]string{"-p", "go on", "--resume", id, "--output-format", "json"}, base...)...).Stdout)
			wantSession(t, "resume after Ctrl-C", next, id)
			wantResult(t, "resume after Ctrl-C", next, "Picking up where we left off.")
			resumed := p.record(t, id)
			wantPrefix(t, "resume after Ctrl-C", rec, resumed)
			if got := resumed.Messages[len(resumed.Messages)-1].text(); got != "Picking up where we left off." {
				t.Fatalf("resumed record ends with %q", got)
			}
		})
	}
}

// TestHeadlessTermAndHangupSaveAndExit128PlusSignal: SIGTERM and SIGHUP end a run as
// Ctrl-C does (the partial answer saved, the resume hint on stderr) and exit as a shell
// reports a death by that signal: 143 and 129.
func TestHeadlessTermAndHangupSaveAndExit128PlusSignal(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			p := newProject(t)
			p.fullLog(t) // the test reads streamed events in the log
			args := []string{"-p", "tell me a long story", "--output-format", "stream-json",
				"--provider", "script", "--script", p.script(t, "interrupt", nil)}
			id, _, stderr, err := interruptRun(t, p, `"event":"text_delta"`, tc.sig, args)
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != tc.code {
				t.Fatalf("after %v robota ended with %v, want exit status %d\nstderr:\n%s", tc.sig, err, tc.code, stderr)
			}
			if !strings.Contains(stderr, "--resume "+id) {
				t.Fatalf("stderr does not tell how to resume the saved session:\n%s", stderr)
			}
			rec := p.record(t, id)
			if last := rec.Messages[len(rec.Messages)-1]; last.Role != "assistant" || last.State != "interrupted" || last.text() == "" {
				t.Fatalf("last saved message %s (%s) %q, want the interrupted partial answer", last.Role, last.State, last.text())
			}
		})
	}
}

// interruptRun starts robota, waits until its log shows waitFor, sends sig and
// returns the session id, the output and robota's exit error.
func interruptRun(t *testing.T, p *project, waitFor string, sig syscall.Signal, args []string) (id, stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, args...)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }() // no-op once reaped
	out := bufio.NewReader(pipe)
	initLine, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("reading system/init: %v\nstderr:\n%s", err, errBuf.String())
	}
	id = sessionIDOf(t, initLine)
	if err := waitForLog(ctx, p.logPath(id), waitFor); err != nil {
		t.Fatalf("waiting for %s in the log: %v", waitFor, err)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(out)
	err = cmd.Wait()
	return id, initLine + string(rest), errBuf.String(), err
}

// waitForLog polls a log file until it contains marker (robota writes each event with
// one write, so a marker seen is a marker written).
func waitForLog(ctx context.Context, path, marker string) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(marker)) {
			return nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
