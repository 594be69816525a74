package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SDK MCP servers (issue 13 §3): the Agent SDKs host MCP servers in their own process
// and name them at initialize (sdkMcpServers) and in --mcp-config as {"type": "sdk"}.
// Their JSON-RPC messages travel inside control requests: robota's to the server as
// mcp_message requests to the client, whose control_response carries the server's
// answer in mcp_response; the server's own messages (notifications) come as mcp_message
// requests from the client. sdkMCPConn is the go-sdk Connection over that channel.

// mcpMessageRequest is the control request carrying one JSON-RPC message.
type mcpMessageRequest struct {
	Subtype    string          `json:"subtype"`
	ServerName string          `json:"server_name"`
	Message    json.RawMessage `json:"message"`
}

// sdkMCPServers are the run's connections to the client's MCP servers, by name.
type sdkMCPServers struct {
	ctl   *controller
	mu    sync.Mutex
	conns map[string]*sdkMCPConn
}

func newSDKMCPServers(ctl *controller) *sdkMCPServers {
	return &sdkMCPServers{ctl: ctl, conns: map[string]*sdkMCPConn{}}
}

// transport is assemble.Options.MCPSDKTransport.
func (s *sdkMCPServers) transport(name string) (sdkmcp.Transport, error) {
	return sdkMCPTransport{servers: s, name: name}, nil
}

// fromClient delivers a message the client's server sent (an mcp_message request).
func (s *sdkMCPServers) fromClient(server string, raw json.RawMessage) error {
	s.mu.Lock()
	conn := s.conns[server]
	s.mu.Unlock()
	if conn == nil {
		return fmt.Errorf("mcp_message: no SDK MCP server %q is connected", server)
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return fmt.Errorf("mcp_message: %w", err)
	}
	conn.deliver(msg)
	return nil
}

type sdkMCPTransport struct {
	servers *sdkMCPServers
	name    string
}

func (t sdkMCPTransport) Connect(context.Context) (sdkmcp.Connection, error) {
	c := &sdkMCPConn{ctl: t.servers.ctl, name: t.name, in: make(chan jsonrpc.Message, 64), done: make(chan struct{})}
	t.servers.mu.Lock()
	t.servers.conns[t.name] = c
	t.servers.mu.Unlock()
	c.onClose = func() {
		t.servers.mu.Lock()
		if t.servers.conns[t.name] == c {
			delete(t.servers.conns, t.name)
		}
		t.servers.mu.Unlock()
	}
	return c, nil
}

type sdkMCPConn struct {
	ctl     *controller
	name    string
	in      chan jsonrpc.Message
	done    chan struct{}
	once    sync.Once
	onClose func()
}

var errSDKMCPClosed = errors.New("SDK MCP connection closed")

func (c *sdkMCPConn) deliver(msg jsonrpc.Message) {
	select {
	case c.in <- msg:
	case <-c.done:
	}
}

func (c *sdkMCPConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, errSDKMCPClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write sends msg to the client; the answer to a request comes back through Read. A
// request the client fails is answered with a JSON-RPC error, so no call waits forever.
func (c *sdkMCPConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	raw, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("SDK MCP server %q: %w", c.name, err)
	}
	select {
	case <-c.done:
		return errSDKMCPClosed
	default:
	}
	wait, err := c.ctl.send(mcpMessageRequest{Subtype: "mcp_message", ServerName: c.name, Message: raw})
	if err != nil {
		return fmt.Errorf("SDK MCP server %q: %w", c.name, err)
	}
	req, isCall := msg.(*jsonrpc.Request)
	isCall = isCall && req.ID.IsValid()
	go func() {
		wctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-c.done:
				cancel()
			case <-wctx.Done():
			}
		}()
		body, err := wait(wctx)
		if !isCall { // a notification's answer carries nothing
			return
		}
		var reply struct {
			MCPResponse json.RawMessage `json:"mcp_response"`
		}
		var answer jsonrpc.Message
		if err == nil {
			if err = json.Unmarshal(body, &reply); err == nil {
				answer, err = jsonrpc.DecodeMessage(reply.MCPResponse)
			}
		}
		if err != nil {
			answer = &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32603, Message: fmt.Sprintf("SDK MCP server %q: %v", c.name, err)}}
		}
		c.deliver(answer)
	}()
	return nil
}

func (c *sdkMCPConn) Close() error {
	c.once.Do(func() {
		close(c.done)
		if c.onClose != nil {
			c.onClose()
		}
	})
	return nil
}

func (c *sdkMCPConn) SessionID() string { return "" }
