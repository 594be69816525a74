package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// serverFD is the descriptor of the server's end of its socket (the first of ExtraFiles).
const serverFD = 3

// serve is the sandbox server's main: it sets the sandbox up once (mounts, /proc, no
// capability on the thread that starts commands), then starts each command a request
// asks for, from that thread, and reports its end. It returns when the socket closes
// (robota is gone or done with it); as the PID namespace's first process, its end ends
// every command still running.
func serve() int {
	send := sender(serverFD)
	policy, err := setUp()
	if err != nil {
		send(serverMsg{Err: err.Error()}, nil)
		return 126
	}
	// A command of this sandbox may signal its first process; only the socket ends it.
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	// Not dumpable: a command cannot ptrace this process (whose other threads keep the
	// namespace's capabilities) nor read its memory through /proc.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		send(serverMsg{Err: fmt.Sprintf("not dumpable: %v", err)}, nil)
		return 126
	}
	if err := send(serverMsg{Ready: true}, nil); err != nil {
		return 1
	}
	var mu sync.Mutex
	groups := map[uint64]int{} // request id → the command's process group
	buf := make([]byte, maxRequest)
	oob := make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(serverFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != nil || n == 0 {
			return 0
		}
		files := receivedFiles(oob[:oobn])
		var req serverRequest
		if err := json.Unmarshal(buf[:n], &req); err != nil {
			closeAll(files)
			continue
		}
		switch req.Op {
		case "kill":
			mu.Lock()
			pgid, ok := groups[req.ID]
			mu.Unlock()
			if ok {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		case "run":
			cmd, err := startRequested(req, files, policy.Network != nil)
			closeAll(files)
			if err != nil {
				_ = send(serverMsg{ID: req.ID, Err: err.Error()}, nil)
				continue
			}
			pgid := cmd.Process.Pid
			mu.Lock()
			groups[req.ID] = pgid
			mu.Unlock()
			_ = send(serverMsg{ID: req.ID, Started: true}, nil)
			go func(id uint64) {
				_ = cmd.Wait()
				// What the shell left running in its group would hold its output open.
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
				mu.Lock()
				delete(groups, id)
				mu.Unlock()
				status := uint32(cmd.ProcessState.Sys().(syscall.WaitStatus))
				_ = send(serverMsg{ID: id, Ended: true, Status: status}, nil)
			}(req.ID)
		default:
			closeAll(files)
		}
	}
}

// startRequested starts a request's command with the descriptors it sent (stdin, stdout,
// stderr) in a process group of its own; networked: with the proxy's environment. It
// runs on the goroutine setUp locked to the thread without capabilities, so the command
// is started from that thread.
func startRequested(req serverRequest, files []*os.File, networked bool) (*exec.Cmd, error) {
	if len(files) != 3 {
		return nil, fmt.Errorf("want stdin, stdout and stderr, got %d descriptors", len(files))
	}
	if len(req.Argv) == 0 || req.Shell == "" {
		return nil, fmt.Errorf("no command")
	}
	env := slicesWithout(req.Env, policyEnv+"=")
	if networked {
		env = withProxyEnv(env)
	}
	cmd := &exec.Cmd{Path: req.Shell, Args: req.Argv, Dir: req.Dir, Env: env,
		Stdin: files[0], Stdout: files[1], Stderr: files[2], SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	return cmd, cmd.Start()
}

// receivedFiles are the descriptors of a message's SCM_RIGHTS.
func receivedFiles(oob []byte) []*os.File {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "received"))
		}
	}
	return files
}

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// sender writes messages on fd, each one datagram, from any goroutine.
func sender(fd int) func(v any, files []*os.File) error {
	var mu sync.Mutex
	return func(v any, files []*os.File) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var oob []byte
		if len(files) > 0 {
			fds := make([]int, len(files))
			for i, f := range files {
				fds[i] = int(f.Fd())
			}
			oob = unix.UnixRights(fds...)
		}
		mu.Lock()
		defer mu.Unlock()
		return unix.Sendmsg(fd, b, oob, nil, 0)
	}
}

func slicesWithout(env []string, prefix string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}
