package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	RunIfSandbox()
	os.Exit(m.Run())
}

// sandboxProject is a project with a marked secret and a .git directory.
func sandboxProject(t *testing.T) (dir string, p Policy) {
	t.Helper()
	dir = t.TempDir()
	for name, body := range map[string]string{"secret.txt": "MARK-7f3a\n", "notes.txt": "hello\n",
		".git/config": "[core]\n", "private/key.pem": "MARK-7f3a\n"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, Policy{Hide: []string{filepath.Join(dir, "secret.txt"), filepath.Join(dir, "private")},
		ReadOnly: []string{filepath.Join(dir, ".git")}}.Abs()
}

// helperUnderTest, when set, is the program runIn starts the sandbox from (instead of
// Command's choice).
var helperUnderTest string

// serverUnderTest, when set, runs runIn's commands (a Server of the policy runIn is
// given).
var serverUnderTest *Server

// runIn runs script sandboxed by p in dir and returns its output and exit code.
func runIn(t *testing.T, p Policy, dir, script string) (string, int) {
	t.Helper()
	if serverUnderTest != nil {
		return runInServer(t, serverUnderTest, dir, script)
	}
	cmd, err := p.Command("/bin/bash", []string{"bash", "-c", script}, dir, nil)
	if helperUnderTest != "" {
		cmd, err = p.commandVia(helperUnderTest, "/bin/bash", []string{"bash", "-c", script}, dir, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

func runInServer(t *testing.T, s *Server, dir, script string) (string, int) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	proc, err := s.Start("/bin/bash", []string{"bash", "-c", script}, dir, nil, pw, pw)
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(pr)
	status, err := proc.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return string(out), status.ExitStatus()
}

// Each way around the policy, run for real: the marker never shows, .git is never
// written, and what touches nothing denied works as outside.
// The same holds whether the sandbox starts from robota-sandbox (what make build
// installs beside robota) or from the host binary re-run (the fallback).
func TestSandboxHoldsAgainstCommands(t *testing.T) {
	if ok, why := Available(); !ok {
		t.Skipf("no sandbox on this kernel: %s (the permission checker's fallback is tested in pkg/engine/permission)", why)
	}
	t.Run("reexec", testSandboxHolds)
	bin := filepath.Join(t.TempDir(), HelperName)
	build := exec.Command("go", "build", "-o", bin, "../../cmd/sandbox")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", HelperName, err, out)
	}
	helperUnderTest = bin
	t.Cleanup(func() { helperUnderTest = "" })
	t.Run("helper", testSandboxHolds)
	t.Run("server", func(t *testing.T) {
		serverUnderTest = &Server{helper: func() (string, error) { return bin, nil }}
		t.Cleanup(func() { serverUnderTest.Close(); serverUnderTest = nil })
		testSandboxHolds(t)
	})
}

func testSandboxHolds(t *testing.T) {
	dir, p := sandboxProject(t)
	if serverUnderTest != nil {
		serverUnderTest.policy = p // the project's policy, made once for the server
	}
	for _, script := range []string{
		"cat secret.txt",
		"cat private/key.pem; ls private",
		"python3 -c 'print(open(\"secret.txt\").read())' 2>&1 || true",
		"perl -e 'open F, \"secret.txt\"; print <F>' 2>&1 || true",
		"echo Y2F0IHNlY3JldC50eHQ= | base64 -d | sh",
		"eval \"$(printf 'c%st secret.txt' a)\"",
		"umount secret.txt 2>&1; cat secret.txt",
		"mkdir -p /tmp/rb$$ && mount --bind " + dir + " /tmp/rb$$ 2>&1; cat /tmp/rb$$/secret.txt 2>&1 || true",
		"unshare -Urm sh -c 'umount " + dir + "/secret.txt 2>&1; cat " + dir + "/secret.txt' 2>&1 || true",
		"for p in /proc/[0-9]*; do cat $p/root" + dir + "/secret.txt 2>/dev/null; done; true",
		"cp secret.txt /tmp/copy$$ && cat /tmp/copy$$",
		"ln secret.txt hard$$ 2>&1; cat hard$$ 2>&1 || true",
	} {
		out, _ := runIn(t, p, dir, script)
		if strings.Contains(out, "MARK-7f3a") {
			t.Errorf("%q showed the secret:\n%s", script, out)
		}
	}
	for _, script := range []string{
		"echo hook > .git/hooks-pre-commit",
		"printf x >> .git/config",
		"python3 -c 'open(\".git/config\",\"a\").write(\"x\")'",
		"mount -o remount,rw " + dir + "/.git 2>&1; echo x >> .git/config",
		"unshare -Urm sh -c 'mount -o remount,rw,bind " + dir + "/.git; echo x >> " + dir + "/.git/config'",
	} {
		runIn(t, p, dir, script)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git/config")); string(b) != "[core]\n" {
		t.Errorf(".git/config was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/hooks-pre-commit")); err == nil {
		t.Error("a file was created in .git")
	}
	// What touches nothing denied works, with its output unchanged.
	out, code := runIn(t, p, dir, "cat notes.txt && echo made > made.txt && cat made.txt && ls -a | sort")
	if code != 0 || out != "hello\nmade\n.\n..\n.git\nmade.txt\nnotes.txt\nprivate\nsecret.txt\n" {
		t.Errorf("plain commands: exit %d\n%q", code, out)
	}
	// The exit status comes through.
	if _, code := runIn(t, p, dir, "exit 3"); code != 3 {
		t.Errorf("exit 3: exit %d", code)
	}
	// A process left behind ends with the command.
	runIn(t, p, dir, "(sleep 30; echo late > late.txt) & echo started")
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); err == nil {
		t.Error("a background process outlived the command")
	}
}

func TestPolicyAbs(t *testing.T) {
	dir, _ := sandboxProject(t)
	p := Policy{Hide: []string{dir + "/private", dir + "/private/key.pem", dir + "/missing", "relative"}}.Abs()
	if len(p.Hide) != 1 || p.Hide[0] != dir+"/private" {
		t.Fatalf("Abs: %v", p.Hide)
	}
}

// The sandbox's cost per command, beside the same command run directly.
func BenchmarkSandboxedTrue(b *testing.B) {
	if ok, why := Available(); !ok {
		b.Skip(why)
	}
	dir := b.TempDir()
	p := Policy{ReadOnly: []string{dir}}
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("/bin/bash", "-c", "true")
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// server runs it in the session's sandbox server (what the session's Bash uses): the
	// sandbox is made once, each command is a message and a process start.
	helper := buildHelper(b)
	b.Run("server", func(b *testing.B) {
		s := &Server{policy: p.Abs(), helper: func() (string, error) { return helper, nil }}
		defer s.Close()
		for b.Loop() {
			benchServerRun(b, s, "/bin/bash", []string{"bash", "-c", "true"}, dir)
		}
	})
	// sandboxed starts a sandbox per command from robota-sandbox (what background and
	// subagent commands use in a worker); sandboxed-reexec from this whole test binary
	// (the fallback), for comparison.
	for name, helper := range map[string]string{"sandboxed": helper, "sandboxed-reexec": self(b)} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd, err := p.commandVia(helper, "/bin/bash", []string{"bash", "-c", "true"}, dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}

// buildHelper builds robota-sandbox for a benchmark.
func buildHelper(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), HelperName)
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/sandbox")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build %s: %v\n%s", HelperName, err, out)
	}
	return bin
}

func self(b *testing.B) string {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return exe
}

// The same for a go build of a small module (a command doing real work): the sandbox's
// cost is the same one process start, beside a build's own time.
func BenchmarkSandboxedGoBuild(b *testing.B) {
	if ok, why := Available(); !ok {
		b.Skip(why)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go on PATH")
	}
	dir := b.TempDir()
	for name, body := range map[string]string{"go.mod": "module example.com/b\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { println(\"hi\") }\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	p := Policy{ReadOnly: []string{filepath.Join(dir, ".git")}}
	script := goBin + " build -o /dev/null ."
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("/bin/bash", "-c", script)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
	helper := buildHelper(b)
	b.Run("server", func(b *testing.B) {
		s := &Server{policy: p.Abs(), helper: func() (string, error) { return helper, nil }}
		defer s.Close()
		for b.Loop() {
			benchServerRun(b, s, "/bin/bash", []string{"bash", "-c", script}, dir)
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		for b.Loop() {
			cmd, err := p.commandVia(helper, "/bin/bash", []string{"bash", "-c", script}, dir, nil)
			if err != nil {
				b.Fatal(err)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}

// serverOf is a Server of p started from robota-sandbox built for the test.
func serverOf(t *testing.T, p Policy) *Server {
	t.Helper()
	bin := filepath.Join(t.TempDir(), HelperName)
	build := exec.Command("go", "build", "-o", bin, "../../cmd/sandbox")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", HelperName, err, out)
	}
	s := &Server{policy: p, helper: func() (string, error) { return bin, nil }}
	t.Cleanup(func() { s.Close() })
	return s
}

// The server runs commands side by side, each with its own output and status; Kill ends
// a command's group; a server whose first process died is started again at the next
// command (the commands it ran end with an error); after Close nothing starts; the first
// process keeps none of robota's environment.
func TestServerLifecycle(t *testing.T) {
	if ok, why := Available(); !ok {
		t.Skipf("no sandbox on this kernel: %s", why)
	}
	dir, p := sandboxProject(t)
	s := serverOf(t, p)
	t.Setenv("ROBOTA_TEST_TOKEN", "MARK-env-1")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, code := runInServer(t, s, dir, fmt.Sprintf("sleep 0.2; echo job %d; cat secret.txt; exit %d", i, i))
			if out != fmt.Sprintf("job %d\n", i) || code != i {
				t.Errorf("job %d: exit %d, %q", i, code, out)
			}
		}()
	}
	wg.Wait()
	if out, _ := runInServer(t, s, dir, "cat /proc/1/environ 2>&1; echo; echo $ROBOTA_TEST_TOKEN"); strings.Count(out, "MARK-env-1") != 1 {
		t.Errorf("the command's own environment, and only it, holds robota's: %q", out)
	}

	pr, pw, _ := os.Pipe()
	proc, err := s.Start("/bin/bash", []string{"bash", "-c", "sleep 30 & sleep 30"}, dir, nil, pw, pw)
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	status, err := proc.Wait()
	if err != nil || !status.Signaled() || time.Since(t0) > 5*time.Second {
		t.Fatalf("killed command: %v, %v after %v", status, err, time.Since(t0))
	}
	if _, err := io.ReadAll(pr); err != nil { // every writer is gone: the group was killed
		t.Fatal(err)
	}
	pr.Close()

	// The first process dies: what ran ends with an error, the next command restarts it.
	_, pw2, _ := os.Pipe()
	long, err := s.Start("/bin/bash", []string{"bash", "-c", "sleep 30"}, dir, nil, pw2, pw2)
	pw2.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	first := s.conn.cmd.Process
	s.mu.Unlock()
	if err := first.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := long.Wait(); err == nil {
		t.Fatal("a command whose sandbox died ended without an error")
	}
	if out, code := runInServer(t, s, dir, "echo again; cat secret.txt"); out != "again\n" || code != 0 {
		t.Fatalf("after a restart: exit %d, %q", code, out)
	}
	s.Close()
	if _, err := s.Start("/bin/true", []string{"true"}, dir, nil, os.Stdout, os.Stderr); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
}

// benchServerRun runs one command in s and fails b unless it exits 0.
func benchServerRun(b *testing.B, s *Server, shell string, argv []string, dir string) {
	pr, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer pr.Close()
	proc, err := s.Start(shell, argv, dir, nil, pw, pw)
	pw.Close()
	if err != nil {
		b.Fatal(err)
	}
	out, _ := io.ReadAll(pr)
	if st, err := proc.Wait(); err != nil || st.ExitStatus() != 0 {
		b.Fatalf("%v %v: %s", st, err, out)
	}
}
