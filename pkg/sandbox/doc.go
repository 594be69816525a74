// Package sandbox runs a shell command where the operating system enforces the
// session's file rules, so that what a command does once it runs cannot reach what a
// deny rule names: an interpreter running inline code, a command built at run time, git
// plumbing printing history.
//
// A Policy lists paths to hide (Read-denied: an empty file or an empty read-only
// directory is mounted over each) and paths to make read-only (Edit-denied and
// protected paths: bound onto themselves read-only). Command wraps a shell command so
// that it runs in new user, mount and PID namespaces (Linux): the executable re-runs
// itself as the sandbox's first process (RunIfSandbox, called first thing in main and
// in TestMain), which makes the mounts, mounts a /proc of the new PID namespace (so no
// /proc/PID/root of an outside process shows the hidden files), drops every capability
// and sets no_new_privs, and then executes the shell. The command therefore cannot
// unmount, remount or bind its way around the policy: the mounts it sees are locked to
// it, and a user namespace of its own cannot unlock them. When the command's first
// process ends, every process it left in the sandbox ends with it.
//
// A Server makes one such sandbox and keeps its first process (robota-sandbox, started
// as serverArg) running: it receives each command over a socket with its descriptors and
// starts it from its one thread without capabilities, so a command costs a process start
// instead of new namespaces and mounts. The first process is not dumpable (no command
// can ptrace it or read its memory), holds none of robota's environment, ignores the
// signals a command could send it, and ends when its socket closes or robota dies (a
// parent-death signal); the kernel then kills every command in its PID namespace. The
// commands of one Server share its mounts and PID namespace.
//
// What it guarantees, and what it does not:
//   - The paths hidden or made read-only are the ones the Policy lists, which exist
//     when the sandbox is made: a Server's when its first command starts. Its owner
//     makes a new Server when the paths change (pkg/engine/interactive walks them again
//     after every command); a file created under a denied name while a command runs is
//     covered by the permission checker only (it asks or denies before the command runs).
//   - Everything else of the filesystem is as outside; the network is not restricted.
//   - Available reports once whether the kernel lets an unprivileged process make these
//     namespaces; without them Command is not used and the checker's fallback asks.
package sandbox
