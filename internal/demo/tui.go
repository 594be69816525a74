package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/internal/screenshot"
)

// runTUI shows the terminal UI: robota started in a private tmux server (a fixed
// 90×28 terminal), driven with send-keys as a person would type, its screens printed.
func runTUI(bin, examples string, first int) error {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		say("tmux is not installed: this part is skipped (apt-get install tmux)")
		return nil
	}
	tmp, dir, err := scratchProject(examples, "robota-demo-tui-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	script, err := renderScript(filepath.Join(examples, "demo-tui.script.yaml"), tmp, dir)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	sock := filepath.Join(tmp, "tmux.sock")
	t := &tmuxDemo{tmux: tmux, sock: sock}
	defer exec.Command(tmux, "-S", sock, "kill-server").Run() //nolint:errcheck
	// HOME is a scratch one (trust and prompt history stay out of the user's); Go's
	// caches stay the user's, so the demo's go test runs warm.
	goenv := goEnv("GOCACHE", "GOMODCACHE", "GOPATH")
	shell := fmt.Sprintf("cd '%s' && exec env HOME='%s' %s TERM=xterm-256color '%s' --provider script --script '%s'",
		dir, home, goenv, filepath.Join(bin, "robota"), script)
	if out, err := exec.Command(tmux, "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "demo", "-x", "90", "-y", "28",
		shell, ";", "set-option", "-g", "remain-on-exit", "on").CombinedOutput(); err != nil {
		return fmt.Errorf("tmux: %v: %s", err, out)
	}

	step(first, "robota at a terminal: the first start in a folder asks whether to trust it")
	if err := t.waitShow("Do you trust the files"); err != nil {
		return err
	}
	if err := t.shot("tui-trust"); err != nil {
		return err
	}
	t.keys("1")
	if err := t.wait(`Try "explain`); err != nil {
		return err
	}

	step(first+1, "A question: a Read, then the answer streams in and lands in the scrollback as markdown")
	t.typeText("What does this package do?")
	t.keys("Enter")
	if err := t.waitShow("Want me to fix"); err != nil {
		return err
	}
	if err := t.shot("tui-answer"); err != nil {
		return err
	}

	step(first+2, "\"fix it\": the Edit asks for permission (2 = allow edits for the session, the rule is shown)")
	t.typeText("Yes, fix it")
	t.keys("Enter")
	if err := t.waitShow("Do you want to proceed?"); err != nil {
		return err
	}
	if err := t.shot("tui-permission"); err != nil {
		return err
	}
	t.keys("2")

	step(first+3, "The diff of the edit, then go test asks (1 = allow once) and its output is shown")
	if err := t.waitShow("go test ./..."); err != nil {
		return err
	}
	if strings.Contains(t.screen(), "Do you want to proceed?") {
		t.keys("1")
	}
	if err := t.untilWithin("the tests pass", true, 60*time.Second); err != nil {
		return err
	}
	if err := t.shot("tui-diff"); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, "wordstats.go"))
	if err != nil {
		return err
	}
	say("checked: wordstats.go now has %q: %v", "strings.Fields(s)", strings.Contains(string(data), "strings.Fields(s)"))

	step(first+4, "/exit: the session is saved; robota --continue would pick it up")
	t.typeText("/exit")
	t.keys("Enter")
	return t.waitShow("Resume this session with:")
}

// screenshots, when set, is where shot writes PNGs of the TUI's screens.
var screenshots string

// shot renders the screen as it is (colours included) to screenshots/name.png.
func (t *tmuxDemo) shot(name string) error {
	if screenshots == "" {
		return nil
	}
	if err := os.MkdirAll(screenshots, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(screenshots, name+".png"))
	if err != nil {
		return err
	}
	defer f.Close()
	return screenshot.Render(f, t.run("capture-pane", "-e", "-p", "-t", "demo"), 90, 28)
}

type tmuxDemo struct{ tmux, sock string }

func (t *tmuxDemo) run(args ...string) string {
	out, _ := exec.Command(t.tmux, append([]string{"-S", t.sock}, args...)...).CombinedOutput()
	return string(out)
}

func (t *tmuxDemo) keys(k ...string)        { t.run(append([]string{"send-keys", "-t", "demo"}, k...)...) }
func (t *tmuxDemo) typeText(s string)       { t.run("send-keys", "-t", "demo", "-l", s) }
func (t *tmuxDemo) screen() string          { return t.run("capture-pane", "-p", "-t", "demo") }
func (t *tmuxDemo) wait(s string) error     { return t.until(s, false) }
func (t *tmuxDemo) waitShow(s string) error { return t.until(s, true) }

// until waits for s on the screen (10 s at most); show prints the screen then.
func (t *tmuxDemo) until(s string, show bool) error { return t.untilWithin(s, show, 10*time.Second) }

func (t *tmuxDemo) untilWithin(s string, show bool, within time.Duration) error {
	deadline := time.Now().Add(within)
	for !strings.Contains(t.screen(), s) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the TUI did not show %q; screen:\n%s", s, t.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond) // let the frame settle
	if show {
		fmt.Println("    ┌" + strings.Repeat("─", 90))
		for _, l := range strings.Split(strings.TrimRight(t.screen(), "\n"), "\n") {
			fmt.Println("    │" + strings.TrimRight(l, " "))
		}
		fmt.Println("    └" + strings.Repeat("─", 90))
	}
	return nil
}

// goEnv is NAME='value' for each of Go's variables named, as go env reports them.
func goEnv(names ...string) string {
	var parts []string
	for _, n := range names {
		out, err := exec.Command("go", "env", n).Output()
		if v := strings.TrimSpace(string(out)); err == nil && v != "" {
			parts = append(parts, n+"='"+v+"'")
		}
	}
	return strings.Join(parts, " ")
}
