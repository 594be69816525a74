package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/mcp"
)

// fakeSDKClient plays the Agent SDK's side of mcp_message: it reads robota's control
// requests, hands each JSON-RPC message to an in-memory go-sdk server, and answers a
// request with the server's response in mcp_response, as the TypeScript SDK does.
func fakeSDKClient(t *testing.T, lines io.Reader, ctl *controller, server *sdkmcp.Server, seen chan<- string) {
	ct, st := sdkmcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Error(err)
		return
	}
	defer ss.Close()
	conn, err := ct.Connect(context.Background())
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close()
	sc := bufio.NewScanner(lines)
	for sc.Scan() {
		var line struct {
			Type      string            `json:"type"`
			RequestID string            `json:"request_id"`
			Request   mcpMessageRequest `json:"request"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Type != "control_request" || line.Request.Subtype != "mcp_message" {
			continue
		}
		msg, err := jsonrpc.DecodeMessage(line.Request.Message)
		if err != nil {
			t.Errorf("message %s: %v", line.Request.Message, err)
			return
		}
		req := msg.(*jsonrpc.Request)
		seen <- line.Request.ServerName + ":" + req.Method
		if err := conn.Write(context.Background(), msg); err != nil {
			t.Error(err)
			return
		}
		answer := json.RawMessage(`{"jsonrpc":"2.0","result":{},"id":0}`)
		if req.ID.IsValid() {
			resp, err := conn.Read(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			if answer, err = jsonrpc.EncodeMessage(resp); err != nil {
				t.Error(err)
				return
			}
		}
		body, _ := json.Marshal(map[string]any{"mcp_response": answer})
		ctl.deliver(controlResponse{Subtype: "success", RequestID: line.RequestID, Response: body})
	}
}

func TestSDKMCPServerOverControlProtocol(t *testing.T) {
	server := sdkmcp.NewServer(&sdkmcp.Implementation{Name: "sdk-server", Version: "1"}, nil)
	type in struct {
		N int `json:"n"`
	}
	sdkmcp.AddTool(server, &sdkmcp.Tool{Name: "double"}, func(_ context.Context, _ *sdkmcp.CallToolRequest, a in) (*sdkmcp.CallToolResult, any, error) {
		return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: strings.Repeat("x", 2*a.N)}}}, nil, nil
	})
	pr, pw := io.Pipe()
	defer pw.Close()
	ctl := newController(output.New(pw, output.FormatStreamJSON, llm.NewID), llm.NewID)
	servers := newSDKMCPServers(ctl)
	seen := make(chan string, 20)
	done := make(chan struct{})
	go func() { defer close(done); fakeSDKClient(t, pr, ctl, server, seen) }()

	set := mcp.Connect(context.Background(), []mcp.Server{{Name: "calc", Config: mcp.ServerConfig{Type: "sdk"}}},
		mcp.Options{StartTimeout: 10 * time.Second, SDKTransport: servers.transport})
	if st := set.Status(); len(st) != 1 || st[0].Status != mcp.StatusConnected {
		t.Fatalf("status = %+v", st)
	}
	tools := set.Tools()
	if len(tools) != 1 || tools[0].Schema().Name != "mcp__calc__double" {
		t.Fatalf("tools = %v", tools)
	}
	res := tools[0].Execute(context.Background(), json.RawMessage(`{"n":3}`))
	if !res.Success || res.Output != "xxxxxx" {
		t.Errorf("result = %+v", res)
	}
	set.Close()
	pw.Close()
	<-done
	close(seen)
	var methods []string
	for m := range seen {
		methods = append(methods, m)
	}
	if got := strings.Join(methods, ","); got != "calc:server/discover,calc:tools/list,calc:tools/call" {
		t.Errorf("messages to the client = %s", got)
	}
}

func TestSDKMCPMessageFromClientNeedsAConnection(t *testing.T) {
	servers := newSDKMCPServers(newController(output.New(io.Discard, output.FormatStreamJSON, llm.NewID), llm.NewID))
	if err := servers.fromClient("nobody", json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)); err == nil ||
		!strings.Contains(err.Error(), `"nobody"`) {
		t.Errorf("err = %v, want it to name the unknown server", err)
	}
}
