package interactive

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// runAssembled assembles a session for dir, runs prompt once and closes it. It returns the
// end event of every tool call, by tool-use id.
func runAssembled(t *testing.T, dir, home, prompt string, opts Options) map[string]session.ToolExecutionEvent {
	t.Helper()
	got := map[string]session.ToolExecutionEvent{}
	opts.Cwd, opts.Home, opts.Now, opts.NewID = dir, home, fixedNow, ids()
	if opts.Env == nil {
		opts.Env = envOf(nil)
	}
	opts.Callbacks.OnToolExecution = func(e session.ToolExecutionEvent) {
		if e.Type == session.ToolEnd {
			got[e.ToolUseID] = e
		}
	}
	a, err := Assemble(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session.Run(context.Background(), prompt); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	return got
}

// Issue 10 §1 through the whole stack (settings, permission enforcer, real tools): twenty
// Edit calls to one file in one message all land and all report success.
func TestAssembledTwentyEditsOfOneFileAllLand(t *testing.T) {
	const n = 20
	var calls strings.Builder
	var orig strings.Builder
	for i := range n {
		fmt.Fprintf(&calls, "      - {id: e%02d, name: Edit, input: {file_path: \"DIR/f.txt\", old_string: \"line %02d old\", new_string: \"line %02d new\"}}\n", i, i, i)
		fmt.Fprintf(&orig, "line %02d old\n", i)
	}
	script := "turns:\n  - toolCalls:\n" + calls.String() + "  - text: done\n"
	dir, home := project(t, script, `, "permissions": {"defaultMode": "acceptEdits"}`)
	writeFile(t, filepath.Join(dir, "f.txt"), orig.String())
	got := runAssembled(t, dir, home, "edit", Options{})
	for i := range n {
		id := fmt.Sprintf("e%02d", i)
		if e := got[id]; !e.Success {
			t.Errorf("%s = %+v, want success", id, e)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(orig.String(), " old\n", " new\n"); string(data) != want {
		t.Fatalf("file after %d edits:\n%s", n, data)
	}
}
