package assemble

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

func TestResolveSession(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemoryStore(store.Options{})
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, r := range []struct{ id, name string }{{"s1", "api work"}, {"s2", "twice"}, {"s3", "twice"}, {"s4", "s1"}, {"s5", ""}} {
		rec := store.Record{ID: r.id, Name: r.name, Cwd: "/p", CreatedAt: at, UpdatedAt: at.Add(time.Duration(i) * time.Minute),
			Messages: []llm.Message{}}
		if err := st.Save(ctx, &rec); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		ref, id string
		err     error
		msg     string
	}{
		{ref: "s2", id: "s2"},
		{ref: "api work", id: "s1"},
		{ref: "s1", id: "s1"}, // an id wins over a session named like it
		{ref: "twice", err: ErrAmbiguousSession, msg: `2 sessions are named "twice": s3 (updated `},
		{ref: "nope", err: ErrUnknownSession, msg: `no session has that id or name; named sessions: "s1", "twice", "api work"`},
		{ref: "API work", err: ErrUnknownSession},
	} {
		id, err := ResolveSession(ctx, st, c.ref)
		if id != c.id || !errors.Is(err, c.err) && (err != nil || c.err != nil) || (c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg))) {
			t.Errorf("ResolveSession(%q) = %q, %v; want %q, %v %q", c.ref, id, err, c.id, c.err, c.msg)
		}
	}
}

// robota --resume NAME: a session renamed with /rename is resumed by its name.
func TestResumeByName(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := newTestSession(t, scriptProvider(t, commandScript), Options{Cwd: dir})
	if res, _ := s.ExecuteCommand(ctx, "rename", "api work"); !res.Success {
		t.Fatalf("rename: %+v", res)
	}
	id := s.ID()
	if err := s.Close(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	a, err := Assemble(ctx, Options{Cwd: dir, Home: t.TempDir(), Env: envOf(nil), LLM: scriptProvider(t, commandScript), Resume: "api work"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx, "other")
	if a.ResumedFrom != id || a.Session.ID() != id || a.Session.Name() != "api work" {
		t.Fatalf("resumed %q as %q named %q; want %q", a.ResumedFrom, a.Session.ID(), a.Session.Name(), id)
	}
	_, err = Assemble(ctx, Options{Cwd: dir, Home: t.TempDir(), Env: envOf(nil), LLM: scriptProvider(t, commandScript), Resume: "other work"})
	if !errors.Is(err, ErrUnknownSession) || !strings.Contains(err.Error(), `named sessions: "api work"`) {
		t.Fatalf("unknown name: %v", err)
	}
}

// A fork of a named session starts unnamed: the name keeps naming one session.
func TestForkOfANamedSessionIsUnnamed(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := newTestSession(t, scriptProvider(t, commandScript), Options{Cwd: dir})
	if res, _ := s.ExecuteCommand(ctx, "rename", "api work"); !res.Success {
		t.Fatalf("rename: %+v", res)
	}
	id := s.ID()
	if err := s.Close(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	a, err := Assemble(ctx, Options{Cwd: dir, Home: t.TempDir(), Env: envOf(nil), LLM: scriptProvider(t, commandScript), Resume: "api work", Fork: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Session.ID() == id || a.Session.Name() != "" {
		t.Fatalf("fork %s named %q", a.Session.ID(), a.Session.Name())
	}
	if err := a.Close(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if got, err := ResolveSession(ctx, a.store, "api work"); err != nil || got != id {
		t.Fatalf("after the fork, the name resolves to %q, %v", got, err)
	}
}
