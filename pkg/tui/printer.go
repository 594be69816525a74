package tui

import (
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// printer writes finished output to the scrollback, above the live area, in the order
// it was printed: one goroutine sends every piece to the program (commands run
// concurrently, so separate Println commands could overtake each other).
type printer struct {
	mu      sync.Mutex
	pending []string
	// printed is everything printed, in order: a reprint (after the terminal's width
	// changed) writes it again.
	printed    []string
	reprintReq bool
	quitReq    bool
	wake       chan struct{}
	done       chan struct{}
}

// clearAll homes the cursor and clears the screen and the scrollback, as Claude Code
// does before it prints its conversation again at a new width.
const clearAll = "\x1b[H\x1b[2J\x1b[3J"

func newPrinter() *printer {
	return &printer{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (p *printer) print(s string) {
	p.mu.Lock()
	p.pending = append(p.pending, s)
	p.printed = append(p.printed, s)
	p.mu.Unlock()
	p.signal()
}

// reprint asks for the screen and scrollback to be cleared and everything printed so far
// to be written again, followed by the live area. After a width change the terminal
// has rewrapped (or cut) what was on screen, the live area's old rows among it; only a
// full repaint leaves no stray rows and loses no line, whatever the terminal does.
func (p *printer) reprint() {
	p.mu.Lock()
	p.reprintReq = true
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
		if p.reprintReq {
			// What is pending is in printed already.
			batch = []string{clearAll + strings.Join(p.printed, "\n")}
			p.reprintReq = false
		}
		reprint := len(p.printed) > 0 && len(batch) == 1 && strings.HasPrefix(batch[0], clearAll)
		p.pending = nil
		p.mu.Unlock()
		for _, s := range batch {
			send(tea.Println(s)())
		}
		if reprint {
			// The clear took the live area too: the renderer draws it again below.
			send(tea.ClearScreen())
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
