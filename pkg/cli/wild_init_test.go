package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// wildInit is the part of a system/init line this test compares.
type wildInit struct {
	Cwd           string           `json:"cwd"`
	SlashCommands []string         `json:"slash_commands"`
	Skills        []string         `json:"skills"`
	Agents        []string         `json:"agents"`
	Plugins       []map[string]any `json:"plugins"`
	MCPServers    []map[string]any `json:"mcp_servers"`
	OutputStyle   *string          `json:"output_style"`
}

// robotaOnly are the entries robota lists from testdata/wild and Claude Code 2.1.197
// does not, each on purpose (a file from the wild is never dropped):
var robotaOnly = map[string]string{
	// bad-yaml's frontmatter is not YAML: Claude Code reads no field of it, so it has
	// no description of its own and is not listed; robota reads it as key: value lines.
	"skill bad-yaml": "frontmatter read as key: value lines",
	// Claude Code drops these agents; robota names them after their file.
	"agent a2":       "no name: the file name",
	"agent a8":       `name "-dash": the file name`,
	"agent dashfile": `name "-dash": the file name`,
	// Claude Code drops an agent whose YAML fails even after quoting; robota reads the
	// lines.
	"agent yaml-bad": "frontmatter read as key: value lines",
}

// TestInitListsMatchClaudeCode runs robota on the files of testdata/wild (skills,
// commands, agents and a plugin in the shapes found in public repositories: names with
// spaces and capitals, nested command directories, YAML that does not parse, colours
// and models outside the documented sets) and compares its system/init lists with the
// line Claude Code 2.1.197 wrote for the same files (testdata/wild/record.sh). Each
// side's own entries (built-in commands, bundled skills and agents: what it lists for an
// empty project) are set aside; what the files contribute must be the same names in
// the same order, and the plugins, MCP servers and output style the same values.
func TestInitListsMatchClaudeCode(t *testing.T) {
	cc := readWildInit(t, "testdata/wild/claude-code-init.json")
	ccOwn := readWildInit(t, "testdata/wild/claude-code-init-empty.json")
	work := t.TempDir()
	copyTree(t, "testdata/wild", work)
	if err := os.MkdirAll(filepath.Join(work, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := runWildInit(t, work, "project", "--plugin-dir", filepath.Join(work, "plugin"), "--mcp-config", filepath.Join(work, "mcp.json"))
	own := runWildInit(t, work, "empty")

	ccFiles := func(list, own []string) []string {
		return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(own, s) })
	}
	for _, c := range []struct {
		kind         string
		got, gotOwn  []string
		want, wOwn   []string
		onlyInRobota bool
	}{
		{"slash command", got.SlashCommands, own.SlashCommands, cc.SlashCommands, ccOwn.SlashCommands, false},
		{"skill", got.Skills, own.Skills, cc.Skills, ccOwn.Skills, true},
		{"agent", got.Agents, own.Agents, cc.Agents, ccOwn.Agents, true},
	} {
		mine := ccFiles(c.got, c.gotOwn)
		var extra []string
		mine = slices.DeleteFunc(mine, func(s string) bool {
			if _, ok := robotaOnly[c.kind+" "+s]; ok {
				extra = append(extra, s)
				return true
			}
			return false
		})
		if want := ccFiles(c.want, c.wOwn); !reflect.DeepEqual(mine, want) {
			t.Errorf("%ss from the files:\n robota      %q\n claude code %q", c.kind, mine, want)
		}
		for key := range robotaOnly {
			if name, ok := strings.CutPrefix(key, c.kind+" "); ok && !slices.Contains(extra, name) {
				t.Errorf("%s %q (%s) is not listed", c.kind, name, robotaOnly[key])
			}
		}
	}
	norm := func(v []map[string]any, cwd string) string {
		b, _ := json.Marshal(v)
		s := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(string(b))
		return strings.ReplaceAll(s, strings.TrimSuffix(cwd, "/project"), "<fixture>")
	}
	if a, b := norm(got.Plugins, got.Cwd), norm(cc.Plugins, cc.Cwd); a != b {
		t.Errorf("plugins:\n robota      %s\n claude code %s", a, b)
	}
	if a, b := norm(got.MCPServers, got.Cwd), norm(cc.MCPServers, cc.Cwd); a != b {
		t.Errorf("mcp_servers:\n robota      %s\n claude code %s", a, b)
	}
	if got.OutputStyle == nil || cc.OutputStyle == nil || *got.OutputStyle != *cc.OutputStyle {
		t.Errorf("output_style: robota %v, claude code %v", got.OutputStyle, cc.OutputStyle)
	}
}

func readWildInit(t *testing.T, path string) wildInit {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w wildInit
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return w
}

// runWildInit runs robota -p in work/dir with a scripted provider and returns its
// system/init line; every list key must be present, a list.
func runWildInit(t *testing.T, work, dir string, args ...string) wildInit {
	t.Helper()
	t.Setenv("HOME", filepath.Join(work, "home"))
	script := filepath.Join(work, "script.yaml")
	if err := os.WriteFile(script, []byte("turns:\n  - text: done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	argv := append([]string{"-p", "hi", "--provider", "script", "--script", script, "--cwd", filepath.Join(work, dir),
		"--output-format", "stream-json", "--verbose"}, args...)
	if code := mainWith(argv, openFile(t, os.DevNull), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	line, _, _ := bufio.NewReader(&out).ReadLine()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		t.Fatalf("init line %q: %v", line, err)
	}
	for _, key := range []string{"slash_commands", "skills", "agents", "plugins", "mcp_servers"} {
		if !bytes.HasPrefix(raw[key], []byte("[")) {
			t.Errorf("init %s = %s, want a list", key, raw[key])
		}
	}
	var w wildInit
	if err := json.Unmarshal(line, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
