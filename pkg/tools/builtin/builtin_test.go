package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/tools/record"
)

// wantParams are Claude Code's parameter names for each tool (DESIGN.md, Decisions 1).
var wantParams = map[string][]string{
	"Bash":      {"command", "description", "run_in_background", "timeout"},
	"Read":      {"file_path", "limit", "offset"},
	"Write":     {"content", "file_path"},
	"Edit":      {"file_path", "new_string", "old_string", "replace_all"},
	"Glob":      {"path", "pattern"},
	"Grep":      {"-A", "-B", "-C", "-i", "-n", "glob", "head_limit", "multiline", "output_mode", "path", "pattern", "type"},
	"WebFetch":  {"prompt", "url"},
	"WebSearch": {"allowed_domains", "blocked_domains", "query"},
}

func TestNewBuildsTheEightToolsWithClaudeCodeSchemas(t *testing.T) {
	dir := t.TempDir()
	tools, ws, err := New(Config{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Cwd() != dir {
		t.Fatalf("workspace cwd = %q", ws.Cwd())
	}
	if len(tools) != len(Names) {
		t.Fatalf("got %d tools, want %d", len(tools), len(Names))
	}
	for i, tool := range tools {
		s := tool.Schema()
		if s.Name != Names[i] {
			t.Fatalf("tool %d is %q, want %q", i, s.Name, Names[i])
		}
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
			t.Fatalf("%s schema: %v", s.Name, err)
		}
		var got []string
		for name := range schema.Properties {
			got = append(got, name)
		}
		sort.Strings(got)
		if want := wantParams[s.Name]; !equal(got, want) {
			t.Errorf("%s parameters = %v, want %v", s.Name, got, want)
		}
		if _, ok := Describe(tool, json.RawMessage(`{}`)); !ok {
			t.Errorf("%s is not a Describer", s.Name)
		}
	}
}

func TestRecordsBeforeAndAfterTheCall(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	extra, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tools, _, err := New(Config{Cwd: dir, AdditionalDirectories: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, tool := range tools {
		byName[tool.Schema().Name] = i
	}
	target := filepath.Join(extra, "notes.md")
	for _, c := range []struct {
		tool, args string
		want       record.Call
	}{
		{"Write", `{"file_path":"` + target + `","content":"x"}`, record.Call{FirstArg: target, Writes: []string{target}}},
		{"Read", `{"file_path":"` + target + `"}`, record.Call{FirstArg: target, Reads: []string{target}}},
		{"Edit", `{"file_path":"` + target + `","old_string":"x","new_string":"y"}`, record.Call{FirstArg: target, Writes: []string{target}}},
		{"Glob", `{"pattern":"*.md","path":"` + extra + `"}`, record.Call{FirstArg: "*.md", Reads: []string{extra}}},
		{"Grep", `{"pattern":"y"}`, record.Call{FirstArg: "y", Reads: []string{dir}}},
		{"Bash", `{"command":"echo hi"}`, record.Call{FirstArg: "echo hi"}},
	} {
		tool := tools[byName[c.tool]]
		before, _ := Describe(tool, json.RawMessage(c.args))
		if !sameRecord(before, c.want) {
			t.Errorf("%s Describe = %+v, want %+v", c.tool, before, c.want)
		}
		res := tool.Execute(context.Background(), json.RawMessage(c.args))
		if !res.Success {
			t.Fatalf("%s failed: %s", c.tool, res.Error)
		}
		after := record.Call{FirstArg: res.Metadata[record.FirstArgKey].(string)}
		if v, ok := res.Metadata[record.ReadsKey]; ok {
			after.Reads = v.([]string)
		}
		if v, ok := res.Metadata[record.WritesKey]; ok {
			after.Writes = v.([]string)
		}
		if !sameRecord(after, c.want) {
			t.Errorf("%s result record = %+v, want %+v", c.tool, after, c.want)
		}
	}
	if data, _ := os.ReadFile(target); string(data) != "y" {
		t.Fatalf("file = %q", data)
	}
}

func TestNewRejectsAMissingCwd(t *testing.T) {
	if _, _, err := New(Config{Cwd: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Fatal("New accepted a missing cwd")
	}
}

func sameRecord(a, b record.Call) bool {
	return a.FirstArg == b.FirstArg && equal(a.Reads, b.Reads) && equal(a.Writes, b.Writes)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Exclude reaches both search tools, each asking under its own name (deny rules may name
// one search tool only).
func TestExcludeReachesGrepAndGlobByName(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exclude := func(tool, p string) bool {
		return (tool == "Grep" && filepath.Base(p) == "a.txt") || (tool == "Glob" && filepath.Base(p) == "b.txt")
	}
	tools, _, err := New(Config{Cwd: dir, Exclude: exclude})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args, want string }{
		{"Grep", `{"pattern":"x"}`, "Found 1 file\n" + filepath.Join(dir, "b.txt")},
		{"Glob", `{"pattern":"*.txt"}`, filepath.Join(dir, "a.txt")},
	} {
		res := tools[indexOf(Names, c.tool)].Execute(context.Background(), json.RawMessage(c.args))
		if !res.Success || res.Output != c.want {
			t.Errorf("%s = %q %q, want %q", c.tool, res.Output, res.Error, c.want)
		}
	}
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// Issue 10 §1: the tools that only read declare it, so the agent runs them at once; the
// others do not, so the agent runs each alone (two edits of one file never race).
func TestReadOnlyToolsAreConcurrencySafe(t *testing.T) {
	tools, _, err := New(Config{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"Read": true, "Glob": true, "Grep": true, "WebFetch": true, "WebSearch": true}
	for _, tool := range tools {
		cs, ok := tool.(interface{ ConcurrencySafe(json.RawMessage) bool })
		got := ok && cs.ConcurrencySafe(json.RawMessage(`{}`))
		if name := tool.Schema().Name; got != want[name] {
			t.Errorf("%s concurrency-safe = %v, want %v", name, got, want[name])
		}
	}
}
