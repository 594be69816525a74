// Package frontmatter reads the `---` YAML header of Claude Code's Markdown definition
// files (agents, skills, custom commands, plugin components, task files) the way Claude
// Code reads them, so a file copied from a public repository loses nothing.
//
// Parse never fails and never panics (FuzzParse): strict YAML first; when that fails, a
// retry with each simple `key: value` line whose value holds YAML punctuation quoted and
// leading tabs made spaces (community files write unquoted descriptions full of `: ` and
// `<example>` tags, and `argument-hint: [a] [b]`); when that fails too, the header is
// read line by line as `key: value` pairs (Fallback), and Doc.YAMLError says why, for a
// warning. A `---` that is never closed leaves the whole file as body (Doc.Unclosed).
// A UTF-8 BOM and CRLF line ends are accepted everywhere.
//
// The package owns no field: what a key means is its loader's business (agentdef,
// skills, contextload).
//
// Regular expressions are compiled on first use (internal/lazy), not in a package init:
// robota pays every init on every command (issue 29).
package frontmatter
