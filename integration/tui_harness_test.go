package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/internal/engineproc"
)

// term is robota's TUI running in a private tmux server (its own socket) at a fixed
// size: keys go in with send-keys, the screen comes out with capture-pane.
type term struct {
	t    testing.TB
	sock string
}

// tuiEnv is a project directory and a home directory for one TUI test.
type tuiEnv struct {
	dir, home, script string
	// engine, when set, is the --engine address the TUI attaches to.
	engine string
	// untrusted: the TUI starts with the trust dialog (startTUI does not wait for the
	// prompt box).
	untrusted bool
	// showExit: the pane's shell runs robota as a child and prints its exit status
	// ("robota exited N"), for tests of how it ends.
	showExit bool
}

func newTUIEnv(t testing.TB, script string) tuiEnv {
	t.Helper()
	root := shortTempDir(t)
	e := tuiEnv{dir: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	for _, d := range []string{e.dir, e.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The folder is trusted already (TestTUITrustDialog starts without).
	trust := `{"folders": {"` + e.dir + `": {"trustedAt": "2026-01-01T00:00:00Z"}}}`
	if err := os.MkdirAll(filepath.Join(e.home, ".robota"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".robota", "trusted-folders.json"), []byte(trust), 0o600); err != nil {
		t.Fatal(err)
	}
	e.script = filepath.Join(root, "script.yaml")
	script = strings.ReplaceAll(script, "{{.Dir}}", e.dir)
	if err := os.WriteFile(e.script, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// startTUI runs robota with args in e's project, in a w×h terminal.
func startTUI(t testing.TB, e tuiEnv, w, h int, args ...string) *term {
	t.Helper()
	return startTUIEnv(t, e, w, h, nil, args...)
}

// startTUIEnv is startTUI with env (NAME=value) added to robota's environment.
func startTUIEnv(t testing.TB, e tuiEnv, w, h int, env []string, args ...string) *term {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		missing(t, "tmux", "apt-get install tmux")
	}
	tm := &term{t: t, sock: filepath.Join(shortTempDir(t), "tmux.sock")}
	bin, err := filepath.Abs(filepath.Join(binDir, "robota"))
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{bin, "--provider", "script", "--script", e.script}
	if e.engine != "" {
		argv = append(argv, "--engine", e.engine)
	}
	argv = append(argv, args...)
	for i, a := range argv {
		argv[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	// remain-on-exit keeps the pane (and what robota printed last) after it exits.
	vars := append([]string{"HOME=" + e.home, "TERM=xterm-256color"}, env...)
	for i, v := range vars {
		vars[i] = "'" + v + "'"
	}
	shell := "cd '" + e.dir + "' && exec env " + strings.Join(vars, " ") + " " + strings.Join(argv, " ")
	if e.showExit {
		shell = "cd '" + e.dir + "' && env " + strings.Join(vars, " ") + " " + strings.Join(argv, " ") + `; echo "robota exited $?"`
	}
	// remain-on-exit comes from the server's config, so that it holds from the pane's
	// start: set after new-session, a robota that exits at once (a setup error) would
	// take the pane and the server with it before the option is set.
	conf := filepath.Join(filepath.Dir(tm.sock), "tmux.conf")
	if err := os.WriteFile(conf, []byte("set-option -g remain-on-exit on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tmux, "-S", tm.sock, "-f", conf, "new-session", "-d", "-s", "tui",
		"-x", itoa(w), "-y", itoa(h), shell)
	cmd.Env = append(os.Environ(), "TMUX=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command(tmux, "-S", tm.sock, "kill-server").Run() })
	if !e.untrusted {
		tm.waitFor("Try \"explain", 10*time.Second)
	}
	return tm
}

func (tm *term) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names (Enter, Escape, C-c, Left, BTab ...).
func (tm *term) keys(keys ...string) { tm.tmux(append([]string{"send-keys", "-t", "tui"}, keys...)...) }

// typeText types s literally.
func (tm *term) typeText(s string) { tm.tmux("send-keys", "-t", "tui", "-l", s) }

// screen is the visible screen, trailing blanks trimmed.
func (tm *term) screen() string {
	return trimScreen(tm.tmux("capture-pane", "-p", "-t", "tui"))
}

// all is the scrollback and the screen.
func (tm *term) all() string {
	return trimScreen(tm.tmux("capture-pane", "-p", "-S", "-", "-t", "tui"))
}

func trimScreen(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// waitFor polls the screen and scrollback until want appears, and returns the screen.
func (tm *term) waitFor(want string, within time.Duration) string {
	tm.t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := tm.all()
		if strings.Contains(s, want) {
			return tm.screen()
		}
		if strings.Contains(s, "Pane is dead") {
			tm.t.Fatalf("robota exited before %q showed; screen:\n%s", want, s)
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("%q not on screen within %v; screen:\n%s", want, within, s)
		}
		time.Sleep(40 * time.Millisecond)
	}
}

// waitScreen polls the visible screen until ok holds for it and returns it; what
// names the screen awaited in the failure. A change reaches the terminal in more than
// one frame (the live area, then what is printed above it), so a screen compared whole
// is awaited whole.
func (tm *term) waitScreen(what string, within time.Duration, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := tm.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("no screen with %s within %v; screen:\n%s", what, within, s)
		}
		time.Sleep(40 * time.Millisecond)
	}
}

// waitGone polls until want is no longer on the visible screen.
func (tm *term) waitGone(want string, within time.Duration) string {
	tm.t.Helper()
	return tm.waitScreen(strconv.Quote(want)+" gone", within, func(s string) bool { return !strings.Contains(s, want) })
}

var (
	maskUUID  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	maskToken = regexp.MustCompile(`\d+(\.\d)?k? tokens`)
)

// masked replaces what changes between runs: session ids, the temp directories,
// token counts.
func masked(s string, e tuiEnv) string {
	s = strings.ReplaceAll(s, e.dir, "<DIR>")
	s = maskUUID.ReplaceAllString(s, "<ID>")
	return maskToken.ReplaceAllString(s, "<N> tokens")
}

// golden compares got with testdata/tui/name.txt; ROBOTA_UPDATE_GOLDEN=1 rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "tui", name+".txt")
	if os.Getenv("ROBOTA_UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (ROBOTA_UPDATE_GOLDEN=1 writes it)", path, err)
	}
	if strings.TrimRight(string(want), "\n") != got {
		t.Fatalf("screen differs from %s:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// startEngineEnv starts robota-engine with home as its HOME (its user settings and
// sessions), for tests that run in parallel.
func startEngineEnv(t *testing.T, home string) (*engineproc.Proc, engineproc.LogEntry) {
	t.Helper()
	sock := filepath.Join(shortTempDir(t), "e.sock")
	env := append(os.Environ(), "HOME="+home)
	p, err := engineproc.StartEnv(binDir, sock, env, nil, "--state-dir", filepath.Join(home, ".engine-state"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill()
		_, _ = p.Wait(5 * time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, _, err := p.WaitMsg(ctx, 0, "engine listening"); err != nil {
		t.Fatal(err)
	}
	ready, _, err := p.WaitMsg(ctx, 0, "worker ready")
	if err != nil {
		t.Fatal(err)
	}
	return p, ready
}
