package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/hook"
)

// The control protocol of Claude Code's stream-json mode, as the Agent SDKs speak it:
// control_request lines go both ways, each answered by a control_response carrying its
// request_id; control_cancel_request withdraws a request nobody needs answered any more.

// errInputClosed fails the requests to the client still waiting when stdin ends: nobody
// is left to answer them.
var errInputClosed = errors.New("the client closed its input")

// controlRequestLine is {"type":"control_request"} as written to the client.
type controlRequestLine struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Request   any    `json:"request"`
}

// controlResponseLine is {"type":"control_response"}, both ways.
type controlResponseLine struct {
	Type     string          `json:"type"`
	Response controlResponse `json:"response"`
}

type controlResponse struct {
	Subtype   string          `json:"subtype"` // success or error
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response,omitempty"`
	Error     string          `json:"error,omitempty"`
}

type controlCancelLine struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
}

// canUseToolRequest asks the client about a call (--permission-prompt-tool stdio).
type canUseToolRequest struct {
	Subtype               string          `json:"subtype"`
	ToolName              string          `json:"tool_name"`
	Input                 json.RawMessage `json:"input"`
	PermissionSuggestions []any           `json:"permission_suggestions"`
	ToolUseID             string          `json:"tool_use_id"`
	DecisionReason        string          `json:"decision_reason,omitempty"`
}

// canUseToolAnswer is the client's PermissionResult.
type canUseToolAnswer struct {
	Behavior     string          `json:"behavior"` // allow or deny
	UpdatedInput json.RawMessage `json:"updatedInput"`
	Message      string          `json:"message"`
	Interrupt    bool            `json:"interrupt"`
}

// hookCallbackRequest runs a hook the client registered at initialize.
type hookCallbackRequest struct {
	Subtype    string          `json:"subtype"`
	CallbackID string          `json:"callback_id"`
	Input      json.RawMessage `json:"input"`
	ToolUseID  *string         `json:"tool_use_id"`
}

// controller sends control requests to the client and matches its responses to them. It
// is safe for concurrent use.
type controller struct {
	out   *output.Writer
	newID func() string

	mu      sync.Mutex
	pending map[string]chan controlResponse
	closed  bool
}

func newController(out *output.Writer, newID func() string) *controller {
	return &controller{out: out, newID: newID, pending: map[string]chan controlResponse{}}
}

// request sends a control request and waits for the client's response, the end of ctx
// (the request is then cancelled on the wire) or the end of the input.
func (c *controller) request(ctx context.Context, body any) (json.RawMessage, error) {
	wait, err := c.send(body)
	if err != nil {
		return nil, err
	}
	return wait(ctx)
}

// send writes a control request and returns the wait for its response: requests sent
// one after the other reach the client in that order, whenever their answers come.
func (c *controller) send(body any) (wait func(context.Context) (json.RawMessage, error), err error) {
	id := "req_" + c.newID()
	ch := make(chan controlResponse, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errInputClosed
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.out.Line(controlRequestLine{Type: "control_request", RequestID: id, Request: body}); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("send control request: %w", err)
	}
	return func(ctx context.Context) (json.RawMessage, error) { return c.wait(ctx, id, ch) }, nil
}

func (c *controller) wait(ctx context.Context, id string, ch chan controlResponse) (json.RawMessage, error) {
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, errInputClosed
		}
		if r.Subtype == "error" {
			return nil, fmt.Errorf("the client answered with an error: %s", r.Error)
		}
		return r.Response, nil
	case <-ctx.Done():
		if c.forget(id) {
			_ = c.out.Line(controlCancelLine{Type: "control_cancel_request", RequestID: id})
		}
		return nil, ctx.Err()
	}
}

// forget drops a pending request; false when it was answered or closed meanwhile.
func (c *controller) forget(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	return ok
}

// deliver hands a control_response to the request waiting for it; false when none is.
func (c *controller) deliver(r controlResponse) bool {
	c.mu.Lock()
	ch, ok := c.pending[r.RequestID]
	delete(c.pending, r.RequestID)
	c.mu.Unlock()
	if ok {
		ch <- r
	}
	return ok
}

// close fails every waiting request and refuses new ones (stdin ended).
func (c *controller) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// respond answers a control request of the client.
func (c *controller) respond(requestID string, body any) {
	raw, err := json.Marshal(body)
	if err != nil {
		c.respondError(requestID, fmt.Errorf("encode the response: %w", err))
		return
	}
	_ = c.out.Line(controlResponseLine{Type: "control_response",
		Response: controlResponse{Subtype: "success", RequestID: requestID, Response: raw}})
}

func (c *controller) respondError(requestID string, err error) {
	_ = c.out.Line(controlResponseLine{Type: "control_response",
		Response: controlResponse{Subtype: "error", RequestID: requestID, Error: err.Error()}})
}

// sdkHookType is the hook type of the hooks the client registered at initialize: their
// Definition.Raw carries the callback id.
const sdkHookType = "sdk_callback"

// sdkHookDef is the Raw of an sdk_callback hook definition.
type sdkHookDef struct {
	Type       string `json:"type"`
	CallbackID string `json:"callback_id"`
}

// hookCallbackExecutor runs a client-registered hook by sending hook_callback and taking
// the client's answer as a command hook's JSON output (exit 0): continue, decision,
// systemMessage, hookSpecificOutput … apply as they would from a command's stdout. A
// client that answers with an error, or not before the hook's timeout, is a hook that
// failed (non-blocking, as a command hook's crash is).
type hookCallbackExecutor struct{ c *controller }

func (x hookCallbackExecutor) Execute(ctx context.Context, def hook.Definition, input []byte) (hook.Response, error) {
	var d sdkHookDef
	if err := json.Unmarshal(def.Raw, &d); err != nil || d.CallbackID == "" {
		return hook.Response{}, fmt.Errorf("hook callback without a callback id: %s", def.Raw)
	}
	var in struct {
		ToolUseID string `json:"tool_use_id"`
	}
	_ = json.Unmarshal(input, &in)
	req := hookCallbackRequest{Subtype: "hook_callback", CallbackID: d.CallbackID, Input: input}
	if in.ToolUseID != "" {
		req.ToolUseID = &in.ToolUseID
	}
	resp, err := x.c.request(ctx, req)
	if err != nil {
		return hook.Response{}, fmt.Errorf("hook callback %s: %w", d.CallbackID, err)
	}
	if len(resp) == 0 || string(resp) == "null" {
		resp = json.RawMessage(`{}`)
	}
	return hook.Response{ExitCode: 0, Stdout: string(resp)}, nil
}

// sdkHooks turns initialize's hooks ({"PreToolUse":[{"matcher","hookCallbackIds",
// "timeout"}]}) into hook groups run by hookCallbackExecutor.
func sdkHooks(reg map[string][]sdkHookMatcher) (hook.Config, error) {
	cfg := hook.Config{}
	for name, matchers := range reg {
		ev, err := hook.ParseEvent(name)
		if err != nil {
			return nil, fmt.Errorf("hooks.%s: %w", name, err)
		}
		for _, m := range matchers {
			g := hook.Group{Matcher: m.Matcher}
			for _, id := range m.HookCallbackIDs {
				raw, _ := json.Marshal(sdkHookDef{Type: sdkHookType, CallbackID: id})
				g.Hooks = append(g.Hooks, hook.Definition{Type: sdkHookType, Timeout: m.Timeout, Raw: raw})
			}
			if len(g.Hooks) > 0 {
				cfg[ev] = append(cfg[ev], g)
			}
		}
	}
	return cfg, nil
}

// sdkHookMatcher is one registered matcher of initialize's hooks.
type sdkHookMatcher struct {
	Matcher         string   `json:"matcher"`
	HookCallbackIDs []string `json:"hookCallbackIds"`
	Timeout         float64  `json:"timeout"`
}
