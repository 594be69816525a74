package client

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Sentinel errors. RPC errors match the one of their gRPC code with errors.Is.
var (
	// ErrBadTarget is an address Dial does not accept.
	ErrBadTarget = errors.New("bad engine address")
	// ErrTLSConfig is missing or unreadable TLS material for a tcp:// engine.
	ErrTLSConfig = errors.New("TLS configuration")
	// ErrInvalidOption is a session option the client can tell is wrong before sending it.
	ErrInvalidOption = errors.New("invalid session option")

	ErrNotFound           = errors.New("not found")
	ErrInvalidArgument    = errors.New("invalid argument")
	ErrFailedPrecondition = errors.New("failed precondition")
	ErrResourceExhausted  = errors.New("resource exhausted")
	ErrUnavailable        = errors.New("engine unavailable")
	ErrOutOfRange         = errors.New("out of range")
	// ErrProtocol is a reply that breaks the contract (a Submit stream without its
	// acceptance first, an event of an unknown kind).
	ErrProtocol = errors.New("engine protocol violation")
)

// codeSentinel is the sentinel of a gRPC code, nil for a code without one.
func codeSentinel(c codes.Code) error {
	switch c {
	case codes.NotFound:
		return ErrNotFound
	case codes.InvalidArgument:
		return ErrInvalidArgument
	case codes.FailedPrecondition:
		return ErrFailedPrecondition
	case codes.ResourceExhausted:
		return ErrResourceExhausted
	case codes.Unavailable:
		return ErrUnavailable
	case codes.OutOfRange:
		return ErrOutOfRange
	}
	return nil
}

// RPCError is a failed RPC: the operation, the gRPC code and the engine's message.
type RPCError struct {
	Op   string
	Code codes.Code
	Msg  string
	err  error
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s: %s", e.Op, e.Msg) }

// Unwrap returns the underlying gRPC status error (status.Code reads through it).
func (e *RPCError) Unwrap() error { return e.err }

// Is matches the sentinel of the error's code.
func (e *RPCError) Is(target error) bool {
	s := codeSentinel(e.Code)
	return s != nil && s == target
}

// GRPCStatus lets status.FromError and status.Code read the code.
func (e *RPCError) GRPCStatus() *status.Status { return status.New(e.Code, e.Msg) }

// rpcErr wraps an RPC failure with its operation; nil stays nil.
func rpcErr(op string, err error) error {
	if err == nil {
		return nil
	}
	st, _ := status.FromError(err)
	return &RPCError{Op: op, Code: st.Code(), Msg: st.Message(), err: err}
}
