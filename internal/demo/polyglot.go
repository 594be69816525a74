package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// foreignClient is an example client in examples/engine-clients, and how to run it.
type foreignClient struct {
	name    string   // "Node.js"
	command []string // the interpreter and the script; the socket and project follow
	setup   func() error
}

// pickForeignClient returns the Node.js client when node and npm are installed, else the
// Python one when Debian's grpc packages are, else a message saying how to get either.
func pickForeignClient(examples string) (*foreignClient, string) {
	dir := filepath.Join(examples, "engine-clients")
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr == nil && npmErr == nil {
		nodeDir := filepath.Join(dir, "node")
		return &foreignClient{name: "Node.js", command: []string{node, filepath.Join(nodeDir, "client.js")},
			setup: func() error { return npmInstall(npm, nodeDir) }}, ""
	}
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import grpc, grpc_tools.protoc").Run() == nil {
			return &foreignClient{name: "Python", command: []string{py, filepath.Join(dir, "python", "client.py")},
				setup: func() error { return nil }}, ""
		}
	}
	return nil, "neither Node.js (node and npm) nor a python3 with grpc is installed; " +
		"install nodejs and npm, or apt-get install python3-grpcio python3-grpc-tools, to see this step"
}

// npmInstall installs the Node.js example's locked dependencies on its first run.
func npmInstall(npm, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@grpc", "proto-loader", "package.json")); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@grpc", "grpc-js", "package.json")); err == nil {
			return nil
		}
	}
	say("npm ci in %s (first run: @grpc/grpc-js and @grpc/proto-loader, as package-lock.json pins them)", dir)
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci: %w\n%s", err, out)
	}
	return nil
}

// runForeignClient runs an example client against the engine on sock, in a scratch
// project, and shows its output: a session created, a prompt submitted, the Write
// permission request approved over RespondPermission, a second client watching.
func runForeignClient(ctx context.Context, examples, sock, tmp string) error {
	c, why := pickForeignClient(examples)
	if c == nil {
		say("skipped: %s", why)
		return nil
	}
	if err := c.setup(); err != nil {
		say("skipped: the %s client's packages could not be installed: %v", c.name, err)
		return nil
	}
	project := filepath.Join(tmp, "polyglot-project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	say("%s %s %s", strings.Join(append([]string{filepath.Base(c.command[0])}, rel(examples, c.command[1])), " "), sock, project)
	cmd := exec.CommandContext(ctx, c.command[0], append(c.command[1:], sock, project)...)
	var stderr bytes.Buffer
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	indent(out)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("the %s client: %w\n%s", c.name, err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(project, "hello.txt"))
	if err != nil {
		return fmt.Errorf("the %s client's file: %w", c.name, err)
	}
	say("the demo reads %s itself: %q", filepath.Join(project, "hello.txt"), b)
	return nil
}

func rel(base, path string) string {
	if r, err := filepath.Rel(filepath.Dir(base), path); err == nil {
		return r
	}
	return path
}

// indent shows a client's output lines under the step.
func indent(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		say("| %s", sc.Text())
	}
	_, _ = io.Copy(io.Discard, r) // past an over-long line: drain, so the client does not block
}
