package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/robota-sdk/robota-go/internal/connjoin"

	"golang.org/x/sys/unix"
)

// upLoopback brings up the new network namespace's loopback interface (it starts down);
// the namespace's capabilities allow it, before they are dropped.
func upLoopback() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring loopback up: %w", err)
	}
	return nil
}

// startBridges listens on the proxy ports of the namespace's loopback (IPv4, and IPv6
// where the kernel has it) and joins each connection to the proxy's Unix socket.
func startBridges(n *Network) error {
	socks := n.SocksSocket
	if socks == "" {
		socks = n.ProxySocket
	}
	for port, socket := range map[int]string{ProxyPort: n.ProxySocket, SocksPort: socks} {
		l, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("proxy bridge: %w", err)
		}
		go bridge(l, socket)
		if l6, err := net.Listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(port))); err == nil {
			go bridge(l6, socket)
		}
	}
	return nil
}

func bridge(l net.Listener, socket string) {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // out of descriptors, say: do not spin
			continue
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("unix", socket)
			if err != nil {
				return // the client sees its connection closed: the proxy is gone
			}
			defer up.Close()
			connjoin.Join(up, c)
		}()
	}
}

// superviseNetworked runs a per-command sandbox's shell as a child, where Command would
// execute it: the proxy bridges are goroutines of this first process, which must outlive
// the command. It passes on the signals robota or a terminal sends, and returns the exit
// code to end with (128+N for a command killed by signal N, as a shell reports it).
// Like a Server's first process, it is not dumpable (its other threads keep the
// namespace's capabilities).
func superviseNetworked(shell string, argv, env []string) int {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "robota sandbox: not dumpable: %v\n", err)
		return 126
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	// Started from the thread setUp locked and stripped of capabilities.
	cmd := &exec.Cmd{Path: shell, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "robota sandbox: %v\n", err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return 1
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
