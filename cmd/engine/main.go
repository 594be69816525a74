// Command robota-engine is the robota daemon: sessions over gRPC, with worker processes.
package main

import (
	"context"
	"os"

	_ "github.com/robota-sdk/robota-go/internal/startstack" // grows the main stack before the libraries' inits
	"github.com/robota-sdk/robota-go/pkg/daemon"
	"github.com/robota-sdk/robota-go/pkg/providers/openaicompat"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

func main() {
	sandbox.RunIfSandbox() // a sandboxed Bash command's first process (pkg/sandbox)
	// The engine builds the OpenAI-compatible providers in process (robota runs them in
	// robota-provider).
	registry.SetDefault(registry.NewBuiltin(openaicompat.Open))
	os.Exit(daemon.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
