// Command robota-sandbox is the first process of robota's command sandbox: started in
// new namespaces by robota, robota-engine or robota-worker, it applies the command's
// policy (hidden and read-only paths, no capabilities) and executes the shell. It is
// small so that a sandboxed command starts almost as fast as a bare one.
package main

import "github.com/robota-sdk/robota-go/pkg/sandbox"

func main() { sandbox.RunHelper() }
