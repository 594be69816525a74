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
//     are refused.
//   - Grep parses the pattern once (RE2 syntax) and runs the same expression in either
//     backend: ripgrep (`rg`, when on PATH) or a pure-Go one (parallel walk, RE2). Both
//     apply the same rules — rg's --glob semantics for glob (a match overrides .gitignore),
//     the same type table, a NUL in the first 8,000 bytes means binary and skipped, a named
//     file is searched even if ignored — and return identical results; the parity test in
//     grep_test.go runs one table through both.
//   - Without multiline, patterns match within a line: . and classes never match \n, and a
//     literal \n is refused. \w, \d, \s and \b are ASCII in both backends.
//   - Output is bounded: 2,000 characters a line, 30,000 in all (cut at a line boundary
//     with a note), head_limit entries when given.
package search
