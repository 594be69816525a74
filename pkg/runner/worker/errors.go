package worker

import "errors"

// ErrNoHost is returned by Start for an agent job without a runnerapi.Host: the worker
// holds no provider and no permission rules of its own, so it cannot run one.
var ErrNoHost = errors.New("agent job has no host (the engine side that answers its model calls and tool decisions)")

// errJobEnded is returned by Send to a job that has ended.
var errJobEnded = errors.New("job ended")
