package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

func namespaceAttrs(p Policy) *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID)
	if p.Network != nil {
		flags |= syscall.CLONE_NEWNET // only loopback; the proxy bridge is the way out
	}
	return &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		// Without setgroups the gid map can be written by an unprivileged parent.
		GidMappingsEnableSetgroups: false,
		Setpgid:                    true,
		Pdeathsig:                  syscall.SIGKILL,
	}
}

// probe makes one empty sandbox running /bin/true: user namespaces may be allowed and
// mounts in them refused (some distributions' policies), so the whole path is tried.
func probe() (bool, string) {
	helper, err := launcher()
	if err != nil {
		return false, err.Error()
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		return false, "no true(1) to probe with"
	}
	cmd := exec.Command(helper, helperArg, truePath, "true")
	cmd.Env = append(os.Environ(), policyEnv+"={}")
	cmd.SysProcAttr = namespaceAttrs(Policy{})
	out, err := cmd.CombinedOutput()
	if err != nil {
		why := strings.TrimSpace(string(out))
		if why == "" {
			why = err.Error()
		}
		return false, why
	}
	return true, ""
}

// RunIfSandbox makes this process a sandbox's first process when it was started as one
// (by Command): it sets up the policy and executes the shell, never returning. Otherwise
// it returns at once. Call it first thing in main (and in TestMain of tests that run
// sandboxed commands).
func RunIfSandbox() {
	hosted.Store(true)
	if len(os.Args) == 2 && os.Args[1] == serverArg {
		os.Exit(serve())
	}
	if len(os.Args) < 4 || os.Args[1] != helperArg {
		return
	}
	if err := enter(os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintf(os.Stderr, "robota sandbox: %v\n", err)
		os.Exit(126)
	}
}

// RunHelper is robota-sandbox's main: it becomes the sandbox's first process (never
// returning) when started by Command, and otherwise says what it is and exits 2.
func RunHelper() {
	if (len(os.Args) < 4 || os.Args[1] != helperArg) && !(len(os.Args) == 2 && os.Args[1] == serverArg) {
		fmt.Fprintln(os.Stderr, HelperName+": the first process of robota's command sandbox; robota starts it, people do not")
		os.Exit(2)
	}
	RunIfSandbox()
}

func enter(shell string, argv []string) error {
	p, err := setUp()
	if err != nil {
		return err
	}
	env := slicesWithout(os.Environ(), policyEnv+"=")
	if p.Network == nil {
		return syscall.Exec(shell, argv, env)
	}
	os.Exit(superviseNetworked(shell, argv, withProxyEnv(env)))
	return nil
}

// setUp makes this process's mount namespace as the policy in policyEnv says (and its
// network: loopback up, the proxy bridges listening) and drops every capability of the
// calling thread, to which it locks the goroutine: capabilities are per thread, and what
// this process runs must start from this one. It returns the policy.
func setUp() (Policy, error) {
	var p Policy
	if err := json.Unmarshal([]byte(os.Getenv(policyEnv)), &p); err != nil {
		return p, fmt.Errorf("policy: %w", err)
	}
	runtime.LockOSThread()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return p, fmt.Errorf("make mounts private: %w", err)
	}
	for _, path := range p.Hide {
		if err := hide(path); err != nil {
			return p, err
		}
	}
	for _, path := range p.ReadOnly {
		if err := readOnly(path); err != nil {
			return p, err
		}
	}
	// The new PID namespace's /proc: no /proc/PID/root of an outside process.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return p, fmt.Errorf("mount /proc: %w", err)
	}
	if p.Network != nil {
		if err := upLoopback(); err != nil {
			return p, err
		}
		if err := startBridges(p.Network); err != nil {
			return p, err
		}
	}
	return p, dropPrivileges()
}

func hide(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil // gone since the policy was made: nothing to hide
	}
	if st.IsDir() {
		err = unix.Mount("robota-hidden", path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
	} else {
		err = unix.Mount("/dev/null", path, "", unix.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("hide %s: %w", path, err)
	}
	return nil
}

func readOnly(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	// A remount inside a user namespace must keep the flags the mount was locked with.
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", path, err)
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	if err := unix.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	return nil
}

// dropPrivileges leaves the command no capability, in this namespace or after exec, so it
// cannot unmount or remount what the policy mounted.
func dropPrivileges() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
