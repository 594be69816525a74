package remote

import "sync"

// workers runs the host's claimed jobs on goroutines kept between jobs: a short job
// paid for a fresh goroutine and for growing its stack (the runner's call chain is
// deep) more than for its own run. At most max goroutines stay; any more (a job that
// came as another ended) end with their job. The work is a *hostJob given to one
// function (do), not a closure per job.
type workers struct {
	work chan *hostJob // unbuffered: a send succeeds only when a worker waits
	do   func(*hostJob)
	max  int

	mu    sync.Mutex
	alive int
	done  bool
}

func newWorkers(max int, do func(*hostJob)) *workers {
	return &workers{work: make(chan *hostJob), do: do, max: max}
}

// run runs do(hj) on a waiting worker, or on a new one.
func (w *workers) run(hj *hostJob) {
	select {
	case w.work <- hj:
		return
	default:
	}
	w.mu.Lock()
	w.alive++
	w.mu.Unlock()
	go w.loop(hj)
}

func (w *workers) loop(hj *hostJob) {
	for {
		w.do(hj)
		w.mu.Lock()
		if w.done || w.alive > w.max {
			w.alive--
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		var ok bool
		if hj, ok = <-w.work; !ok {
			return
		}
	}
}

// stop ends the waiting workers; call it once no more work comes.
func (w *workers) stop() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	close(w.work)
}
