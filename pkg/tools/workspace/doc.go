// Package workspace owns path confinement for the file tools: every path a built-in tool
// reads, writes or searches is resolved here against the session's working directories
// (the cwd plus configured additional directories).
//
// Guarantees:
//   - Resolve refuses an empty path, a path containing a NUL byte, a path (absolute, or
//     relative with "..") whose lexical location is outside every working directory, and
//     a path whose symbolic links (including dangling ones, at any component) lead outside.
//   - A resolved Path names the real location (no symbolic links left), so callers operate
//     on exactly what was checked; Path.OpenRoot returns an os.Root for that location's
//     working directory, so a symbolic link swapped in after the check still cannot escape.
//   - Every refusal wraps ErrInvalidPath or ErrOutsideWorkspace and says which rule it broke.
//
// It is a guard under the permission system, not a replacement for it: a permitted path can
// still be refused here, never the other way round.
package workspace
