package integration

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// providerProcesses returns the pids and environments of the running robota-provider
// processes started from binDir (Linux: /proc).
func providerProcesses(t *testing.T) map[string]string {
	t.Helper()
	want := filepath.Join(binDir, "robota-provider")
	out := map[string]string{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if exe, err := os.Readlink(filepath.Join(d, "exe")); err != nil || exe != want {
			continue
		}
		env, _ := os.ReadFile(filepath.Join(d, "environ"))
		out[filepath.Base(d)] = string(bytes.ReplaceAll(env, []byte{0}, []byte{'\n'}))
	}
	return out
}

// TestHeadlessOpenAIRunsInTheProviderProcess: robota's openai provider makes its calls
// from robota-provider, whose environment holds no key (the key travels inside the
// call), and which is gone when robota exits.
func TestHeadlessOpenAIRunsInTheProviderProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	const key = "sk-provider-process-test-key"
	dir := t.TempDir()
	target := filepath.Join(dir, "out.txt")
	fm := ollamaStyleModel(target)
	var mu sync.Mutex
	var during map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if during == nil {
			during = providerProcesses(t)
		}
		mu.Unlock()
		fm.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cmd := exec.Command(filepath.Join(binDir, "robota"), "-p", "write the file", "--allowedTools", "Write", "--provider", "openai", "--model", "llama3.2")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "HOME="+t.TempDir(), "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY="+key)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("robota -p: %v\nstderr:\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != "Done: the file is written.\n" {
		t.Fatalf("stdout = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(during) != 1 {
		t.Fatalf("%d robota-provider processes during the call, want 1", len(during))
	}
	for pid, env := range during {
		if strings.Contains(env, key) || strings.Contains(env, "OPENAI_API_KEY") {
			t.Errorf("robota-provider %s has the key in its environment:\n%s", pid, env)
		}
	}
	if left := providerProcesses(t); len(left) != 0 {
		t.Fatalf("robota-provider still running after robota exited: %v", left)
	}
}

// TestHeadlessOpenAIWithoutProviderBinary: without robota-provider beside robota or on
// PATH, choosing openai is a configuration error (exit 2) that names the binary and how
// to install it; robota still runs other providers.
func TestHeadlessOpenAIWithoutProviderBinary(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"robota", "robota-worker", "robota-sandbox"} {
		copyBinary(t, filepath.Join(binDir, name), filepath.Join(bin, name))
	}
	cmd := exec.Command(filepath.Join(bin, "robota"), "-p", "hi", "--provider", "openai")
	cmd.Dir = t.TempDir()
	var env []string
	for _, kv := range cleanEnv() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HOME="+t.TempDir(), "PATH="+t.TempDir(), "OPENAI_API_KEY=sk-x")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 2 {
		t.Fatalf("exit = %d, want 2\n%s", code, stderr.String())
	}
	for _, want := range []string{"robota-provider not found", filepath.Join(bin, "robota-provider"), "make build"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("message lacks %q:\n%s", want, stderr.String())
		}
	}
}

func copyBinary(t *testing.T, from, to string) {
	t.Helper()
	if os.Link(from, to) == nil {
		return
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
