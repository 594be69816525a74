package integration

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
)

// Issue 27's network allow-list, through robota -p: with sandbox.network.allowedDomains
// set (empty here) and the destination allowed by a WebFetch(domain:...) rule, as Claude
// Code merges them, the session's Bash commands and a background command (robota-worker)
// reach the allowed server through the proxy (the environment names it), are refused
// another host with the proxy's 403 naming the host and the setting, and cannot connect
// to the server directly: their network namespace has only loopback.
func TestSandboxNetworkAllowList(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the network allow-list test needs curl on PATH")
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello through the proxy")
	}))
	defer upstream.Close()
	_, port, _ := net.SplitHostPort(upstream.Listener.Addr().String())
	p := newProject(t)
	// The server is on loopback: the proxy reaches a local address only when the list
	// names it (here through the WebFetch rule).
	settings, _ := json.Marshal(map[string]any{
		"permissions": map[string]any{"allow": []string{"Bash", "WebFetch(domain:127.0.0.1)"}},
		"sandbox":     map[string]any{"network": map[string]any{"allowedDomains": []string{}}},
	})
	p.writeFile(t, ".claude/settings.json", string(settings))
	// NO_PROXY names loopback (a command's own servers): --noproxy '' sends 127.0.0.1
	// through the proxy.
	allowed := "curl -sS --noproxy '' http://127.0.0.1:" + port + "/"
	denied := "curl -sS --noproxy '' http://denied.invalid/"
	// Bypassing the proxy (--noproxy '*'): curl connects to the server itself.
	direct := "curl -sS --noproxy '*' http://127.0.0.1:" + port + "/ 2>&1 && echo CONNECTED || echo REFUSED"
	all := allowed + "; echo; " + denied + "; " + direct + "; echo $HTTPS_PROXY"
	calls := map[string]string{"toolu_ok": allowed, "toolu_denied": denied, "toolu_direct": direct, "toolu_env": "echo $HTTPS_PROXY"}
	var lines []string
	for id, c := range calls {
		in, _ := json.Marshal(map[string]string{"command": c})
		lines = append(lines, fmt.Sprintf("      - {id: %s, name: Bash, input: %s}", id, in))
	}
	bg, _ := json.Marshal(map[string]any{"command": all, "run_in_background": true})
	script := p.writeScript(t, "net.yaml", "turns:\n  - when: {lastUserContains: \"go\"}\n    toolCalls:\n"+strings.Join(lines, "\n")+
		"\n  - toolCalls: [{id: toolu_bg, name: Bash, input: "+string(bg)+"}]"+
		"\n  - when: {lastToolResultContains: \"bash_1\"}\n    toolCalls: [{id: toolu_out, name: TaskOutput, input: {task_id: bash_1, block: true}}]"+
		"\n  - text: done\n")
	res := p.mustRun(t, "-p", "go", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")
	results := toolResults(t, res.Stdout)
	for id, want := range map[string]string{
		"toolu_ok":     "hello through the proxy",
		"toolu_denied": "robota sandbox: connection refused: denied.invalid is not in sandbox.network.allowedDomains",
		"toolu_direct": "REFUSED",
		"toolu_env":    "http://localhost:3128",
	} {
		if out := results[id].Content; !strings.Contains(out, want) || strings.Contains(out, "CONNECTED") || strings.Contains(out, "hello") && id == "toolu_direct" {
			t.Errorf("%s (%s): %q, want it to contain %q", id, calls[id], out, want)
		}
	}
	out := results["toolu_out"].Content
	for _, want := range []string{"hello through the proxy", "denied.invalid is not in sandbox.network.allowedDomains", "REFUSED", "http://localhost:3128"} {
		if !strings.Contains(out, want) || strings.Contains(out, "CONNECTED") {
			t.Errorf("background command: %q, want it to contain %q", out, want)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	}
}
