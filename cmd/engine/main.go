// Command robota-engine is the robota daemon: sessions over gRPC, with worker processes.
package main

import (
	"context"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
	"os"

	"github.com/robota-sdk/robota-go/pkg/daemon"
)

func main() {
	sandbox.RunIfSandbox() // a sandboxed Bash command's first process (pkg/sandbox)
	os.Exit(daemon.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
