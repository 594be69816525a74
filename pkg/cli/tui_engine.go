package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/robota-sdk/robota-go/pkg/tui"
)

// engineSession opens the TUI's session in the engine at o.Engine; nil and the exit
// status when it cannot.
func engineSession(ctx context.Context, o Options, cwd string, stderr io.Writer) (tui.Session, int) {
	fmt.Fprintf(stderr, "robota: the interactive UI over --engine is %v\n", ErrNotYetAvailable)
	return nil, exitFailed
}
