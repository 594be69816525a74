package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// env is a throwaway filesystem: a project, a home directory and an outside directory.
type env struct {
	project, home, outside string
}

func newEnv(t *testing.T) env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := env{
		project: filepath.Join(root, "project"),
		home:    filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"),
	}
	for _, d := range []string{e.project + "/src", e.project + "/sub/src", e.home + "/.ssh", e.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// evaluator builds an evaluator whose layers are given as name → lists.
func (e env) evaluator(t *testing.T, mode Mode, layers ...Layer) *Evaluator {
	t.Helper()
	for i := range layers {
		if layers[i].Source.Name == "" {
			layers[i].Source.Name = "projectSettings"
		}
	}
	rules, err := Rules(layers...)
	if err != nil {
		t.Fatalf("rules: %v", err)
	}
	return New(Config{Mode: mode, Rules: rules, ProjectRoot: e.project, Home: e.home})
}

func input(t *testing.T, kv ...string) json.RawMessage {
	t.Helper()
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bashReq(t *testing.T, cmd string) Request {
	return Request{Tool: "Bash", Input: input(t, "command", cmd)}
}

func allow(rules ...string) Layer { return Layer{Allow: rules} }
func deny(rules ...string) Layer  { return Layer{Deny: rules} }
func askL(rules ...string) Layer  { return Layer{Ask: rules} }
