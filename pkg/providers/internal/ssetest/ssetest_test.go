package ssetest

import (
	"io"
	"net/http"
	"reflect"
	"testing"
)

func TestEvents(t *testing.T) {
	got := Events("# comment\nevent: a\ndata: {}\n\n\n\ndata: [DONE]\n\nevent: cut\ndata: {\"x\":")
	want := []string{"event: a\ndata: {}\n\n", "data: [DONE]\n\n", "event: cut\ndata: {\"x\":\n"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q", got)
	}
}

func TestServerRepliesInOrderAndRecords(t *testing.T) {
	srv := NewServer(t, Reply{Status: 429, Body: `{"e":1}`, Header: http.Header{"Retry-After": {"3"}}}, Reply{Events: []string{"data: 1\n\n"}})
	for i, want := range []struct {
		status int
		body   string
		ctype  string
	}{{429, `{"e":1}`, "application/json"}, {200, "data: 1\n\n", "text/event-stream"}} {
		res, err := http.Post(srv.URL+"/v1/x", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want.status || string(body) != want.body || res.Header.Get("Content-Type") != want.ctype {
			t.Fatalf("reply %d: %d %q %q", i, res.StatusCode, body, res.Header.Get("Content-Type"))
		}
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[0].Path != "/v1/x" || reqs[0].Method != http.MethodPost {
		t.Fatalf("requests %+v", reqs)
	}
}
