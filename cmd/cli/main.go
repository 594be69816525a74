// Command robota is the terminal client of the robota engine.
package main

import (
	"os"

	"github.com/robota-sdk/robota-go/pkg/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
