package pool

import "time"

// sleep is the pause between looks at a dying worker: go-plugin reaps the process in a
// goroutine of its own.
func sleep() { time.Sleep(10 * time.Millisecond) }
