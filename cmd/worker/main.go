// Command robota-worker runs subagent jobs and background processes for robota and
// robota-engine, which launch it through go-plugin over gRPC. Started by hand it says
// so and exits 1. `robota-worker git-clone [--ref REF] URL DIR` clones a plugin
// marketplace or plugin for them (go-git is linked here only). `robota-worker host
// --nats URLS --name NAME` is the host agent that takes jobs from NATS JetStream on
// another machine and runs each in a local robota-worker (DESIGN.md decision 5).
package main

import (
	"os"

	_ "github.com/robota-sdk/robota-go/internal/startstack" // grows the main stack before the libraries' inits
	"github.com/robota-sdk/robota-go/pkg/engine/assemble/plugins/gitclone"
	"github.com/robota-sdk/robota-go/pkg/runner/remote"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

func main() {
	sandbox.RunIfSandbox() // a sandboxed command's first process (pkg/sandbox)
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case gitclone.Command:
			os.Exit(gitclone.Main(os.Args[2:], os.Stdout, os.Stderr))
		case remote.HostCommand:
			os.Exit(remote.HostMain(os.Args[2:], os.Stdout, os.Stderr))
		}
	}
	worker.Serve()
}
