// Package sentinel makes sentinel errors that another package can re-export without
// init code.
//
// Why: `var ErrX = other.ErrX` copies another package's variable, which the compiler
// can only do in a package init, and every init of robota runs before main on every
// command (issue 29). The address of another package's variable is a constant to the
// linker, so a package declares the error's value and points its sentinel at it:
//
//	var Aborted = sentinel.New("session: aborted") // the value; compare with ErrAborted
//	var ErrAborted error = &Aborted
//
// and a re-exporting package declares `var ErrAborted error = &session.Aborted`: the same
// error (errors.Is holds between them), laid out by the compiler.
package sentinel

// Error is an error with a fixed message, told apart by identity. Use it through a
// pointer: *Error implements error.
type Error struct{ msg string }

// New returns the value for a sentinel error with message msg. It is inlined, so a
// package-level `var X = sentinel.New(...)` needs no init code.
func New(msg string) Error { return Error{msg: msg} }

func (e *Error) Error() string { return e.msg }
