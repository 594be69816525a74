package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair of w×h: the master side (the terminal's) and the
// slave side (the program's stdin, stdout and stderr).
func openPTY(w, h int) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlocking the pty: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("naming the pty: %w", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(w), Row: uint16(h)}); err != nil {
		master.Close()
		slave.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// firstOutputOnPTY starts cmd on a fresh w×h pseudo-terminal and returns how long after
// its start want appeared in what it wrote (bytes as written: want must be plain text
// the program writes in one piece). The program is killed afterwards. Reading the pty
// directly, with no terminal emulator and no polling, times the program alone.
func firstOutputOnPTY(cmd *exec.Cmd, want string, within time.Duration) (time.Duration, error) {
	master, slave, err := openPTY(100, 30)
	if err != nil {
		return 0, err
	}
	defer master.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		slave.Close()
		return 0, err
	}
	slave.Close()
	defer func() {
		cmd.Process.Kill() //nolint:errcheck
		cmd.Wait()         //nolint:errcheck
	}()
	found := make(chan time.Duration, 1)
	var seen bytes.Buffer
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := master.Read(buf)
			seen.Write(buf[:n])
			if bytes.Contains(seen.Bytes(), []byte(want)) {
				found <- time.Since(t0)
				return
			}
			if err != nil {
				close(found)
				return
			}
		}
	}()
	select {
	case d, ok := <-found:
		if !ok {
			return 0, fmt.Errorf("%q never written; the program wrote:\n%q", want, seen.String())
		}
		return d, nil
	case <-time.After(within):
		master.Close() // ends the reader
		if _, ok := <-found; ok {
			return 0, fmt.Errorf("%q written only after %v", want, within)
		}
		return 0, fmt.Errorf("%q not written within %v; the program wrote:\n%q", want, within, seen.String())
	}
}
