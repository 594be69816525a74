package integration

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/internal/engineproc"
	"github.com/robota-sdk/robota-go/pkg/client"
)

// TestEngineWebSearchAndSessionOutsideAProject: the same two items as the headless tests,
// through robota-engine and pkg/client (issue 28 asks for both front ends).
//   - A session of the engine searches with the backend settings.json webSearch names
//     (Brave, served here from its recorded answer), with the key from $ENV:BRAVE_API_KEY
//     in the engine's environment; the model gets the result.
//   - A session whose cwd is the temporary directory is stored under the user's
//     ~/.robota, no .robota is created there, and ListSessions for that directory and a
//     resume find it.
func TestEngineWebSearchAndSessionOutsideAProject(t *testing.T) {
	const secret = "BSA-engine-SECRET-7"
	braveURL, gotKey := fakeBrave(t)

	p := newProject(t)
	tmp := shortTempDir(t) // what os.TempDir reports to the engine
	settings := filepath.Join(p.Home, ".robota", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	webSearch := `{"permissions": {"allow": ["WebSearch"]}, "webSearch": {"backend": "brave", "url": "` + braveURL +
		`", "apiKey": "$ENV:BRAVE_API_KEY"}}`
	if err := os.WriteFile(settings, []byte(webSearch), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+p.Home, "TMPDIR="+tmp, "BRAVE_API_KEY="+secret)
	e, err := engineproc.StartEnv(binDir, filepath.Join(shortTempDir(t), "e.sock"), env, nil, "--state-dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Kill()
		_, _ = e.Wait(5 * time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, _, err := e.WaitMsg(ctx, 0, "engine listening"); err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial("unix://"+e.Socket, client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	script := p.writeScript(t, "websearch.yaml", webSearchTestScript)

	info, err := c.CreateSession(ctx, client.SessionOptions{Cwd: p.Dir, Provider: "script", Script: script})
	if err != nil {
		t.Fatal(err)
	}
	if got := submitAndWait(ctx, t, c, info.ID, "search the web"); got != "found it" {
		t.Fatalf("the model answered %q: the search result did not reach it", got)
	}
	if gotKey() != secret {
		t.Fatalf("the search API got key %q, want the one $ENV:BRAVE_API_KEY names", gotKey())
	}

	outside, err := c.CreateSession(ctx, client.SessionOptions{Cwd: tmp, Provider: "script", Script: script})
	if err != nil {
		t.Fatal(err)
	}
	submitAndWait(ctx, t, c, outside.ID, "search the web")
	if err := c.CloseSession(ctx, outside.ID, "other"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.Home, ".robota", "sessions", outside.ID+".jsonl")); err != nil {
		t.Fatalf("the session of the temporary directory is not in the user's store: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(tmp, ".robota")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the engine created a .robota in the temporary directory (%v)", err)
	}
	listed, _, err := c.ListSessions(ctx, tmp, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(listed, func(s client.SessionInfo) bool { return s.ID == outside.ID }) {
		t.Fatalf("ListSessions(%s) does not list %s: %+v", tmp, outside.ID, listed)
	}
	resumed, err := c.CreateSession(ctx, client.SessionOptions{Cwd: tmp, Provider: "script", Script: script, Resume: outside.ID})
	if err != nil || resumed.ID != outside.ID {
		t.Fatalf("resume of the temporary directory's session: %+v, %v", resumed, err)
	}
}
