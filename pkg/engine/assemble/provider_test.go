package assemble

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// secretServer is a loopback model endpoint that records every request's headers and body
// and answers 400, so a provider gives up at once.
type secretServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // one entry per request: its headers and body
}

func newSecretServer(t *testing.T) *secretServer {
	s := &secretServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b strings.Builder
		for k, vs := range r.Header {
			b.WriteString(k + ": " + strings.Join(vs, ",") + "\n")
		}
		b.Write(body)
		s.mu.Lock()
		s.seen = append(s.seen, b.String())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"recorded"}}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *secretServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// TestEnvironmentCredentialsNeverFollowAProjectEndpoint drives settings → chooseProvider →
// open → one chat request against a loopback server, and checks which credentials reach it.
func TestEnvironmentCredentialsNeverFollowAProjectEndpoint(t *testing.T) {
	env := map[string]string{
		"SECRET":            "s3cret-from-env",
		"ANTHROPIC_API_KEY": "anthropic-key-from-env",
		"GEMINI_API_KEY":    "gemini-key-from-env",
	}
	secrets := []string{"s3cret-from-env", "anthropic-key-from-env", "gemini-key-from-env"}
	tests := []struct {
		name    string
		file    string // settings file, "~/" for the fake home
		profile string // the providers.x object, with SERVER for the server URL
		// wantErr: chooseProvider refuses (and nothing is sent); otherwise one request is
		// made, carrying want and none of the other secrets.
		wantErr []string
		want    string
	}{
		{name: "project baseURL with $ENV key: refused, nothing sent",
			file: ".claude/settings.json", profile: `{"type":"anthropic","baseURL":"SERVER","apiKey":"$ENV:SECRET"}`,
			wantErr: []string{"providers.x.baseURL in .claude/settings.json", "ANTHROPIC_API_KEY", "write apiKey in .claude/settings.json"}},
		{name: "project baseURL with $ENV key, keyless type: sent without the secret",
			file: ".claude/settings.json", profile: `{"type":"ollama","model":"m","baseURL":"SERVER","apiKey":"$ENV:SECRET","options":{"headers":{"X-Key":"$ENV:SECRET"}}}`},
		{name: "the same profile in user settings: the secret is sent",
			file: "~/.claude/settings.json", profile: `{"type":"anthropic","baseURL":"SERVER","apiKey":"$ENV:SECRET"}`,
			want: "s3cret-from-env"},
		{name: "project baseURL, no key, ANTHROPIC_API_KEY set: refused, nothing sent",
			file: ".robota/settings.json", profile: `{"type":"anthropic","baseURL":"SERVER"}`,
			wantErr: []string{"providers.x.baseURL in .robota/settings.json", "ANTHROPIC_API_KEY"}},
		{name: "local file baseURL, no key, GEMINI_API_KEY set: refused, nothing sent",
			file: ".claude/settings.local.json", profile: `{"type":"gemini","baseURL":"SERVER"}`,
			wantErr: []string{"providers.x.baseURL in .claude/settings.local.json", "GEMINI_API_KEY"}},
		{name: "project baseURL with a key written in that file: only that key is sent",
			file: ".claude/settings.json", profile: `{"type":"anthropic","baseURL":"SERVER","apiKey":"literal-project-key"}`,
			want: "literal-project-key"},
		{name: "user baseURL, no key: the environment's key is sent (the user chose the endpoint)",
			file: "~/.robota/settings.json", profile: `{"type":"anthropic","baseURL":"SERVER"}`,
			want: "anthropic-key-from-env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSecretServer(t)
			dir, home := t.TempDir(), t.TempDir()
			path := filepath.Join(dir, tt.file)
			if rel, ok := strings.CutPrefix(tt.file, "~/"); ok {
				path = filepath.Join(home, rel)
			}
			writeFile(t, path, `{"currentProvider":"x","providers":{"x":`+strings.ReplaceAll(tt.profile, "SERVER", srv.URL)+`}}`)
			opts := Options{Cwd: dir, Home: home, Env: envOf(env)}
			s, err := loadSettings(opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := chooseProvider(s, opts)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("chooseProvider accepted %+v", c)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q:\n%v", w, err)
					}
				}
				for _, sec := range secrets {
					if strings.Contains(err.Error(), sec) {
						t.Errorf("error shows a secret: %v", err)
					}
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				p, err := c.open(opts)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = p.Chat(context.Background(), llm.ChatRequest{Model: c.Model, Messages: []llm.Message{llm.NewUserMessage("hi")}}, llm.Callbacks{})
			}
			reqs := srv.requests()
			switch {
			case tt.wantErr != nil && len(reqs) != 0:
				t.Fatalf("server got %d requests, want none", len(reqs))
			case tt.wantErr == nil && len(reqs) == 0:
				t.Fatal("no request reached the server")
			}
			for _, r := range reqs {
				if tt.want != "" && !strings.Contains(r, tt.want) {
					t.Errorf("request lacks %q:\n%s", tt.want, r)
				}
				for _, sec := range secrets {
					if sec != tt.want && strings.Contains(r, sec) {
						t.Errorf("request carries %q:\n%s", sec, r)
					}
				}
			}
		})
	}
}
