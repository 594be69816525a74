package tui

import (
	"sync"

	tea "charm.land/bubbletea/v2"
)

// printer writes finished output to the scrollback, above the live area, in the order
// it was printed: one goroutine sends every piece to the program (commands run
// concurrently, so separate Println commands could overtake each other).
type printer struct {
	mu      sync.Mutex
	pending []string
	quitReq bool
	wake    chan struct{}
	done    chan struct{}
}

func newPrinter() *printer {
	return &printer{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (p *printer) print(s string) {
	p.mu.Lock()
	p.pending = append(p.pending, s)
	p.mu.Unlock()
	p.signal()
}

// quit asks the program to quit once everything printed before is out.
func (p *printer) quit() {
	p.mu.Lock()
	p.quitReq = true
	p.mu.Unlock()
	p.signal()
}

func (p *printer) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run sends to send until quit or stop is closed.
func (p *printer) run(send func(tea.Msg), stop <-chan struct{}) {
	defer close(p.done)
	for {
		select {
		case <-p.wake:
		case <-stop:
			return
		}
		p.mu.Lock()
		batch, quit := p.pending, p.quitReq
		p.pending = nil
		p.mu.Unlock()
		for _, s := range batch {
			send(tea.Println(s)())
		}
		if quit {
			send(tea.Quit())
			return
		}
	}
}

// drain returns what was printed but not sent (the program ended first).
func (p *printer) drain() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.pending
	p.pending = nil
	return out
}
