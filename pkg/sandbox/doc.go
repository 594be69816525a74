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
// The network allow-list (Policy.Network, network.go): the command also gets a network
// namespace of its own, where only loopback exists (brought up by the first process). The
// first process listens on 127.0.0.1:3128 and 127.0.0.1:1080 inside it (and [::1]) and
// joins each connection to a Unix socket outside, where robota's filtering proxy listens
// (pkg/sandbox/netproxy: HTTP CONNECT, plain HTTP in absolute form and SOCKS5 on one
// socket). Commands get Claude Code's proxy environment: HTTP_PROXY, HTTPS_PROXY,
// ALL_PROXY, GRPC_PROXY (and lower case) = http://localhost:3128, FTP_PROXY =
// socks5h://localhost:1080, RSYNC_PROXY, SANDBOX_RUNTIME=1, NO_PROXY = loopback only. A
// per-command sandbox with a network then keeps its first process, which starts the
// shell as a child (passing on signals and its exit code) instead of becoming it.
//
// Claude Code's settings keys, as robota reads them (settings sandbox.network; Claude
// Code 2.1 and its @anthropic-ai/sandbox-runtime):
//   - allowedDomains: present in any settings file, even as [], confines commands'
//     network to the list. Entries are host names ("github.com": that host only),
//     "*.example.com" (every host below example.com, not example.com itself, never an
//     IP address), IP addresses, with an optional ":port" ("api.github.com:443",
//     "[::1]:8080") limiting the entry to that port. The lists of every settings file
//     are merged, and the hosts of WebFetch(domain:HOST) allow rules are added, as
//     Claude Code adds them. Without allowedDomains (or a proxy port below) the
//     network is as outside, as before.
//   - deniedDomains: the same patterns, plus the hosts of WebFetch(domain:HOST) deny
//     rules; a deny entry wins over every allow entry ("*:22" refuses port 22).
//   - A destination not allowed is refused: an HTTP request or CONNECT with 403 and a
//     body "robota sandbox: connection refused: HOST is not in
//     sandbox.network.allowedDomains ..." (or naming the deniedDomains entry), a SOCKS5
//     CONNECT with "not allowed by ruleset". Claude Code asks the user about a host on
//     neither list; robota, whose proxy has no one to ask, refuses it.
//   - httpProxyPort, socksProxyPort: a proxy of the user's own on the host's
//     127.0.0.1:PORT that 3128 (1080) leads to instead of robota's; it does the
//     filtering (Claude Code: "the external proxy must handle domain filtering").
//     Either one also confines the network.
//   - allowLocalBinding: commands may always bind loopback ports inside their own
//     namespace, reachable from nowhere else (on Linux Claude Code's bubblewrap
//     sandbox does not restrict it either).
//   - allowAllUnixSockets: robota does not block Unix sockets (a socket file is
//     reachable by its path, as the rest of the filesystem; abstract sockets belong
//     to the network namespace, so outside ones are out of reach under an
//     allow-list): what true asks for. allowUnixSockets and allowMachLookup are macOS
//     only in Claude Code, allowManagedDomainsOnly needs managed settings robota does
//     not have, tlsTerminate a TLS-terminating proxy robota's is not: each is a
//     warning naming the file and the key.
//
// The proxy resolves host names itself (a command in the namespace has no DNS), and
// refuses to connect an allowed name to a loopback, private, link-local or unspecified
// address unless the allow-list names that address: a name cannot lead a command to
// robota's own or the local network's services.
//
// What it guarantees, and what it does not:
//   - The paths hidden or made read-only are the ones the Policy lists, which exist
//     when the sandbox is made: a Server's when its first command starts. Its owner
//     makes a new Server when the paths change (pkg/engine/assemble walks them again
//     after every command); a file created under a denied name while a command runs is
//     covered by the permission checker only (it asks or denies before the command runs).
//   - Everything else of the filesystem is as outside. Without an allow-list the
//     network is not restricted; with one, a command reaches nothing outside its
//     namespace but through the proxy, which passes only allowed hosts (by the name a
//     client asks for: what flows through an allowed CONNECT tunnel is not inspected).
//   - Available reports once whether the kernel lets an unprivileged process make these
//     namespaces; without them Command is not used and the checker's fallback asks.
package sandbox
