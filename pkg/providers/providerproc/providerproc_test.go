package providerproc

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/compattest"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
	"github.com/robota-sdk/robota-go/pkg/providers/openaicompat"
	"github.com/robota-sdk/robota-go/pkg/providers/providerplugin"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// TestMain lets this test binary be the provider process: go-plugin starts it with the
// handshake cookie in its environment.
func TestMain(m *testing.M) {
	if os.Getenv(providerplugin.Handshake.MagicCookieKey) == providerplugin.Handshake.MagicCookieValue {
		providerplugin.Serve(openaicompat.NewBackend())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func self(t *testing.T) func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func() (string, error) { return exe, nil }
}

func hello(t *testing.T, p llm.Provider) {
	t.Helper()
	resp, err := p.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage("hi")}}, llm.Callbacks{})
	if err != nil || resp.Message.Text() != "hello" {
		t.Fatalf("resp %q err %v", resp.Message.Text(), err)
	}
}

// TestStartedOnlyForACompatibleProviderAndKilledOnClose: no process until an
// OpenAI-compatible provider is opened; its calls go through the process; a process that
// exits is started again at the next call; Close kills it.
func TestStartedOnlyForACompatibleProviderAndKilledOnClose(t *testing.T) {
	h := New(self(t), nil)
	reg := h.Registry()
	if _, err := reg.Create(registry.Profile{Type: "anthropic", APIKey: "k", Getenv: compattest.Env()}); err != nil {
		t.Fatal(err)
	}
	if h.cur != nil {
		t.Fatal("a process was started for anthropic")
	}
	srv := ssetest.NewServer(t, compattest.Stream("hello"), compattest.Stream("hello"))
	p, err := reg.Create(registry.Profile{Type: "openai", Model: "m", Getenv: compattest.Env("OPENAI_API_KEY", "sk-test", "OPENAI_BASE_URL", srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	hello(t, p)
	first := h.cur.proc
	if first == nil || first.PID == os.Getpid() {
		t.Fatalf("no provider process: %+v", h.cur)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Fatalf("Authorization %q", got)
	}
	first.Kill()
	hello(t, p)
	if h.cur.proc == first || h.cur.proc.Exited() {
		t.Fatal("the exited process was not replaced")
	}
	second := h.cur.proc
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if !second.Exited() {
		t.Fatal("Close left the provider process running")
	}
	_, err = p.Chat(context.Background(), llm.ChatRequest{}, llm.Callbacks{})
	if !errors.Is(err, llm.ErrPlugin) {
		t.Fatalf("call after Close: %v", err)
	}
}

// TestMissingBinaryIsNamed: without robota-provider the provider does not open, and the
// error says what to install.
func TestMissingBinaryIsNamed(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	h := New(nil, nil)
	t.Cleanup(func() { _ = h.Close() })
	_, err := h.Registry().Create(registry.Profile{Type: "ollama", Getenv: compattest.Env()})
	if !errors.Is(err, llm.ErrConfiguration) {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"provider ollama runs in robota-provider", "robota-provider not found", "on PATH", "make build"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if h.cur != nil {
		t.Fatal("a start was attempted")
	}
}

// TestCompatibleRegistryThroughTheProcess runs the OpenAI-compatible types' suite with
// the providers in a real provider process.
func TestCompatibleRegistryThroughTheProcess(t *testing.T) {
	h := New(self(t), nil)
	t.Cleanup(func() { _ = h.Close() })
	compattest.Run(t, h.Registry())
}

// TestProviderProcessEnvironment: the process gets the proxy settings, never a credential.
func TestProviderProcessEnvironment(t *testing.T) {
	got := httpEnv([]string{"HTTPS_PROXY=http://proxy:3128", "no_proxy=localhost", "OPENAI_API_KEY=sk-secret", "SSL_CERT_FILE=/ca.pem", "GEMINI_API_KEY=g"})
	if strings.Join(got, " ") != "HTTPS_PROXY=http://proxy:3128 no_proxy=localhost SSL_CERT_FILE=/ca.pem" {
		t.Fatalf("env %v", got)
	}
}

// TestProcessDyingMidCall: a provider process that dies during a call fails it with a
// recoverable network error naming the provider, and the next call starts a new one.
func TestProcessDyingMidCall(t *testing.T) {
	h := New(self(t), nil)
	t.Cleanup(func() { _ = h.Close() })
	stalled := compattest.Stream("partial")
	stalled.Events, stalled.Stall = stalled.Events[:1], true
	srv := ssetest.NewServer(t, stalled, compattest.Stream("hello"))
	p, err := h.Registry().Create(registry.Profile{Type: "vllm", Model: "m", BaseURL: srv.URL, Getenv: compattest.Env()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{llm.NewUserMessage("hi")}},
		llm.Callbacks{OnTextDelta: func(string) { h.cur.proc.Kill() }})
	var le *llm.Error
	if !errors.As(err, &le) || le.Code != llm.CodeNetwork || !le.Recoverable || le.Provider != "vllm" || !strings.Contains(err.Error(), "robota-provider") {
		t.Fatalf("err %v", err)
	}
	hello(t, p)
}
