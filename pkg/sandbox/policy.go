package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Policy is what the sandbox enforces on a command. Paths are absolute.
type Policy struct {
	// Hide are paths whose contents the command must not see: a file reads as empty, a
	// directory as empty and unwritable.
	Hide []string `json:"hide,omitempty"`
	// ReadOnly are paths the command must not change (nor anything below them).
	ReadOnly []string `json:"readOnly,omitempty"`
	// Network, when set, gives the command a network namespace of its own, where only
	// loopback exists and the proxy at Network.ProxySocket is the way out (network.go).
	Network *Network `json:"network,omitempty"`
}

// Empty reports whether the policy restricts nothing.
func (p Policy) Empty() bool { return len(p.Hide) == 0 && len(p.ReadOnly) == 0 && p.Network == nil }

// helperArg is the first argument of the executable re-run as a sandbox's first
// process; the policy travels in policyEnv.
const (
	helperArg = "__robota-sandbox__"
	policyEnv = "ROBOTA_SANDBOX_POLICY"
)

// ErrUnavailable is returned by Command when the kernel cannot make the sandbox.
var ErrUnavailable = errors.New("sandbox: user namespaces are not available")

// Command returns a command that runs shell with args inside the sandbox of p, in dir,
// with env. The caller sets its I/O and starts it like any exec.Cmd; Setpgid and a
// parent-death signal are set, so killing the group kills the sandbox.
func (p Policy) Command(shell string, args []string, dir string, env []string) (*exec.Cmd, error) {
	if ok, why := Available(); !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, why)
	}
	helper, err := launcher()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return p.commandVia(helper, shell, args, dir, env)
}

// commandVia is Command with the sandbox's first process started from helper.
func (p Policy) commandVia(helper, shell string, args []string, dir string, env []string) (*exec.Cmd, error) {
	spec, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	cmd := exec.Command(helper, append([]string{helperArg, shell}, args...)...)
	cmd.Dir = dir
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return len(kv) > len(policyEnv) && kv[:len(policyEnv)+1] == policyEnv+"="
	}), policyEnv+"="+string(spec))
	cmd.SysProcAttr = namespaceAttrs(p)
	return cmd, nil
}

var (
	// hosted is set by RunIfSandbox: this executable can be re-run as a sandbox.
	hosted    atomic.Bool
	probeOnce sync.Once
	probeOK   bool
	probeWhy  string
)

// HelperName is the small program that becomes a sandbox's first process, installed
// beside robota's binaries (make build). A sandboxed command starts it instead of
// re-running the whole robota binary, whose start-up costs tens of milliseconds.
const HelperName = "robota-sandbox"

// HelperEnv names a helper program to use instead (tests and benchmarks, whose binary is
// not installed beside one).
const HelperEnv = "ROBOTA_SANDBOX_HELPER"

var (
	launcherOnce sync.Once
	launcherPath string
	launcherErr  error
)

// launcher is the program a sandboxed command starts: $ROBOTA_SANDBOX_HELPER, else
// robota-sandbox beside this executable, else this executable when it hosts the sandbox
// (RunIfSandbox).
func launcher() (string, error) {
	launcherOnce.Do(func() {
		if p := os.Getenv(HelperEnv); p != "" {
			launcherPath = p
			return
		}
		self, err := os.Executable()
		if err != nil {
			launcherErr = err
			return
		}
		if st, err := os.Stat(filepath.Join(filepath.Dir(self), HelperName)); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			launcherPath = filepath.Join(filepath.Dir(self), HelperName)
			return
		}
		if !hosted.Load() {
			// Re-running a program that does not host the helper would run it again whole.
			launcherErr = errors.New("no " + HelperName + " beside this program, and it does not host the sandbox (sandbox.RunIfSandbox)")
			return
		}
		launcherPath = self
	})
	return launcherPath, launcherErr
}

// Available reports whether sandboxes can be made here, and why not; it probes once.
func Available() (bool, string) {
	probeOnce.Do(func() { probeOK, probeWhy = probe() })
	return probeOK, probeWhy
}

// Abs cleans the policy's paths, keeps those that exist, and drops a path below
// another of the same list (the outer one covers it).
func (p Policy) Abs() Policy {
	return Policy{Hide: existingRoots(p.Hide), ReadOnly: existingRoots(p.ReadOnly), Network: p.Network}
}

func existingRoots(paths []string) []string {
	var out []string
	for _, q := range paths {
		if !filepath.IsAbs(q) {
			continue
		}
		q = filepath.Clean(q)
		if _, err := os.Lstat(q); err != nil {
			continue
		}
		out = append(out, q)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(q string) bool {
		for _, o := range out {
			if o != q && within(q, o) {
				return true
			}
		}
		return false
	})
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && !filepath.IsAbs(rel) && rel != ".." && !(len(rel) > 2 && rel[:3] == "../")
}

// Excluded reports whether command is one the settings' sandbox.excludedCommands run
// outside the sandbox: a command (`docker`, `npm run`) or prefix (`docker:*`,
// `docker *`) and its arguments.
func Excluded(patterns []string, command string) bool {
	command = strings.TrimSpace(command)
	for _, e := range patterns {
		e = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(e, ":*"), " *"))
		if e != "" && (command == e || strings.HasPrefix(command, e+" ")) {
			return true
		}
	}
	return false
}
