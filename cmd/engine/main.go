// Command robota-engine is the robota daemon: sessions over gRPC, with worker processes.
package main

import (
	"context"
	"os"

	"github.com/robota-sdk/robota-go/pkg/daemon"
)

func main() {
	os.Exit(daemon.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
