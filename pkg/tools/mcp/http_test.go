package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// http and sse servers are reached at their url with the configured headers on every
// request.
func TestConnectOverHTTPWithHeaders(t *testing.T) {
	calls := make(chan string, 10)
	server := testServer(t, calls)
	for _, typ := range []string{"http", "sse"} {
		t.Run(typ, func(t *testing.T) {
			var handler http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
			if typ == "sse" {
				handler = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil)
			}
			var unauthorized atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer s3cret" {
					unauthorized.Add(1)
					http.Error(w, "no", http.StatusUnauthorized)
					return
				}
				handler.ServeHTTP(w, r)
			}))
			defer ts.Close()
			set := Connect(context.Background(), []Server{{Name: "remote", Config: ServerConfig{Type: typ, URL: ts.URL,
				Headers: map[string]string{"Authorization": "Bearer s3cret"}}}}, Options{})
			defer set.Close()
			if st := set.Status(); st[0].Status != StatusConnected {
				t.Fatalf("status = %+v", st)
			}
			res := toolByName(set, "mcp__remote__echo").Execute(context.Background(), json.RawMessage(`{"text":"over `+typ+`"}`))
			if !res.Success || res.Output != "echo: over "+typ {
				t.Errorf("result = %+v", res)
			}
			if n := unauthorized.Load(); n != 0 {
				t.Errorf("%d requests came without the header", n)
			}
		})
	}
}
