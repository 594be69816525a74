// Command robota is the terminal client of the robota engine.
package main

import (
	"github.com/robota-sdk/robota-go/pkg/sandbox"
	"os"

	"github.com/robota-sdk/robota-go/pkg/cli"
)

func main() {
	sandbox.RunIfSandbox() // a sandboxed Bash command's first process (pkg/sandbox)
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
