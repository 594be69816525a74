package ssetest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Reply is the server's answer to one request.
type Reply struct {
	Status int         // default 200
	Header http.Header // Content-Type defaults to text/event-stream for Events, JSON for Body
	Body   string      // a plain body (an error document); ignored when Events is set
	Events []string    // SSE events, each written and flushed on its own
	// Stall keeps the response open after the events until the client disconnects.
	Stall bool
	// Cut closes the TCP connection abruptly after the events (no chunked terminator), as
	// a dropped connection does.
	Cut bool
}

// Request is a recorded request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server serves Replies in order.
type Server struct {
	*httptest.Server
	t       testing.TB
	mu      sync.Mutex
	replies []Reply
	reqs    []Request
	done    chan struct{}
}

// NewServer starts a loopback server answering with replies; it is closed at test end.
func NewServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, replies: replies, done: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.done)
		s.Server.CloseClientConnections()
		s.Server.Close()
	})
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var rep Reply
	ok := n < len(s.replies)
	if ok {
		rep = s.replies[n]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("ssetest: unexpected request #%d %s %s", n+1, r.Method, r.URL.Path)
		http.Error(w, "no reply scripted", 599)
		return
	}
	for k, vs := range rep.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if rep.Events == nil {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, rep.Body)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(status)
	flusher, _ := w.(http.Flusher)
	for _, ev := range rep.Events {
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	switch {
	case rep.Cut:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
			}
		}
	case rep.Stall:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	}
}

// Events splits an SSE transcript into its events (each keeps its blank-line terminator).
// Lines starting with "#" are transcript comments and are dropped.
func Events(transcript string) []string {
	transcript = strings.ReplaceAll(transcript, "\r\n", "\n")
	var lines []string
	for _, l := range strings.Split(transcript, "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	var events []string
	var cur bytes.Buffer
	for _, l := range lines {
		if l == "" {
			if cur.Len() > 0 {
				cur.WriteString("\n")
				events = append(events, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteString(l + "\n")
	}
	if cur.Len() > 0 { // a transcript cut inside an event
		events = append(events, cur.String())
	}
	return events
}

// Load reads testdata/name and splits it into events.
func Load(t testing.TB, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Events(string(data))
}
