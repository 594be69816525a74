// Command robota-worker runs subagent jobs and background processes for robota and
// robota-engine, which launch it through go-plugin over gRPC. Started by hand it says
// so and exits 1.
package main

import "github.com/robota-sdk/robota-go/pkg/runner/worker"

func main() { worker.Serve() }
