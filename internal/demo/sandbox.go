package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// sandboxSecret marks the file the demo's deny rule hides.
const sandboxSecret = "DEMO-SECRET-4e1f"

// runSandbox shows the command sandbox: with Bash allowed and Read(./secret.txt) and
// Edit(./.git/**) denied, commands the permission checker cannot see into (a command
// built at run time) run for real and still neither read the secret nor write a git
// hook. Without user namespaces robota asks about such commands instead, which -p
// denies; the demo says which happened.
func runSandbox(bin, dir string, n int) (int, error) {
	step(n, "The command sandbox: commands built at run time try to read a denied file and write a git hook")
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		return 0, fmt.Errorf("git init: %v %s", err, out)
	}
	files := map[string]string{
		"secret.txt":            sandboxSecret + "\n",
		".claude/settings.json": `{"permissions":{"allow":["Bash"],"deny":["Read(./secret.txt)","Edit(./.git/**)"]}}`,
	}
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return 0, err
		}
	}
	script := filepath.Join(filepath.Dir(dir), "sandbox.script.yaml")
	if err := os.WriteFile(script, []byte(`turns:
  - toolCalls:
      - {id: read, name: Bash, input: {command: "bash -c \"$(echo cat secret.txt)\"; echo read-ended"}}
      - {id: hook, name: Bash, input: {command: "X=.git/hooks/pre-commit; sh -c \"echo echo pwned > $X\"; echo write-ended"}}
  - text: "Neither worked."
`), 0o644); err != nil {
		return 0, err
	}
	say("settings: Bash allowed; Read(./secret.txt) and Edit(./.git/**) denied")
	say("robota -p ... (the model runs: bash -c \"$(echo cat secret.txt)\", and a hook written through sh -c)")
	cmd := exec.Command(filepath.Join(bin, "robota"), "-p", "try the files", "--provider", "script", "--script", script,
		"--output-format", "stream-json", "--verbose")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	out := stdout.String()
	if _, err := render(strings.NewReader(out)); err != nil {
		return 0, err
	}
	if runErr != nil {
		return 0, fmt.Errorf("robota: %v\n%s", runErr, stderr.String())
	}
	if strings.Contains(out, sandboxSecret) {
		return 0, fmt.Errorf("the secret reached the model")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
		return 0, fmt.Errorf("a git hook was written")
	}
	if strings.Contains(out, `"sandbox":"on"`) {
		say("the sandbox was on: both commands ran, the secret read as empty and .git/hooks was read-only")
	} else {
		say("no sandbox here (no user namespaces): robota asked about both commands instead, and -p denied them")
	}
	return n + 1, nil
}
