// Package cli is the `robota` command: flag parsing and dispatch. It owns the
// command-line contract of DESIGN.md (flags, exit statuses) and nothing of the
// engine itself.
//
// `robota __worker` (hidden) makes the binary serve as its own worker process,
// so an install of only `robota` still gets process-isolated subagents.
package cli
