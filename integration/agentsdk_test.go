package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 13 acceptance: the TypeScript Agent SDK (@anthropic-ai/claude-agent-sdk, from
// npm) drives bin/robota as its pathToClaudeCodeExecutable against the script provider:
// a plain query, a Write in acceptEdits, canUseTool approving a Bash that runs, PreToolUse
// and PostToolUse hook callbacks, two prompts in one stream on one session, interrupt,
// partial messages in more than one delta, an SDK MCP server (createSdkMcpServer: its
// tool called over mcp_message, a deny rule on its other tool holding), an agent defined
// in initialize, and resume (testdata/agentsdk/scenarios.mjs).
//
// The SDK is installed with npm into a temporary directory, or taken from
// $ROBOTA_AGENT_SDK_DIR (a directory holding node_modules/@anthropic-ai/claude-agent-sdk).
// Without node and npm on PATH the test is skipped: it needs them, not robota.
func TestAgentSDKDrivesRobota(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*runTimeout)
	defer cancel()
	work := agentSDKWorkdir(ctx, t, "package.json", "scenarios.mjs")
	p := newProject(t)
	tmpl, err := os.ReadFile(filepath.Join("testdata", "agentsdk", "script.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	script := p.writeScript(t, "agentsdk.yaml", strings.ReplaceAll(string(tmpl), "{{DIR}}", p.Dir))
	cmd := exec.CommandContext(ctx, node, "scenarios.mjs", filepath.Join(binDir, "robota"), script, p.Dir)
	cmd.Dir = work
	cmd.Env = p.env()
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("scenarios:\n%s", out)
	if err != nil {
		t.Fatalf("the Agent SDK scenarios failed: %v\nstderr:\n%s", err, stderr.String())
	}
	for _, name := range []string{"plain", "canUseToolAndHooks", "writeInAcceptEdits", "twoPromptsOneSession",
		"interrupt", "partialMessages", "sdkMcpServer", "agents", "resume"} {
		if !strings.Contains(string(out), "ok "+name+"\n") {
			t.Errorf("scenario %s did not pass", name)
		}
	}
}
