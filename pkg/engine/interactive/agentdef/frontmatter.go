package agentdef

import "go.yaml.in/yaml/v3"

// The frontmatter reading of agent files, exported for the other Markdown-with-frontmatter
// formats of Claude Code (skills and custom commands) so they accept the same shapes.

// SplitFrontmatter cuts a `---` frontmatter block off the start of data (a UTF-8 BOM and
// CRLF line ends accepted); body is the rest with LF line ends, or all of data when found
// is false.
func SplitFrontmatter(data []byte) (front, body string, found bool) { return splitFrontmatter(data) }

// DecodeFrontmatter decodes a frontmatter block into its top-level keys (aliases
// resolved), with the lenient retry Parse uses; an error wraps ErrMalformed.
func DecodeFrontmatter(front string) (map[string]*yaml.Node, error) { return parseYAML(front) }

// ToolList reads a tool list field: a YAML list or a string, every entry split on commas
// and spaces outside parentheses. nil when empty.
func ToolList(n *yaml.Node) []string { return toolList(n) }
