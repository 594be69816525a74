package providerproc

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/compat"
	"github.com/robota-sdk/robota-go/pkg/providers/providerplugin"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
)

// Name is the provider process's binary.
const Name = "robota-provider"

// InstallHint says how to get a robota-provider binary where robota looks for it.
const InstallHint = "install robota-provider beside robota or on PATH: in a robota-go checkout, " +
	"`make build` puts it in bin/ next to bin/robota, or `go build -o $(go env GOPATH)/bin/robota-provider ./cmd/provider` " +
	"puts it beside a `go install`ed robota"

// startTimeout bounds the provider process's go-plugin handshake.
const startTimeout = 10 * time.Second

// Host starts and stops the provider process for the providers it opens.
type Host struct {
	find func() (string, error)
	log  *zap.Logger

	ctx  context.Context // ends with Close: a start in progress is abandoned
	stop context.CancelFunc

	mu     sync.Mutex
	cur    *start
	closed bool
}

// start is one start of the process; done is closed when it has succeeded or failed.
type start struct {
	done    chan struct{}
	proc    *launcher.Process
	backend providerplugin.Backend
	err     error
}

// New returns a Host that starts the binary find returns (nil: robota-provider beside
// the running executable, else on PATH), logging through log (nil: nowhere).
func New(find func() (string, error), log *zap.Logger) *Host {
	if find == nil {
		find = func() (string, error) {
			path, where, err := workerproc.FindBinary(Name, "")
			if err != nil {
				return "", fmt.Errorf("%s not found %s: %s", Name, where, InstallHint)
			}
			return path, nil
		}
	}
	if log == nil {
		log = zap.NewNop()
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Host{find: find, log: log, ctx: ctx, stop: stop}
}

// Registry returns the built-in provider types with the OpenAI-compatible ones opened
// by h.
func (h *Host) Registry() *registry.Registry {
	return registry.NewBuiltin(h.Open)
}

// Open implements registry.OpenCompatible: the provider of cfg, whose calls
// robota-provider makes. It starts the process in the background.
func (h *Host) Open(cfg compat.Config) (llm.Provider, error) {
	if _, err := h.find(); err != nil {
		return nil, llm.NewError(llm.CodeConfiguration, fmt.Sprintf("provider %s runs in %s", cfg.Name, Name), err)
	}
	h.mu.Lock()
	h.ensureLocked()
	h.mu.Unlock()
	return providerplugin.NewProvider(h.backend, cfg), nil
}

// backend returns the running process's Backend, waiting for its start (or starting
// it again when it has exited or failed to start).
func (h *Host) backend(ctx context.Context) (providerplugin.Backend, error) {
	h.mu.Lock()
	st := h.ensureLocked()
	h.mu.Unlock()
	select {
	case <-st.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return st.backend, st.err
}

// ensureLocked returns the current start, beginning a new one when there is none or
// the last one failed or its process has exited.
func (h *Host) ensureLocked() *start {
	if h.closed {
		st := &start{done: make(chan struct{}), err: llm.NewError(llm.CodePlugin, Name+": the session has ended", nil)}
		close(st.done)
		return st
	}
	if st := h.cur; st != nil {
		select {
		case <-st.done:
			if st.err == nil && !st.proc.Exited() {
				return st
			}
		default:
			return st // starting
		}
	}
	st := &start{done: make(chan struct{})}
	h.cur = st
	go h.run(st)
	return st
}

// run starts the process for st.
func (h *Host) run(st *start) {
	defer close(st.done)
	path, err := h.find()
	if err != nil {
		st.err = llm.NewError(llm.CodeConfiguration, "the OpenAI-compatible providers run in "+Name, err)
		return
	}
	proc, raw, err := launcher.Start(h.ctx, launcher.Command{Path: path}, h.log, startTimeout, launcher.Spec{
		Handshake: providerplugin.Handshake, Plugins: providerplugin.PluginSet(nil), Name: providerplugin.PluginName,
		What: "provider process",
	}, httpEnv(os.Environ())...)
	if err != nil {
		st.err = llm.NewError(llm.CodePlugin, "start "+Name, err)
		return
	}
	b, ok := raw.(providerplugin.Backend)
	if !ok {
		proc.Kill()
		st.err = llm.NewError(llm.CodePlugin, fmt.Sprintf("%s dispensed %T, not a provider backend", Name, raw), nil)
		return
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed { // Close ran during the start: nobody else will kill it
		proc.Kill()
		st.err = llm.NewError(llm.CodePlugin, Name+": the session has ended", nil)
		return
	}
	st.proc, st.backend = proc, b
}

// Close kills the provider process, if one runs, and waits for a start in progress.
// Providers opened by h fail their calls afterwards.
func (h *Host) Close() error {
	h.mu.Lock()
	h.closed = true
	st := h.cur
	h.mu.Unlock()
	h.stop()
	if st == nil {
		return nil
	}
	<-st.done
	if st.proc != nil {
		st.proc.Kill()
	}
	return nil
}

// httpEnv is what of environ an HTTP client honours (proxies, extra CA certificates):
// the provider makes its requests as robota would.
func httpEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "REQUEST_METHOD", "SSL_CERT_FILE", "SSL_CERT_DIR":
			out = append(out, kv)
		}
	}
	return out
}
