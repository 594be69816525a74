package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

func testRound(n int) []llm.Message {
	return []llm.Message{llm.NewUserMessage(strings.Repeat("x", n+1)), llm.NewAssistantMessage([]llm.Part{llm.TextPart("ok")}, llm.StateComplete)}
}

// Issue 10 §5: an append that hits a full disk (part of the batch written, then ENOSPC,
// as /dev/full answers) fails naming the journal, and leaves the journal as it was: the
// next append, once there is room, continues after the last complete round.
func TestAppendOnAFullDisk(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	s := NewFileStore(dir, Options{})
	ctx := context.Background()
	if err := s.Append(ctx, &Delta{ID: "s", Header: &Record{Cwd: "/w", CreatedAt: time.Now()}, Messages: testRound(0)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, &Delta{ID: "s", Base: 2, Messages: testRound(1)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.jsonl")
	before, _ := os.ReadFile(path)

	writeAt = func(f *os.File, b []byte, off int64) (int, error) {
		n, _ := f.WriteAt(b[:len(b)/2], off) // the disk fills up halfway through
		_, err := full.Write(b)
		return n, err
	}
	err = s.Append(ctx, &Delta{ID: "s", Base: 4, Messages: testRound(2)})
	writeAt = (*os.File).WriteAt
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Append on a full disk = %v, want ENOSPC naming %s", err, path)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatalf("the failed append left %d bytes behind", len(after)-len(before))
	}
	if err := s.Append(ctx, &Delta{ID: "s", Base: 4, Messages: testRound(2)}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Load(ctx, "s")
	if err != nil || len(rec.Messages) != 6 {
		t.Fatalf("after the disk recovered: %d messages, %v", len(rec.Messages), err)
	}
}
