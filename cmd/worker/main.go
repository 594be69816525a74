// Command robota-worker runs subagent jobs and background processes for
// robota-engine, which launches it through go-plugin. Started by hand it says
// so and exits 1.
package main

import "github.com/robota-sdk/robota-go/pkg/runner/worker"

func main() { worker.Serve() }
