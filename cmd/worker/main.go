// Command robota-worker runs subagent jobs and background processes. robota-engine
// launches it through go-plugin; robota launches it as `robota-worker --stdio` and speaks
// JSON lines over its stdin and stdout (pkg/runner/pipe). Started by hand without --stdio
// it says it is a plugin and exits 1.
package main

import (
	"os"

	"github.com/robota-sdk/robota-go/pkg/runner/pipe"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == pipe.StdioFlag {
		os.Exit(worker.ServeStdio())
	}
	worker.Serve()
}
