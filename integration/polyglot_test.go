package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The clients under examples/engine-clients drive a session in the real engine from
// another language: create it in a temp project, submit, answer the permission
// request with allow, see tool_end and complete, and watch it from a second client.
// These tests run them and check what they printed against what the engine did.

var exampleClients = filepath.Join("..", "examples", "engine-clients")

func TestPolyglotNodeClient(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join(exampleClients, "node"))
	if err != nil {
		t.Fatal(err)
	}
	node := needTool(t, "node", "Node.js (node and npm)")
	npm := needTool(t, "npm", "Node.js (node and npm)")
	npmInstall(t, npm, dir)
	runExampleClient(t, "hello from Node.js", node, filepath.Join(dir, "client.js"))
}

func TestPolyglotPythonClient(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join(exampleClients, "python"))
	if err != nil {
		t.Fatal(err)
	}
	runExampleClient(t, "hello from Python", debianPython(t), filepath.Join(dir, "client.py"))
}

// inCI says whether missing client toolchains are a failure rather than a skip (as
// for ripgrep in pkg/tools/search: CI set to anything).
func inCI() bool { return os.Getenv("CI") != "" }

// missing skips the test on a developer machine and fails it under CI, where .ci/run
// installs every toolchain these tests need.
func missing(t testing.TB, what, install string) {
	t.Helper()
	if inCI() {
		t.Fatalf("%s is missing, and CI is set: .ci/run should have installed it (%s)", what, install)
	}
	t.Skipf("skipped: %s is missing (%s; under CI=true this test fails instead)", what, install)
}

func needTool(t *testing.T, name, what string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		missing(t, what, "apt-get install nodejs npm, or Node.js 18+ from nodejs.org")
	}
	return path
}

// debianPython returns a python3 that imports grpc and grpc_tools: Debian's
// /usr/bin/python3 first (a pyenv python3 on PATH lacks the Debian packages).
func debianPython(t *testing.T) string {
	t.Helper()
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import grpc, grpc_tools.protoc").Run() == nil {
			return py
		}
	}
	missing(t, "a python3 with grpc and grpc_tools", "apt-get install python3-grpcio python3-grpc-tools")
	return ""
}

// npmInstall installs the example's locked dependencies when they are not there yet.
func npmInstall(t *testing.T, npm, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@grpc", "proto-loader", "package.json")); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@grpc", "grpc-js", "package.json")); err == nil {
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
}

// clientLine is one event line a client printed: "submit  #3 permission_request Write ...".
var clientLine = regexp.MustCompile(`^(submit|watch) +#(\d+) (\S+) ?(.*)$`)

type printedEvent struct {
	seq          int
	kind, detail string
}

func runExampleClient(t *testing.T, content string, command ...string) {
	t.Helper()
	p, _ := startEngine(t, "--state-dir", t.TempDir())
	project := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, command[0], append(command[1:], p.Socket, project)...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s output:\n%s", filepath.Base(command[len(command)-1]), out)
	if err != nil {
		t.Fatalf("client: %v\nengine log:\n%s", err, p.RawLog())
	}

	seen := map[string][]printedEvent{}
	approved := false
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "client  RespondPermission(") && strings.HasSuffix(line, ", ALLOW) -> ok") {
			approved = true
		}
		m := clientLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seq, _ := strconv.Atoi(m[2])
		seen[m[1]] = append(seen[m[1]], printedEvent{seq, m[3], m[4]})
	}

	// The submitting client: a Write asked for, approved over RespondPermission, run, done.
	asked := -1
	for _, e := range seen["submit"] {
		if e.kind == "permission_request" && strings.HasPrefix(e.detail, "Write request=") {
			asked = e.seq
		}
	}
	if asked < 0 || !approved {
		t.Fatalf("no Write permission_request answered with allow (asked at #%d, approved %v)", asked, approved)
	}
	target := filepath.Join(project, "hello.txt")
	want := []string{
		"permission_request Write",
		"permission_resolved PERMISSION_OUTCOME_ANSWERED PERMISSION_ANSWER_ALLOW",
		"tool_end Write " + target + " TOOL_OUTCOME_SUCCESS",
		`complete "Written."`,
	}
	if got := lifecycle(seen["submit"], asked); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("submit events from the permission request on:\n got %q\nwant %q", got, want)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != content {
		t.Fatalf("%s on disk: %q, %v; want %q", target, b, err, content)
	}

	// The second client, on its own connection from the request on: the same events,
	// with the same sequence numbers (text deltas may be coalesced, so their text is
	// compared as a whole).
	from := func(evs []printedEvent) (life []string, text string) {
		for _, e := range evs {
			switch {
			case e.seq < asked:
			case e.kind == "text_delta":
				s, _ := strconv.Unquote(e.detail)
				text += s
			case e.kind != "context_update":
				life = append(life, fmt.Sprintf("#%d %s %s", e.seq, e.kind, e.detail))
			}
		}
		return life, text
	}
	subLife, subText := from(seen["submit"])
	watchLife, watchText := from(seen["watch"])
	if len(watchLife) == 0 || fmt.Sprint(watchLife) != fmt.Sprint(subLife) || watchText != subText {
		t.Fatalf("the watcher saw other events than the submitter:\nwatch  %q %q\nsubmit %q %q", watchLife, watchText, subLife, subText)
	}
}

// lifecycle returns the kind and the stable part of the detail of the events from
// sequence number from on, text deltas and context updates aside.
func lifecycle(evs []printedEvent, from int) []string {
	var out []string
	for _, e := range evs {
		if e.seq < from || e.kind == "text_delta" || e.kind == "context_update" {
			continue
		}
		detail := e.detail
		switch e.kind {
		case "permission_request":
			detail = strings.Fields(detail)[0] // the tool; the request id is random
		case "permission_resolved":
			detail = strings.Join(strings.Fields(detail)[1:], " ") // drop request=...
		}
		out = append(out, e.kind+" "+detail)
	}
	return out
}
