// Package record owns the tool-call record: what the permission layer and the session logs
// need to know about one call of a built-in tool, derived from its arguments alone (so it
// is available before the call runs).
//
// Guarantees: a Call is plain JSON-serializable data; the built-in tools put the same values
// in their ToolResult.Metadata under the keys FirstArgKey, ReadsKey and WritesKey (as string
// and []string), so consumers that only see results need not import this package.
package record
