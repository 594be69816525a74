package interactive

import "context"

// Transport is the spec's ITransportAdapter: a front end that serves a session to its
// users (robota -p's headless runner; an HTTP, WebSocket or MCP server of a consumer's).
// A consumer composes one the same way whatever it is:
//
//	s.AttachTransport(t)
//	err := t.Start(ctx)
//	...
//	err = t.Stop(ctx)
//
// What Start does depends on the transport (run one prompt and return, or serve until
// Stop); Stop ends what Start began and releases what it holds. The gRPC server is not
// one: it serves many sessions, each attached to no single front end.
type Transport interface {
	// Name names the transport for people ("headless", "http", "mcp" ...).
	Name() string
	// Attach gives the transport the session it serves, before Start.
	Attach(s *InteractiveSession)
	// Start serves the session.
	Start(ctx context.Context) error
	// Stop stops serving and cleans up.
	Stop(ctx context.Context) error
}

// AttachTransport attaches t to the session (the spec's attachTransport: it calls
// t.Attach(s)); the caller then starts and stops t.
func (s *InteractiveSession) AttachTransport(t Transport) { t.Attach(s) }
