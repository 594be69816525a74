package mcp

import "errors"

// ErrConfig marks an MCP configuration that cannot be read (bad JSON, a server without a
// command or url, an unknown type); the message names the source and the server.
var ErrConfig = errors.New("invalid MCP configuration")

// ErrNoSDKTransport is the start error of an "sdk" server when the caller has no channel
// to the program that hosts it (no stream-json control protocol).
var ErrNoSDKTransport = errors.New("SDK MCP servers need the stream-json control protocol (--input-format stream-json)")
