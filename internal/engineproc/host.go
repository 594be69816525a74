package engineproc

import (
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"syscall"
)

// StartHost runs binDir/robota-worker host (a host agent) against the NATS server at
// url under name, in a process group of its own (KillGroup ends it with its workers as
// a crashed machine would). Its JSON log is followed like the engine's.
func StartHost(binDir, url, name string, echo io.Writer, extra ...string) (*Proc, error) {
	return StartHostIn(nil, binDir, url, name, echo, extra...)
}

// StartHostIn is StartHost with the host agent run through wrap, a command that execs
// its arguments in place (`ip netns exec NS`: the agent then has wrap's process's pid
// and group, so KillGroup still ends it and its workers).
func StartHostIn(wrap []string, binDir, url, name string, echo io.Writer, extra ...string) (*Proc, error) {
	argv := append(append(append([]string(nil), wrap...), filepath.Join(binDir, "robota-worker"), "host", "--nats", url, "--name", name), extra...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	p := &Proc{Cmd: cmd, changed: make(chan struct{}), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start robota-worker host: %w", err)
	}
	go p.follow(stderr, echo)
	return p, nil
}

// KillGroup sends SIGKILL to the process's whole process group.
func (p *Proc) KillGroup() {
	if p.Cmd.Process != nil {
		_ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
	}
}
