// Package search owns the Glob and Grep tools and the walker they share.
//
// Guarantees:
//   - Both tools resolve their path through the workspace, never follow symbolic links while
//     walking, skip VCS directories (.git, .svn, .hg, .bzr, .jj, .sl) and special files,
//     include hidden files, and honour .gitignore files at and below the searched directory
//     (nested ones and negations included; go-git's matcher) — parent directories' and
//     global ignore files are not read.
//   - Glob matches root-relative paths with doublestar (**, braces, classes), lists files
//     newest first (ties by path) and caps the list at 1,000 with a note; patterns with ".."
//     are refused. It holds at most those 1,000 matches while it walks (a bounded heap of the
//     newest), so its memory does not grow with the number of files matched.
//   - Grep parses the pattern once (RE2 syntax) and runs the same expression in either
//     backend: ripgrep (`rg`, when on PATH) or a pure-Go one (parallel walk, RE2). Both
//     apply the same rules — rg's --glob semantics for glob (a match overrides .gitignore),
//     the same type table, a NUL in the first 8,000 bytes means binary and skipped, a named
//     file is searched even if ignored, files over the size cap (64 MiB by default) are
//     skipped in a directory search and refused by name — and return identical results;
//     the parity test in grep_test.go runs one table through both.
//   - Without multiline, patterns match within a line: . and classes never match \n, and a
//     literal \n is refused. \w, \d, \s and \b are ASCII in both backends.
//   - An Exclude filter (GrepConfig, GlobConfig; the engine builds it from the permission
//     deny rules) keeps paths out of both tools: an excluded file is never listed, matched
//     or counted, and no line of it reaches a result; an excluded directory is not entered,
//     and a call naming an excluded path finds nothing. The Go walker applies it while
//     walking (files are not opened); ripgrep, which cannot call it, still reads them, and
//     its output is filtered by path as it is parsed, before anything of them is kept.
//   - Memory is bounded: the Go backend reads files over 4 MiB one at a time and keeps no
//     buffer of that size between files, so a search holds at most one file of up to the
//     size cap plus a 4 MiB buffer per CPU.
//   - Output is bounded: 2,000 characters a line, 30,000 in all (cut at a line boundary
//     with a note), head_limit entries when given.
package search
