package record

// Call describes one tool call.
type Call struct {
	// FirstArg is the argument to show next to the tool name (the file path, the command,
	// the pattern, the URL, the query).
	FirstArg string `json:"firstArg"`
	// Reads and Writes are the real (symlink-resolved) paths the call reads or writes;
	// a directory stands for a search below it. Empty when the arguments name none or
	// cannot be resolved (the call will then fail).
	Reads  []string `json:"reads,omitempty"`
	Writes []string `json:"writes,omitempty"`
}

// Metadata keys under which tools repeat the record in their results.
const (
	FirstArgKey = "firstArg"
	ReadsKey    = "reads"
	WritesKey   = "writes"
)

// Annotate copies c into meta (allocating it when nil) and returns it.
func (c Call) Annotate(meta map[string]any) map[string]any {
	if meta == nil {
		meta = map[string]any{}
	}
	meta[FirstArgKey] = c.FirstArg
	if len(c.Reads) > 0 {
		meta[ReadsKey] = c.Reads
	}
	if len(c.Writes) > 0 {
		meta[WritesKey] = c.Writes
	}
	return meta
}
