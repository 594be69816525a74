package bash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
)

func newBash(t *testing.T, cfg Config) (*Bash, string) {
	t.Helper()
	if cfg.Cwd == "" {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		cfg.Cwd = dir
	}
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b, cfg.Cwd
}

func call(ctx context.Context, b *Bash, args any) llm.ToolResult {
	raw, _ := json.Marshal(args)
	return b.Execute(ctx, raw)
}

type fakeRunner struct {
	got BackgroundRequest
	err error
}

func (f *fakeRunner) StartBackground(_ context.Context, req BackgroundRequest) (string, error) {
	f.got = req
	return "bg_1", f.err
}

func TestBashGolden(t *testing.T) {
	b, dir := newBash(t, Config{})
	small, _ := newBash(t, Config{Cwd: dir, MaxOutputChars: 80})
	withRunner, _ := newBash(t, Config{Cwd: dir, Background: &fakeRunner{}})
	failingRunner, _ := newBash(t, Config{Cwd: dir, Background: &fakeRunner{err: errors.New("runner is full")}})
	tr := golden.New([]string{dir, "$CWD"}, "durationMs", "outputChars")
	type tc struct {
		name string
		tool *Bash
		ctx  func() (context.Context, context.CancelFunc)
		args map[string]any
	}
	bg := func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	cancelled := func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	}
	shortParent := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 300*time.Millisecond)
	}
	for _, c := range []tc{
		{"runs in the cwd, stdout and stderr together", b, bg, map[string]any{"command": "pwd; echo to-stderr >&2; echo done", "description": "Print cwd"}},
		{"no output", b, bg, map[string]any{"command": "true"}},
		{"non-zero exit", b, bg, map[string]any{"command": "echo partial; exit 3"}},
		{"killed by a signal", b, bg, map[string]any{"command": "kill -TERM $$"}},
		{"timeout", b, bg, map[string]any{"command": "echo started; sleep 30", "timeout": 300}},
		{"aborted while running", b, shortParent, map[string]any{"command": "echo started; sleep 30"}},
		{"aborted before start", b, cancelled, map[string]any{"command": "echo never"}},
		{"output truncated in the middle", small, bg, map[string]any{"command": "seq 1 40"}},
		{"empty command", b, bg, map[string]any{"command": "  "}},
		{"timeout above the maximum", b, bg, map[string]any{"command": "true", "timeout": 600001}},
		{"background without a runner", b, bg, map[string]any{"command": "sleep 100", "run_in_background": true}},
		{"background with a runner", withRunner, bg, map[string]any{"command": "npm run dev", "run_in_background": true, "description": "dev server"}},
		{"background runner fails", failingRunner, bg, map[string]any{"command": "npm run dev", "run_in_background": true}},
	} {
		ctx, cancel := c.ctx()
		raw := golden.JSON(c.args)
		tr.Add(c.name, raw, c.tool.Execute(ctx, json.RawMessage(raw)))
		cancel()
	}
	tr.Check(t, "bash.golden")
}

func TestBashBackgroundRequest(t *testing.T) {
	runner := &fakeRunner{}
	env := []string{"PATH=" + os.Getenv("PATH"), "ROBOTA_TEST_VAR=from-settings"}
	b, dir := newBash(t, Config{Background: runner, Env: env})
	ctx := llm.WithToolCall(context.Background(), llm.ToolCallInfo{ID: "toolu_1", Name: "Bash"})
	res := call(ctx, b, map[string]any{"command": "make watch", "description": "watch", "run_in_background": true})
	if !res.Success {
		t.Fatal(res.Error)
	}
	want := BackgroundRequest{Command: "make watch", Description: "watch", Cwd: dir, ToolCallID: "toolu_1", Env: env}
	if !reflect.DeepEqual(runner.got, want) {
		t.Fatalf("request = %+v, want %+v", runner.got, want)
	}
}

// goneBy reports whether pid has stopped running by deadline. A killed process closes its
// files (which is what ends Execute's output drain) a moment before it turns into a zombie,
// so the state is polled until then.
func goneBy(pid int, deadline time.Time) bool {
	for {
		if processGone(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// processGone reports whether pid no longer runs: absent, or a zombie waiting for a reaper
// that is not us.
func processGone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file %q: %v", data, err)
	}
	return pid
}

// waitForFiles polls until the command has written its pid files (a readiness wait, not a
// timing assertion).
func waitForFiles(t *testing.T, paths ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, p := range paths {
		for {
			if data, err := os.ReadFile(p); err == nil && strings.HasSuffix(string(data), "\n") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never appeared", p)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

const spawnChild = `sleep 300 & echo $! > child.pid; echo $$ > shell.pid; wait`

func TestBashTimeoutKillsTheGroup(t *testing.T) {
	b, dir := newBash(t, Config{})
	res := call(context.Background(), b, map[string]any{"command": spawnChild, "timeout": 1500})
	if res.Success || res.Metadata["errorCode"] != codeTimeout {
		t.Fatalf("result = %+v, want a timeout", res)
	}
	for _, name := range []string{"shell.pid", "child.pid"} {
		if pid := readPid(t, filepath.Join(dir, name)); !goneBy(pid, time.Now().Add(time.Second)) {
			t.Errorf("%s %d still runs after the timeout", name, pid)
		}
	}
}

func TestBashCancelKillsTheGroupWithinOneSecond(t *testing.T) {
	b, dir := newBash(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan llm.ToolResult, 1)
	go func() { done <- call(ctx, b, map[string]any{"command": spawnChild}) }()
	waitForFiles(t, filepath.Join(dir, "child.pid"), filepath.Join(dir, "shell.pid"))
	shell, child := readPid(t, filepath.Join(dir, "shell.pid")), readPid(t, filepath.Join(dir, "child.pid"))
	cancelled := time.Now()
	cancel()
	var res llm.ToolResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Execute did not return after cancel")
	}
	if took := time.Since(cancelled); took > time.Second {
		t.Errorf("Execute returned %v after cancel, want within 1s", took)
	}
	if res.Success || res.Metadata["errorCode"] != "aborted" || res.Metadata["interrupted"] != true {
		t.Fatalf("result = %+v, want aborted", res)
	}
	if !goneBy(shell, cancelled.Add(time.Second)) || !goneBy(child, cancelled.Add(time.Second)) {
		t.Fatalf("shell %d gone=%v, child %d gone=%v", shell, processGone(shell), child, processGone(child))
	}
}

func TestBashNormalExitKillsLeftoverGroupMembers(t *testing.T) {
	b, dir := newBash(t, Config{})
	res := call(context.Background(), b, map[string]any{"command": "sleep 300 & echo $! > child.pid; echo launched"})
	if !res.Success || res.Output != "launched" {
		t.Fatalf("result = %+v", res)
	}
	if pid := readPid(t, filepath.Join(dir, "child.pid")); !goneBy(pid, time.Now().Add(time.Second)) {
		t.Fatalf("background child %d survived the call", pid)
	}
}

// Issue 10 §5: truncated output states the true number of characters removed, fits the
// limit marker included, and the whole output is in the file the marker names.
func TestBashTruncatesOneMegabyteAndSavesIt(t *testing.T) {
	outDir := filepath.Join(t.TempDir(), "tool-output")
	b, _ := newBash(t, Config{OutputDir: outDir})
	const total = 1 << 20
	ctx := llm.WithToolCall(context.Background(), llm.ToolCallInfo{ID: "toolu_../x", Name: "Bash"})
	res := call(ctx, b, map[string]any{"command": fmt.Sprintf("yes 0123456789abcdef | head -c %d", total)})
	if !res.Success {
		t.Fatal(res.Error)
	}
	path, _ := res.Metadata["fullOutputPath"].(string)
	if filepath.Dir(path) != outDir || filepath.Base(path) != "bash-toolu_x.txt" {
		t.Fatalf("fullOutputPath = %q, want a file in %s named after the call", path, outDir)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != total || !strings.HasPrefix(string(saved), "0123456789abcdef\n") {
		t.Fatalf("saved file has %d bytes, want the whole %d", len(saved), total)
	}
	if n := len([]rune(res.Output)); n > MaxOutputChars {
		t.Fatalf("output has %d characters, over the %d limit", n, MaxOutputChars)
	}
	re := regexp.MustCompile(`\n\n\.\.\. \[(\d+) characters truncated\. The full output is saved in (\S+); Read it`)
	m := re.FindStringSubmatch(res.Output)
	if m == nil || m[2] != path {
		t.Fatalf("marker missing or names another file: %q", m)
	}
	head, rest, _ := strings.Cut(res.Output, m[0])
	tail := rest[strings.Index(rest, "] ...\n\n")+len("] ...\n\n"):]
	cut, _ := strconv.Atoi(m[1])
	if len(head)+cut+len(tail) != total {
		t.Fatalf("kept %d+%d characters and reported %d cut; the output had %d", len(head), len(tail), cut, total)
	}
	if !strings.HasPrefix(string(saved), head) || !strings.HasSuffix(string(saved), tail) {
		t.Fatal("head or tail is not the output's")
	}
	if res.Metadata["truncated"] != true || res.Metadata["outputChars"] != int64(total) || res.Metadata["truncatedChars"] != int64(cut) {
		t.Fatalf("metadata = %v", res.Metadata)
	}
}

// Output that fits leaves no file behind, even when it has more bytes than the limit has
// characters.
func TestBashOutputThatFitsIsNotSaved(t *testing.T) {
	outDir := filepath.Join(t.TempDir(), "tool-output")
	b, _ := newBash(t, Config{OutputDir: outDir, MaxOutputChars: 100})
	res := call(context.Background(), b, map[string]any{"command": "printf 'é%.0s' $(seq 1 90)"})
	if !res.Success || res.Output != strings.Repeat("é", 90) || res.Metadata["truncated"] != false {
		t.Fatalf("result = %+v", res)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
		t.Fatalf("files left in %s: %v", outDir, entries)
	}
}

func TestCaptureKeepsMultibyteCharactersWhole(t *testing.T) {
	c := newCapture(50, nil)
	for i := 0; i < 1000; i++ {
		c.Write([]byte("é")[:1])
		c.Write([]byte("é")[1:])
	}
	out := c.result(50)
	// "\n\n... [1000 characters truncated] ...\n\n" is 39 characters: 11 remain.
	want := strings.Repeat("é", 5) + "\n\n... [989 characters truncated] ...\n\n" + strings.Repeat("é", 6)
	if !out.truncated || out.text != want || out.cut != 989 {
		t.Fatalf("text = %q (cut %d), want %q", out.text, out.cut, want)
	}
}

func TestDescribe(t *testing.T) {
	b, _ := newBash(t, Config{})
	if got := b.Describe(json.RawMessage(`{"command":"go test ./..."}`)); got.FirstArg != "go test ./..." || got.Reads != nil || got.Writes != nil {
		t.Fatalf("record = %+v", got)
	}
}
