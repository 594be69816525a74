package assemble

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/web"
)

// webSearchBackend is what backs the WebSearch tool per settings.json `webSearch`: a
// search API, or native (bound to the session's provider once it is open) for backend
// native and for no backend at all. Unset, native is implicit: with a provider that has
// hosted search (Anthropic) WebSearch works out of the box, as in Claude Code; with
// another the tool says how to configure a backend, as it did before.
func webSearchBackend(ws config.WebSearch, native *nativeSearch) web.SearchBackend {
	switch {
	case ws.Backend == "" && ws.Unavailable == "":
		native.implicit = true
		return native
	case ws.Unavailable != "":
		return web.Unavailable(ws.Unavailable)
	case ws.Backend == "native":
		native.source = ws.Source.Display
		return native
	}
	b, err := web.NewAPIBackend(web.APIConfig{Backend: ws.Backend, URL: ws.URL, APIKey: ws.APIKey, MaxResults: ws.MaxResults})
	if err != nil { // config validated what each backend needs; a new backend would land here
		return web.Unavailable(fmt.Sprintf("webSearch in %s: %v", ws.Source.Display, err))
	}
	return b
}

// nativeSearchSystem is what the search model is asked (Claude Code's WebSearch asks its
// model the same way, with the hosted web_search tool as its only tool).
const nativeSearchSystem = "You are an assistant for performing a web search tool use. Search the web for the user's query, then answer with what you found: for each relevant source its title, its URL and what it says. Do not answer from memory."

// nativeSearch is the WebSearch backend of `webSearch.backend: native`: one model call
// with the provider's hosted search tool and no other, whose answer is the tool's result.
// It runs inside the WebSearch tool call, so the permission rules and hooks of WebSearch
// apply to it as to any backend (the hosted tool on every ordinary round would bypass
// them). The call goes to a second instance of the session's provider with the hosted
// search enabled, opened at the first search, so the session's own rounds never carry it.
type nativeSearch struct {
	source string // the settings file that chose native, for messages
	// implicit: no settings chose a backend; without hosted search the tool then says
	// how to configure one (web.NotConfiguredMessage), and assembly warns of nothing.
	implicit bool

	mu       sync.Mutex
	name     string                       // the provider's name, for messages
	model    string                       // the session's model at assembly
	reason   string                       // why it cannot search ("" when it can)
	open     func() (llm.Provider, error) // a new instance of the session's provider
	main     llm.Provider                 // the session's own instance
	searcher llm.Provider
}

// bind ties the backend to the session's provider: it can search when the provider
// offers hosted web search.
func (n *nativeSearch) bind(p llm.Provider, model string, open func() (llm.Provider, error)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.name, n.model, n.open, n.main = p.Name(), model, open, p
	switch {
	case llm.ProviderCapabilities(p).NativeWebTools.WebSearch.Supported:
	case n.implicit:
		n.reason = strings.TrimPrefix(web.NotConfiguredMessage, web.NotAvailablePrefix)
	default:
		n.reason = fmt.Sprintf("webSearch.backend in %s is native, but provider %s has no native web search; set webSearch.backend to brave, tavily or searxng",
			n.source, p.Name())
	}
}

// warning is what assembly reports when the backend cannot search: why, for a native
// backend the settings chose; nothing for the implicit one (no settings, no warning).
func (n *nativeSearch) warning() string {
	if n.implicit {
		return ""
	}
	return n.Unavailable()
}

// Unavailable reports why the provider cannot search ("" when it can).
func (n *nativeSearch) Unavailable() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.open == nil {
		return "the session's provider is not open yet"
	}
	return n.reason
}

// Search is not used: WebSearch asks Answer (web.Answerer).
func (n *nativeSearch) Search(context.Context, web.SearchRequest) ([]web.SearchResult, error) {
	return nil, errors.New("native web search answers in prose")
}

// nativeConfigurer is a provider whose hosted web tools can be switched on
// (pkg/providers/anthropic).
type nativeConfigurer interface {
	ConfigureNativeWebTools(enable llm.NativeWebToolRequest)
}

// Answer searches with the provider's hosted tool and returns the model's answer.
func (n *nativeSearch) Answer(ctx context.Context, req web.SearchRequest) (string, error) {
	p, err := n.provider()
	if err != nil {
		return "", err
	}
	prompt := "Perform a web search for the query: " + req.Query
	if len(req.AllowedDomains) > 0 {
		prompt += "\nOnly use results from these domains: " + strings.Join(req.AllowedDomains, ", ")
	}
	if len(req.BlockedDomains) > 0 {
		prompt += "\nNever use results from these domains: " + strings.Join(req.BlockedDomains, ", ")
	}
	resp, err := p.Chat(ctx, llm.ChatRequest{Model: n.model, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: []llm.Part{llm.TextPart(nativeSearchSystem)}},
		{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart(prompt)}},
	}, NativeWebTools: &llm.NativeWebToolRequest{WebSearch: true}}, llm.Callbacks{})
	if err != nil {
		return "", fmt.Errorf("%s web search: %w", n.name, err)
	}
	text := strings.TrimSpace(resp.Message.Text())
	if text == "" {
		return "", fmt.Errorf("%s web search returned no answer", n.name)
	}
	return text, nil
}

// provider opens the search instance once.
func (n *nativeSearch) provider() (llm.Provider, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.searcher != nil {
		return n.searcher, nil
	}
	if n.open == nil {
		return nil, errors.New("the session's provider is not open yet")
	}
	p, err := n.open()
	if err != nil {
		return nil, fmt.Errorf("opening %s for web search: %w", n.name, err)
	}
	// An embedder's provider (Options.LLM) is the session's own instance: switching its
	// hosted search on would put it on every round, so it is asked per call only.
	if c, ok := p.(nativeConfigurer); ok && p != n.main {
		c.ConfigureNativeWebTools(llm.NativeWebToolRequest{WebSearch: true})
	}
	n.searcher = p
	return p, nil
}
