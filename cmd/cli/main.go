// Command robota is the terminal client of the robota engine.
package main

import (
	"os"

	_ "github.com/robota-sdk/robota-go/internal/startstack" // grows the main stack before the libraries' inits
	"github.com/robota-sdk/robota-go/pkg/cli"
	"github.com/robota-sdk/robota-go/pkg/providers/providerproc"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

func main() {
	sandbox.RunIfSandbox() // a sandboxed Bash command's first process (pkg/sandbox)
	// The OpenAI-compatible providers run in robota-provider, started when a session
	// chooses one: robota links no OpenAI SDK (issue 29).
	providers := providerproc.New(nil, nil)
	registry.SetDefault(providers.Registry())
	code := cli.Main(os.Args[1:], os.Stdout, os.Stderr)
	_ = providers.Close()
	os.Exit(code)
}
