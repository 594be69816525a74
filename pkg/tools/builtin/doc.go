// Package builtin assembles the eight built-in tools — Bash, Read, Write, Edit, Glob, Grep,
// WebFetch, WebSearch — over one workspace, with Claude Code's names and parameters.
//
// Guarantees: New returns the tools in that order, every one confined to the same workspace
// (cwd plus additional directories) and every one a Describer, whose record (first argument,
// paths read and written) is available before a call runs. Ports that are not configured
// (background runner, search backend) make the affected calls fail with a clear message;
// they never make New fail.
package builtin
