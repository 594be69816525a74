package assemble

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/background"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
	"github.com/robota-sdk/robota-go/pkg/sandbox/netproxy"
	"github.com/robota-sdk/robota-go/pkg/tools/bash"
)

// The command sandbox (pkg/sandbox) is on by default: every Bash command of the session
// runs where the operating system hides the Read-denied paths and makes the Edit-denied
// and protected ones read-only. Claude Code's `sandbox` settings keep their meaning:
// `enabled: false` turns it off, `excludedCommands` run outside it, `network.allowedDomains`
// confines commands' network to an allow-list (sandboxnet.go). Where the kernel
// cannot make it, the session says so once and the permission checker asks about the
// commands it cannot fully explain while a file deny rule is in force.

// sandboxSettings is Claude Code's `sandbox` settings object, as robota reads it.
type sandboxSettings struct {
	Enabled           *bool    `json:"enabled"`
	ExcludedCommands  []string `json:"excludedCommands"`
	FailIfUnavailable bool     `json:"failIfUnavailable"`
	// network is sandbox.network as every settings file gives it (sandboxnet.go).
	network config.SandboxNetwork
}

// anyEntry is the name of a directory entry that stands for every entry.
const anyEntry = ".robota-sandbox-any-entry"

// maxSandboxWalk bounds the entries looked at to find the denied paths of a project.
const maxSandboxWalk = 200_000

// protectedInProject are made read-only below each working directory: what a command
// could use to run code later (git hooks and config, robota's and Claude Code's
// settings, skills and agents, editor tasks), as the checker protects them.
var protectedInProject = []string{".git/hooks", ".git/config", ".git/info", ".claude", ".robota/settings.json",
	".robota/settings.local.json", ".robota/skills", ".robota/agents", ".robota/commands", ".agents/skills",
	".agents/agents", ".agents/commands", ".vscode",
	".idea", ".gitmodules", ".mcp.json", ".claude.json", ".bashrc", ".zshrc", ".profile"}

// protectedInHome are the shell and git start-up files of the home directory.
var protectedInHome = []string{".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile",
	".zshenv", ".zlogin", ".gitconfig", ".ripgreprc", ".claude", ".robota/settings.json", ".ssh/authorized_keys"}

// commandSandbox decides, per command, whether and how it runs sandboxed.
type commandSandbox struct {
	ev       *permission.Evaluator
	roots    []string
	home     string
	protect  bool // protected paths are read-only (every mode but bypassPermissions)
	excluded []string
	// network is the allow-list commands' network is confined to (nil: not confined);
	// served, its proxy, started by startNetwork (netOnce) and stopped by close.
	network   *runnerapi.SandboxNetwork
	netOnce   sync.Once
	served    *netproxy.Served
	netPolicy *sandbox.Network
	netErr    error
	// walkPolicy walks the roots for the policy (c.build).
	walkPolicy func() sandbox.Policy

	mu sync.Mutex
	// policy is the last walk's; built says the first walk was made.
	policy sandbox.Policy
	built  bool
	// refreshing is closed when the running walk ends (nil: none runs); again asks it
	// to walk once more (a command ended while it walked).
	refreshing chan struct{}
	again      bool
	// server is the session's sandbox, made with serverPolicy; servers counts each
	// server's running commands, so one the policy left behind closes when they end.
	server       *sandbox.Server
	serverPolicy sandbox.Policy
	servers      map[*sandbox.Server]int
	closed       bool
}

// sandboxSettingsOf reads the settings and the kernel: the settings when the sandbox is
// on, nil when it is off or cannot be made, and then a warning to show once when it
// cannot.
func sandboxSettingsOf(settings *config.Settings) (*sandboxSettings, string, error) {
	var set sandboxSettings
	if raw, ok := settings.Extra["sandbox"]; ok {
		if err := json.Unmarshal(raw, &set); err != nil {
			return nil, "", invalid("settings sandbox: %v", err)
		}
	}
	if set.Enabled != nil && !*set.Enabled {
		return nil, "", nil
	}
	set.network = settings.SandboxNetwork()
	if ok, why := sandbox.Available(); !ok {
		if set.FailIfUnavailable {
			return nil, "", invalid("settings sandbox.failIfUnavailable: the command sandbox cannot be made here (%s)", why)
		}
		return nil, fmt.Sprintf("the command sandbox is not available here (%s): while a file deny rule is in force, "+
			"commands whose file access the permission checker cannot fully know will ask", why), nil
	}
	return &set, "", nil
}

func newCommandSandbox(set sandboxSettings, ev *permission.Evaluator, mode string, roots []string, home string) *commandSandbox {
	c := &commandSandbox{ev: ev, roots: roots, home: home, protect: mode != string(permission.ModeBypassPermissions),
		excluded: set.ExcludedCommands, servers: map[*sandbox.Server]int{}, network: networkOf(set.network, ev)}
	c.walkPolicy = c.build
	return c
}

// isolate is the Bash tool's Config.Isolate.
func (c *commandSandbox) isolate(_ context.Context, shell string, argv []string, dir string, env []string, command string) (*exec.Cmd, error) {
	if c.isExcluded(command) {
		return nil, nil
	}
	// Even with nothing to hide, the command runs in its namespaces: everything it
	// starts ends with it, and with robota (kill -9 included).
	p, err := c.policyNow()
	if err != nil {
		return nil, err
	}
	return p.Command(shell, argv, dir, env)
}

// spawn is the Bash tool's Config.Spawn: the session's commands run in one sandbox made
// at the first of them (a Server), so each costs a process start, not a new set of
// namespaces and mounts. A command may make a path a rule covers (git init, an
// extracted archive): the policy is walked again after each command, and a command
// that finds it changed starts a new server with it (see sandbox_refresh.go).
func (c *commandSandbox) spawn(shell string, argv []string, dir string, env []string, command string, out *os.File) (bash.Process, error) {
	if c.isExcluded(command) {
		return nil, nil
	}
	p, err := c.policyNow()
	if err != nil {
		return nil, err
	}
	srv, err := c.serverFor(p)
	if err != nil {
		return nil, err
	}
	proc, err := srv.Start(shell, argv, dir, env, out, out)
	if err != nil {
		c.release(srv)
		return nil, err
	}
	return &sandboxedProc{Proc: proc, c: c, srv: srv}, nil
}

// close ends the session's sandbox servers: the commands still running in them end too.
func (c *commandSandbox) close() {
	c.mu.Lock()
	c.closed = true
	list := make([]*sandbox.Server, 0, len(c.servers))
	for srv := range c.servers {
		list = append(list, srv)
	}
	if c.server != nil {
		list = append(list, c.server)
	}
	c.mu.Unlock()
	for _, srv := range list {
		_ = srv.Close()
	}
	c.netOnce.Do(func() {}) // no proxy is started after this
	if c.served != nil {
		c.served.Stop()
	}
}

// isExcluded: sandbox.excludedCommands lists commands that run outside the sandbox.
func (c *commandSandbox) isExcluded(command string) bool {
	return sandbox.Excluded(c.excluded, command)
}

// jobSandbox is the sandbox of a background or subagent job's commands, which run in
// a worker: the same policy as the session's Bash.
//
// The protected paths go whether they exist or not: the worker covers those that exist
// when each command starts, so a repository one of the job's commands makes has
// read-only hooks for the next.
func (c *commandSandbox) jobSandbox() *runnerapi.Sandbox {
	p := c.current()
	readOnly := append(slices.Clone(p.ReadOnly), c.protectedPaths()...)
	return &runnerapi.Sandbox{Hide: p.Hide, ReadOnly: readOnly, ExcludedCommands: c.excluded, Network: c.network}
}

// jobPolicy is the session's sandbox as its jobs get it (background.JobSandbox): their
// commands end outside the session's sandbox server, so a job's Bash call asks for the
// walk after it as the session's own commands do, and the next one's policy waits for it.
type jobPolicy struct{ c *commandSandbox }

func (j jobPolicy) Policy() *runnerapi.Sandbox { return j.c.jobSandbox() }
func (j jobPolicy) CommandEnded()              { j.c.commandEnded() }

// InWorktree implements background.JobSandbox: the worktree is walked as the roots are,
// with the evaluator of a job working there (its rules asked about each entry's
// counterpart in the project too), cached and walked again after each of the job's
// commands, in the background, as the session's walk is.
func (j jobPolicy) InWorktree(dir, origin string) background.JobSandbox {
	roots := sandboxRoots(dir, nil)
	if len(roots) == 0 {
		return j
	}
	wt := &commandSandbox{ev: j.c.ev.InWorktree(dir, origin), roots: roots, protect: j.c.protect}
	wt.walkPolicy = wt.build
	return worktreePolicy{session: j.c, worktree: wt}
}

// worktreePolicy is the sandbox of a job working in a worktree: the session's policy and
// the worktree's own walk.
type worktreePolicy struct{ session, worktree *commandSandbox }

func (w worktreePolicy) Policy() *runnerapi.Sandbox {
	sb := w.session.jobSandbox()
	p := w.worktree.current()
	sb.Hide = append(slices.Clone(sb.Hide), p.Hide...)
	sb.ReadOnly = append(sb.ReadOnly, p.ReadOnly...)
	return sb
}

// CommandEnded walks both again: a job's command may write outside its worktree too
// (asked for, as a write outside the project is).
func (w worktreePolicy) CommandEnded() {
	w.session.commandEnded()
	w.worktree.commandEnded()
}

func (w worktreePolicy) InWorktree(string, string) background.JobSandbox { return w }

// jobSearchExclude is what a Read deny rule covers under roots (the sandbox's walk, for
// Read only): what subagents' Grep and Glob leave out, walked as each job starts and as
// each of their search calls runs, so a denied file an earlier command brought in is left
// out too. nil when no rule names a file.
func jobSearchExclude(ev *permission.Evaluator, roots []string) background.JobSearch {
	if !ev.HasFileDenyRules() {
		return nil
	}
	return projectSearch{c: &commandSandbox{ev: ev, roots: roots}}
}

// projectSearch is background.JobSearch over the session's directories.
type projectSearch struct{ c *commandSandbox }

func (p projectSearch) Exclude() []string { return p.c.readDenied() }

// InWorktree implements background.JobSearch: the worktree is walked with the evaluator
// of a job working there (its rules asked about each entry's counterpart in the project).
func (p projectSearch) InWorktree(dir, origin string) background.JobSearch {
	roots := sandboxRoots(dir, nil)
	if len(roots) == 0 {
		return p
	}
	return worktreeSearch{project: p.c, worktree: &commandSandbox{ev: p.c.ev.InWorktree(dir, origin), roots: roots}}
}

// worktreeSearch is what a job working in a worktree leaves out: the project's walk (the
// caller mirrors it into the worktree) and the worktree's own.
type worktreeSearch struct{ project, worktree *commandSandbox }

func (w worktreeSearch) Exclude() []string {
	return append(w.project.readDenied(), w.worktree.readDenied()...)
}

func (w worktreeSearch) InWorktree(string, string) background.JobSearch { return w }

// build finds the paths the policy covers: the denied entries of the working
// directories (a denied directory is covered whole), the protected ones, and the
// protected files of the home directory.
func (c *commandSandbox) build() sandbox.Policy {
	var p sandbox.Policy
	// Without a file deny rule only the protected paths are covered; those below the
	// roots (a nested repository's hooks, a subdirectory's .claude) need the walk too.
	if deny := c.ev.HasFileDenyRules(); deny || c.protect {
		p.Hide, p.ReadOnly = c.walk(deny, c.protect)
	}
	p.ReadOnly = append(p.ReadOnly, c.protectedPaths()...)
	return p.Abs()
}

// protectedPaths are the protected paths of the roots and the home directory, whether
// they exist or not.
func (c *commandSandbox) protectedPaths() []string {
	var out []string
	for _, root := range c.roots {
		if c.protect {
			for _, rel := range protectedInProject {
				out = append(out, filepath.Join(root, rel))
			}
		}
	}
	if c.protect && filepath.IsAbs(c.home) {
		for _, rel := range protectedInHome {
			out = append(out, filepath.Join(c.home, rel))
		}
	}
	return out
}

// readDenied is what a Read deny rule covers under the roots (cleaned as a policy's).
func (c *commandSandbox) readDenied() []string {
	hide, _ := c.walk(true, false)
	return sandbox.Policy{Hide: hide}.Abs().Hide
}

// walk walks the roots for the entries a Read deny rule covers (hide) and those an
// Edit deny rule covers (readOnly), when deny; and, when protect, for the protected
// entries below the roots' own (readOnly): what the permission checker protects at any
// depth. A covered directory is not walked into.
func (c *commandSandbox) walk(deny, protect bool) (hide, readOnly []string) {
	seen := 0
	asked := c.ev.SandboxWalk()
	for _, root := range c.roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if seen++; seen > maxSandboxWalk {
				return filepath.SkipAll
			}
			if protect && path != root {
				nested, skip := protectedBelow(path, d, filepath.Dir(path) == root)
				readOnly = append(readOnly, nested...)
				if skip && !deny { // with deny rules, what is below may still be denied
					return filepath.SkipDir
				}
			}
			if !deny {
				return nil
			}
			// A rule that denies a directory's every entry (`secrets/**`) covers the
			// directory: a child with a name no one uses stands for every entry.
			covers := func(tool string) bool {
				return asked.Denies(tool, path) || d.IsDir() && asked.Denies(tool, filepath.Join(path, anyEntry))
			}
			switch {
			case covers("Read"):
				hide = append(hide, path)
			case covers("Edit"):
				readOnly = append(readOnly, path)
			default:
				if d.IsDir() && d.Name() == ".git" && path != root {
					return filepath.SkipDir // its contents are git's; the protected parts are below
				}
				return nil
			}
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		})
	}
	return hide, readOnly
}

// protectedBelow is what of the entry at path the sandbox makes read-only as the checker
// protects it wherever it is (isProtected): a repository's hooks, config and info (and
// its submodules'), a .claude, .vscode or .idea directory, robota's settings and
// definition directories, shell start-up files and MCP server lists. atRoot: the entry
// is directly in a root, whose protected paths protectedInProject lists already. skip:
// do not walk into it.
func protectedBelow(path string, d fs.DirEntry, atRoot bool) (readOnly []string, skip bool) {
	name := d.Name()
	if !d.IsDir() {
		if !atRoot && nestedProtectedFile(name) {
			return []string{path}, false
		}
		return nil, false
	}
	switch name {
	case ".git":
		if atRoot {
			readOnly = nil // listed already
		} else {
			readOnly = []string{filepath.Join(path, "hooks"), filepath.Join(path, "config"), filepath.Join(path, "info")}
		}
		// Submodules keep their git directories here, hooks and config included.
		if mods, err := filepath.Glob(filepath.Join(path, "modules", "*")); err == nil {
			for _, m := range mods {
				readOnly = append(readOnly, filepath.Join(m, "hooks"), filepath.Join(m, "config"), filepath.Join(m, "info"))
			}
		}
		return readOnly, true
	case ".claude", ".vscode", ".idea":
		if atRoot {
			return nil, true
		}
		return []string{path}, true
	case ".robota", ".agents":
		if atRoot {
			return nil, true
		}
		for _, rel := range []string{"settings.json", "settings.local.json", "skills", "agents", "commands"} {
			readOnly = append(readOnly, filepath.Join(path, rel))
		}
		return readOnly, true
	}
	return nil, false
}

// nestedProtectedFile reports whether name is one of the start-up and configuration files
// protected in any directory (the checker's protectedFiles that live in a project).
func nestedProtectedFile(name string) bool {
	switch name {
	case ".gitmodules", ".mcp.json", ".claude.json",
		".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", ".zshenv":
		return true
	}
	return false
}

// sandboxRoots are the directories whose denied entries the sandbox looks for.
func sandboxRoots(cwd string, dirs []string) []string {
	var out []string
	for _, d := range append([]string{cwd}, dirs...) {
		if d == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	return out
}
