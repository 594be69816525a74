package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// sameHostPair serves https://example.com and http://example.com from two loopback
// servers: the returned client dials port 443 to the TLS one and port 80 to the plain one,
// so both schemes share one host name (as on a real site) and the plain server counts the
// requests that reach it.
func sameHostPair(t *testing.T, redirectTo string) (client *http.Client, plainHits *atomic.Int32) {
	t.Helper()
	plainHits = new(atomic.Int32)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainHits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("served over plain http\n"))
	}))
	t.Cleanup(plain.Close)
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, redirectTo, http.StatusFound)
		case "/secure":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("served over https\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(secure.Close)
	transport := secure.Client().Transport.(*http.Transport).Clone()
	var d net.Dialer
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		switch addr {
		case "example.com:443":
			return d.DialContext(ctx, network, secure.Listener.Addr().String())
		case "example.com:80", "www.example.com:80":
			return d.DialContext(ctx, network, plain.Listener.Addr().String())
		}
		t.Errorf("unexpected dial to %s", addr)
		return nil, net.UnknownNetworkError(addr)
	}
	return &http.Client{Transport: transport}, plainHits
}

func TestFetchRefusesSameHostRedirectFromHTTPSToHTTP(t *testing.T) {
	for _, c := range []struct {
		name, target string
		want         string // in the output or error
		ok           bool
		plainHits    int32
	}{
		{"https to http on the same host is refused", "http://example.com/page", "from https to plain http", false, 0},
		{"www. variant counts as the same host", "http://www.example.com/page", "from https to plain http", false, 0},
		{"https to https on the same host is followed", "https://example.com/secure", "served over https", true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			client, hits := sameHostPair(t, c.target)
			fetch, err := NewFetch(FetchConfig{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			res := fetch.Execute(context.Background(), json.RawMessage(`{"url":"https://example.com/redirect","prompt":"p"}`))
			if res.Success != c.ok || !strings.Contains(res.Output+res.Error, c.want) {
				t.Errorf("success=%v output=%q error=%q, want success=%v and %q", res.Success, res.Output, res.Error, c.ok, c.want)
			}
			if !c.ok {
				if code := res.Metadata["errorCode"]; code != "insecure_redirect" {
					t.Errorf("errorCode = %v, want insecure_redirect", code)
				}
				if !strings.Contains(res.Error, c.target) {
					t.Errorf("error %q does not name the refused URL %s", res.Error, c.target)
				}
			}
			if n := hits.Load(); n != c.plainHits {
				t.Errorf("plain http server got %d requests, want %d", n, c.plainHits)
			}
		})
	}
}
