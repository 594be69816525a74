package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// withHistory runs prompts through m until lines lines of answers have gone to the
// scrollback (the printer is emptied, as the program does when it sends them).
func withHistory(m *model, lines int) {
	answer := strings.Repeat("a line of the answer with **some** markdown\n\n", 10)
	for n := 0; n < lines; n += 20 {
		typeText(m, "prompt")
		press(m, "enter")
		id := m.running
		m.event(Event{Kind: EvText, PromptID: id, Text: answer})
		m.event(Event{Kind: EvToolStart, PromptID: id, Tool: &Tool{ID: "c", Name: "Bash", FirstArg: "ls"}})
		m.event(Event{Kind: EvToolEnd, PromptID: id, Tool: &Tool{ID: "c", Name: "Bash", FirstArg: "ls", Result: "success", Preview: "a\nb\nc"}})
		m.event(Event{Kind: EvEnd, PromptID: id, End: &End{Outcome: "complete"}})
		m.out.drain()
	}
}

// streamingFrame sets m answering a prompt with a few lines streamed so far.
func streamingFrame(m *model) {
	typeText(m, "now")
	press(m, "enter")
	m.event(Event{Kind: EvText, PromptID: m.running, Text: "The answer so far,\nwith two lines"})
	typeText(m, "queued prompt being typed")
}

// BenchmarkFrameFlatInHistory: the cost of a frame (View) while an answer streams,
// with 10,000 lines of conversation behind it, against the same frame with none
// (measured in the same run, interleaved). Reported: ns per frame of each, and the
// ratio (target ≤ 1.5: finished messages are never rendered again).
func BenchmarkFrameFlatInHistory(b *testing.B) {
	empty, _ := newTestModel(b)
	long, _ := newTestModel(b)
	withHistory(long, 10_000)
	streamingFrame(empty)
	streamingFrame(long)
	var tEmpty, tLong time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		_ = empty.View()
		t1 := time.Now()
		_ = long.View()
		t2 := time.Now()
		tEmpty += t1.Sub(t0)
		tLong += t2.Sub(t1)
	}
	b.ReportMetric(float64(tEmpty.Nanoseconds())/float64(b.N), "ns/frame-empty")
	b.ReportMetric(float64(tLong.Nanoseconds())/float64(b.N), "ns/frame-10k-lines")
	b.ReportMetric(float64(tLong)/float64(max(tEmpty, 1)), "x-empty")
}

// BenchmarkKeystrokeWhileStreaming: a keystroke's echo (Update and the frame after it)
// while the answer streams at 500 deltas a second, against the same keystroke on an
// idle prompt. The deltas of 1/60 s (one frame) arrive between keystrokes.
func BenchmarkKeystrokeWhileStreaming(b *testing.B) {
	idle, _ := newTestModel(b)
	busy, _ := newTestModel(b)
	typeText(busy, "go")
	press(busy, "enter")
	key := tea.KeyPressMsg{Code: 'x', Text: "x"}
	var tIdle, tBusy time.Duration
	busyKeys := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for d := 0; d < 500/60; d++ {
			busy.Update(eventMsg(Event{Kind: EvText, PromptID: busy.running, Text: "word "}))
		}
		if busy.streaming.Len() > 1<<20 { // keep the benchmark's memory bounded
			busy.streaming.Reset()
		}
		t0 := time.Now()
		idle.Update(key)
		_ = idle.View()
		t1 := time.Now()
		busy.Update(key)
		_ = busy.View()
		t2 := time.Now()
		tIdle += t1.Sub(t0)
		tBusy += t2.Sub(t1)
		busyKeys = append(busyKeys, t2.Sub(t1))
		if i%200 == 0 {
			idle.ed.Reset()
			busy.ed.Reset()
		}
	}
	b.ReportMetric(float64(tIdle.Nanoseconds())/float64(b.N), "ns/key-idle")
	b.ReportMetric(float64(tBusy.Nanoseconds())/float64(b.N), "ns/key-streaming")
	b.ReportMetric(float64(tBusy)/float64(max(tIdle, 1)), "x-idle")
	// The echo's 99th percentile against the frame budget (16 ms): the target is the
	// slow keystroke, not the average one.
	b.StopTimer()
	slices.Sort(busyKeys)
	p99 := busyKeys[min(len(busyKeys)*99/100, len(busyKeys)-1)]
	b.ReportMetric(float64(p99.Nanoseconds()), "ns/key-streaming-p99")
	b.ReportMetric(float64(p99)/float64(16*time.Millisecond), "p99-x-16ms")
}

// BenchmarkFirstFrame: from the session to the first frame (model, size, banner,
// View), against the 100 ms budget.
func BenchmarkFirstFrame(b *testing.B) {
	f := newFake()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		m := newModel(f, newPrinter(), newStyles(true), nil, time.Now)
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = m.View()
		total += time.Since(t0)
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(100*time.Millisecond), "x-100ms-budget")
}

func Example_sanitize() {
	fmt.Println(Sanitize("title\x1b]0;pwned\x07"))
	// Output: title^[]0;pwned^G
}
