package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// DefaultStartTimeout bounds one server's start (process or connection, initialize and
// the tool listing), as Claude Code's MCP_TIMEOUT default.
const DefaultStartTimeout = 30 * time.Second

// stdioTerminate is how long Close waits for a stdio server to exit after its stdin is
// closed, before SIGTERM (and as long again before SIGKILL).
const stdioTerminate = 2 * time.Second

// Server states in Status (Claude Code's system/init mcp_servers).
const (
	StatusConnected = "connected"
	StatusFailed    = "failed"
)

// Options configure Connect.
type Options struct {
	// Cwd is the directory stdio servers run in.
	Cwd string
	// Env is the environment of stdio servers, before each server's own env (nil: the
	// process environment).
	Env []string
	// StartTimeout bounds each server's start (0: DefaultStartTimeout).
	StartTimeout time.Duration
	// SDKTransport returns the transport of an "sdk" server (the Agent SDKs' in-process
	// servers, reached over the control protocol); nil: such servers fail to start.
	SDKTransport func(name string) (sdk.Transport, error)
	// ClientName and ClientVersion are sent at initialize.
	ClientName, ClientVersion string
}

// ServerStatus is how one server's start went.
type ServerStatus struct {
	Name   string
	Status string // StatusConnected or StatusFailed
	Err    error  // why it failed
	Tools  []string
}

// Set is the connected servers of one session and their tools.
type Set struct {
	status   []ServerStatus
	tools    []llm.Tool
	warnings []string

	mu       sync.Mutex
	sessions []*sdk.ClientSession
	ends     []context.CancelFunc // the connections' lifetimes
	closed   bool
}

// Status lists every configured server, in configuration order.
func (s *Set) Status() []ServerStatus { return s.status }

// Tools are the tools of the connected servers, server by server.
func (s *Set) Tools() []llm.Tool { return s.tools }

// Warnings are the tools left out (a name too long or taken) and the failed servers.
func (s *Set) Warnings() []string { return s.warnings }

// Close ends every connection; the first error is returned.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	sessions, ends := s.sessions, s.ends
	s.sessions, s.ends, s.closed = nil, nil, true
	s.mu.Unlock()
	defer func() {
		for _, end := range ends {
			end()
		}
	}()
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Go(func() { errs[i] = cs.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Connect starts servers at once, each within its own timeout, and returns the set of
// the ones that connected; a failed server is in Status and Warnings, never an error.
func Connect(ctx context.Context, servers []Server, opts Options) *Set {
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	type started struct {
		cs    *sdk.ClientSession
		tools []*sdk.Tool
		end   context.CancelFunc
		err   error
	}
	results := make([]started, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Go(func() {
			sctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			// The connection outlives the start (an SSE stream is a request made at
			// Connect): it ends with Close, or at once when the start fails.
			life, end := context.WithCancel(context.WithoutCancel(ctx))
			cs, tools, err := startBounded(sctx, srv, opts, life)
			if err != nil {
				end()
				if sctx.Err() != nil && ctx.Err() == nil {
					err = fmt.Errorf("did not start within %v: %w", timeout, err)
				}
			}
			results[i] = started{cs, tools, end, err}
		})
	}
	wg.Wait()

	set := &Set{}
	taken := map[string]bool{}
	for i, srv := range servers {
		r := results[i]
		st := ServerStatus{Name: srv.Name, Status: StatusConnected}
		if r.err != nil {
			st.Status, st.Err = StatusFailed, r.err
			set.warnings = append(set.warnings, fmt.Sprintf("MCP server %q failed to start: %v", srv.Name, r.err))
			set.status = append(set.status, st)
			continue
		}
		set.sessions, set.ends = append(set.sessions, r.cs), append(set.ends, r.end)
		for _, t := range r.tools {
			name := ToolName(srv.Name, t.Name)
			switch {
			case len(name) > maxToolName:
				set.warnings = append(set.warnings, fmt.Sprintf("MCP server %q: tool %q left out: its name %s is longer than %d characters", srv.Name, t.Name, name, maxToolName))
				continue
			case taken[name]:
				set.warnings = append(set.warnings, fmt.Sprintf("MCP server %q: tool %q left out: %s is taken by another server's tool", srv.Name, t.Name, name))
				continue
			}
			taken[name] = true
			set.tools = append(set.tools, newTool(r.cs, srv.Name, name, t))
			st.Tools = append(st.Tools, name)
		}
		set.status = append(set.status, st)
	}
	return set
}

// startBounded is start, returning when ctx ends even if the SDK does not (a write to a
// peer that never reads blocks regardless of ctx): a stdio server is then killed, and a
// connection that completes late is closed.
func startBounded(ctx context.Context, srv Server, opts Options, life context.Context) (*sdk.ClientSession, []*sdk.Tool, error) {
	transport, stderr, err := transportFor(srv, opts)
	if err != nil {
		return nil, nil, err
	}
	transport = lifetimeTransport{next: transport, life: life}
	type result struct {
		cs    *sdk.ClientSession
		tools []*sdk.Tool
		err   error
	}
	done := make(chan result, 1)
	go func() {
		cs, tools, err := start(ctx, transport, stderr, opts)
		done <- result{cs, tools, err}
	}()
	select {
	case r := <-done:
		return r.cs, r.tools, r.err
	case <-ctx.Done():
		if ct, ok := transport.(lifetimeTransport).next.(*sdk.CommandTransport); ok && ct.Command.Process != nil {
			_ = ct.Command.Process.Kill()
		}
		go func() {
			if r := <-done; r.cs != nil {
				r.cs.Close()
			}
		}()
		return nil, nil, withStderr(ctx.Err(), stderr)
	}
}

// start connects to one server and lists its tools; on failure nothing stays open.
func start(ctx context.Context, transport sdk.Transport, stderr *tailBuffer, opts Options) (*sdk.ClientSession, []*sdk.Tool, error) {
	name, version := opts.ClientName, opts.ClientVersion
	if name == "" {
		name = "robota"
	}
	if version == "" {
		version = "dev"
	}
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: version}, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, nil, withStderr(err, stderr)
	}
	var tools []*sdk.Tool
	if caps := cs.InitializeResult(); caps == nil || caps.Capabilities == nil || caps.Capabilities.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				cs.Close()
				return nil, nil, withStderr(fmt.Errorf("listing tools: %w", err), stderr)
			}
			tools = append(tools, t)
		}
	}
	return cs, tools, nil
}

func withStderr(err error, stderr *tailBuffer) error {
	if tail := strings.TrimSpace(stderr.String()); tail != "" {
		return fmt.Errorf("%w (stderr: %s)", err, tail)
	}
	return err
}

// transportFor builds the SDK transport of srv.
func transportFor(srv Server, opts Options) (sdk.Transport, *tailBuffer, error) {
	c := srv.Config
	switch c.Type {
	case "", "stdio":
		cmd := exec.Command(c.Command, c.Args...)
		cmd.Dir = opts.Cwd
		env := opts.Env
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append([]string(nil), env...)
		for k, v := range c.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		stderr := &tailBuffer{max: 2048}
		cmd.Stderr = stderr
		// A child of the server holding its stderr must not hold the session's close.
		cmd.WaitDelay = 2 * time.Second
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: stdioTerminate}, stderr, nil
	case "http":
		return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: headerClient(c.Headers)}, nil, nil
	case "sse":
		return &sdk.SSEClientTransport{Endpoint: c.URL, HTTPClient: headerClient(c.Headers)}, nil, nil
	case "sdk":
		if opts.SDKTransport == nil {
			return nil, nil, ErrNoSDKTransport
		}
		t, err := opts.SDKTransport(srv.Name)
		return t, nil, err
	}
	return nil, nil, fmt.Errorf("%w: server %q: unknown type %q", ErrConfig, srv.Name, c.Type)
}

// lifetimeTransport connects with life instead of the start's bounded context: what a
// transport ties to its Connect context (the SSE stream) lasts as long as the connection.
type lifetimeTransport struct {
	next sdk.Transport
	life context.Context
}

func (t lifetimeTransport) Connect(context.Context) (sdk.Connection, error) {
	return t.next.Connect(t.life)
}

// headerClient sends headers with every request (nil: the default client).
func headerClient(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return nil
	}
	return &http.Client{Transport: headerTransport{headers: headers, next: http.DefaultTransport}}
}

type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	return h.next.RoundTrip(req)
}

// tailBuffer keeps the last max bytes written (a server's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
