package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/pool"
)

// maxInputLine bounds one stream-json input line (a user message with pasted files or
// images): a longer line is skipped unparsed, with an error result and a non-zero exit.
const maxInputLine = 16 << 20

// checkInputFlags validates --input-format and the flags that only make sense with it.
func checkInputFlags(o Options) error {
	switch o.InputFormat {
	case "", "text":
		if o.PermissionPromptTool != "" {
			return errors.New("--permission-prompt-tool needs --input-format stream-json: the answers come on stdin")
		}
	case "stream-json":
		if o.OutputFormat != "stream-json" {
			return errors.New("--input-format stream-json needs --output-format stream-json")
		}
		if o.Engine != "" {
			return errors.New("--input-format stream-json cannot run in an engine (--engine) yet")
		}
	default:
		return fmt.Errorf("--input-format %q: want text or stream-json", o.InputFormat)
	}
	if o.PermissionPromptTool != "" && o.PermissionPromptTool != "stdio" {
		return fmt.Errorf("--permission-prompt-tool %q: robota asks the client over stdio only (--permission-prompt-tool stdio)",
			o.PermissionPromptTool)
	}
	return nil
}

// inputLine is one line of stream-json input.
type inputLine struct {
	Type      string           `json:"type"`
	Message   json.RawMessage  `json:"message"`
	RequestID string           `json:"request_id"`
	Request   json.RawMessage  `json:"request"`
	Response  *controlResponse `json:"response"`
}

// initializeRequest is what robota reads of initialize.
type initializeRequest struct {
	Hooks              map[string][]sdkHookMatcher `json:"hooks"`
	SystemPrompt       json.RawMessage             `json:"systemPrompt"`
	AppendSystemPrompt string                      `json:"appendSystemPrompt"`
	Agents             map[string]sdkAgent         `json:"agents"`
	SDKMCPServers      []string                    `json:"sdkMcpServers"`
}

// sdkAgent is one of initialize's agents (the SDK's AgentDefinition).
type sdkAgent struct {
	Description     string   `json:"description"`
	Prompt          string   `json:"prompt"`
	Tools           []string `json:"tools"`
	DisallowedTools []string `json:"disallowedTools"`
	Model           string   `json:"model"`
	MaxTurns        int      `json:"maxTurns"`
}

// sdkAgents turns initialize's agents into agent types, sorted by name.
func sdkAgents(agents map[string]sdkAgent) []agentdef.Definition {
	out := make([]agentdef.Definition, 0, len(agents))
	for _, name := range slices.Sorted(maps.Keys(agents)) {
		a := agents[name]
		out = append(out, agentdef.Definition{Name: name, Description: a.Description, SystemPrompt: a.Prompt,
			Tools: a.Tools, DisallowedTools: a.DisallowedTools, Model: a.Model, MaxTurns: a.MaxTurns, Source: "sdk"})
	}
	return out
}

// mergeAgents returns base with over added, an agent of over replacing base's of the
// same name.
func mergeAgents(base, over []agentdef.Definition) []agentdef.Definition {
	out := slices.DeleteFunc(slices.Clone(base), func(d agentdef.Definition) bool {
		return slices.ContainsFunc(over, func(o agentdef.Definition) bool { return o.Name == d.Name })
	})
	return append(out, over...)
}

// inbound is a user message or an initialize request, in the order read: the turns and
// the session's creation are done one after the other by the run's loop.
type inbound struct {
	requestID string             // initialize
	init      *initializeRequest // initialize
	message   json.RawMessage    // a user message
}

// streamRun is one `robota --input-format stream-json` process: one session, a turn for
// each user message read, control requests answered as they come.
type streamRun struct {
	o      Options
	cwd    string
	out    *output.Writer
	ctl    *controller
	mcp    *sdkMCPServers // the client's SDK MCP servers
	stderr io.Writer
	newID  func() string

	mu    sync.Mutex
	sess  *interactive.InteractiveSession
	queue []inbound
	wake  chan struct{}
	inEOF bool
	// inputRefused: an input line was refused (over the line limit); the exit status
	// is then non-zero.
	inputRefused bool
	stopped      bool
}

// runStreamJSON runs Claude Code's stream-json input mode (the Agent SDKs' transport):
// user messages and control requests are read from stdin line by line, each user message
// runs as a turn of the same session and ends with its result line, until stdin closes.
func runStreamJSON(ctx context.Context, o Options, stdin io.Reader, stdout, stderr io.Writer) int {
	cwd, err := resolveCwd(o.Cwd)
	if err != nil {
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return exitConfig
	}
	out := output.New(stdout, output.FormatStreamJSON, llm.NewID)
	ctl := newController(out, llm.NewID)
	r := &streamRun{o: o, cwd: cwd, out: out, ctl: ctl, mcp: newSDKMCPServers(ctl), stderr: stderr,
		newID: llm.NewID, wake: make(chan struct{}, 1)}
	workers := pool.New(pool.Launcher(nil, nil))
	defer workers.Close()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	var caught os.Signal
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-finished:
		case sig := <-sigs:
			r.mu.Lock()
			caught, r.stopped = sig, true
			s := r.sess
			r.mu.Unlock()
			if s != nil {
				s.Abort()
			}
			r.notify()
		case <-ctx.Done():
		}
	}()
	if strings.TrimSpace(o.Prompt) != "" {
		// A prompt given with -p is the first user message, before those on stdin.
		msg, _ := json.Marshal(map[string]string{"role": "user", "content": o.Prompt})
		r.enqueue(inbound{message: msg})
	}
	go r.read(stdin)

	status := r.loop(ctx, workers)
	r.mu.Lock()
	s, sig := r.sess, caught
	r.mu.Unlock()
	if s != nil {
		if err := s.Close(context.Background(), "other"); err != nil {
			fmt.Fprintf(stderr, "robota: saving session %s: %v\n", s.ID(), err)
			if status == exitOK {
				status = exitFailed
			}
		}
		for _, w := range assemble.Of(s).StoreWarnings {
			fmt.Fprintf(stderr, "robota: warning: %s\n", w)
		}
	}
	if sig != nil {
		if s != nil {
			fmt.Fprintf(stderr, "robota: interrupted (%v); session %s saved (resume with --resume %s)\n", sig, s.ID(), s.ID())
		}
		return signalExit(sig)
	}
	return status
}

func (r *streamRun) notify() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// next waits for the next user message or initialize; ok is false at the end of the
// input or after a stop signal.
func (r *streamRun) next() (in inbound, ok bool) {
	for {
		r.mu.Lock()
		switch {
		case r.stopped:
			r.mu.Unlock()
			return inbound{}, false
		case len(r.queue) > 0:
			in, r.queue = r.queue[0], r.queue[1:]
			r.mu.Unlock()
			return in, true
		case r.inEOF:
			r.mu.Unlock()
			return inbound{}, false
		}
		r.mu.Unlock()
		<-r.wake
	}
}

func (r *streamRun) enqueue(in inbound) {
	r.mu.Lock()
	r.queue = append(r.queue, in)
	r.mu.Unlock()
	r.notify()
}

// loop runs the turns; it returns the exit status (0 unless the session could not be
// made: the turns' failures are in their result lines).
func (r *streamRun) loop(ctx context.Context, workers *pool.Pool) int {
	for {
		in, ok := r.next()
		if !ok {
			r.mu.Lock()
			refused := r.inputRefused
			r.mu.Unlock()
			if refused {
				return exitFailed
			}
			return exitOK
		}
		if in.init != nil {
			if status, ok := r.initialize(ctx, workers, in); !ok {
				return status
			}
			continue
		}
		s, status := r.ensureSession(ctx, workers, nil)
		if s == nil {
			return status
		}
		r.turn(s, in.message)
	}
}

// initialize creates the session with what the client registered and answers.
func (r *streamRun) initialize(ctx context.Context, workers *pool.Pool, in inbound) (int, bool) {
	r.mu.Lock()
	made := r.sess != nil
	r.mu.Unlock()
	if made {
		r.ctl.respondError(in.requestID, errors.New("already initialized"))
		return exitOK, true
	}
	s, status := r.ensureSession(ctx, workers, in.init)
	if s == nil {
		r.ctl.respondError(in.requestID, fmt.Errorf("the session could not be started (exit status %d; see stderr)", status))
		return status, false
	}
	a := assemble.Of(s)
	model := a.Provider.Model
	l := s.Listing()
	r.ctl.respond(in.requestID, map[string]any{
		"commands": nonNilList(l.Commands), "agents": nonNilList(l.AgentTypes), "output_style": l.OutputStyle,
		"available_output_styles": slices.Compact([]string{interactive.DefaultOutputStyle, l.OutputStyle}),
		"models": []map[string]string{{"value": model, "resolvedModel": model, "displayName": model,
			"description": fmt.Sprintf("%s (provider %s)", model, a.Provider.Type)}},
		"account": map[string]any{}, "pid": os.Getpid(),
	})
	return exitOK, true
}

// ensureSession returns the run's session, creating it on first use (init may add the
// client's hooks and prompt text). A session that cannot be made is reported on stderr.
func (r *streamRun) ensureSession(ctx context.Context, workers *pool.Pool, init *initializeRequest) (*interactive.InteractiveSession, int) {
	r.mu.Lock()
	if r.sess != nil {
		defer r.mu.Unlock()
		return r.sess, exitOK
	}
	o := r.o // set_model and set_permission_mode before the session apply here
	r.mu.Unlock()
	opts := sessionOptions(o, r.cwd, workers)
	// Without --permission-prompt-tool stdio nobody is asked: as in -p, the call is
	// denied and listed in permission_denials.
	opts.Interactive = interactive.InteractiveOptions{NoPrompt: o.PermissionPromptTool != "stdio", Delivery: headlessDelivery}
	opts.MCPSDKTransport = r.mcp.transport
	if init != nil {
		if init.AppendSystemPrompt != "" {
			opts.AppendSystemPrompt = strings.TrimSpace(opts.AppendSystemPrompt + "\n\n" + init.AppendSystemPrompt)
		}
		if len(init.Hooks) > 0 {
			cfg, err := sdkHooks(init.Hooks)
			if err != nil {
				fmt.Fprintf(r.stderr, "robota: initialize: %v\n", err)
				return nil, exitConfig
			}
			opts.Hooks = cfg
			opts.HookExecutors = map[string]hook.Executor{sdkHookType: hookCallbackExecutor{c: r.ctl}}
		}
		if text, set := initSystemPrompt(init.SystemPrompt); set && text != "" && opts.SystemPrompt == nil {
			// The SDKs send [""] by default (no Claude Code prompt): robota keeps its own
			// then; --system-prompt wins over initialize's.
			opts.SystemPrompt = &text
		}
		// initialize's agents join --agents'; on a name given twice initialize's wins.
		opts.Agents = mergeAgents(opts.Agents, sdkAgents(init.Agents))
		for _, name := range init.SDKMCPServers { // also when --mcp-config does not name them
			cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{name: map[string]string{"type": "sdk"}}})
			opts.MCPConfigs = append(opts.MCPConfigs, string(cfg))
		}
	}
	s, err := assemble.New(ctx, opts)
	if err != nil {
		return nil, reportSetupError(err, r.stderr)
	}
	a := assemble.Of(s)
	printWarnings(r.stderr, a, o.Verbose)
	r.mu.Lock()
	r.sess = s
	stopped := r.stopped
	r.mu.Unlock()
	if stopped { // a signal came while the session was being made
		s.Abort()
	}
	r.out.SetSessionID(s.Session().ID())
	return s, exitOK
}

// writeInit writes system/init as a turn starts, as Claude Code does for every user
// message it reads, with the session's model and mode at that moment.
func (r *streamRun) writeInit(s *interactive.InteractiveSession) {
	a, sess := assemble.Of(s), s.Session()
	r.out.Init(withListing(output.Init{SessionID: sess.ID(), Cwd: r.cwd, Model: sess.Model(), Tools: a.Tools,
		PermissionMode: string(sess.PermissionMode()), APIKeySource: a.Provider.APIKeySource,
		MCPServers: initMCPServers(a), Plugins: initPlugins(a), Sandbox: a.Sandbox}, s))
}

// initSystemPrompt reads initialize's systemPrompt: a string or an array of strings
// (joined by blank lines); set is false when it is absent or null.
func initSystemPrompt(raw json.RawMessage) (text string, set bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []string
	if json.Unmarshal(raw, &parts) == nil {
		return strings.Join(parts, "\n\n"), true
	}
	return "", false
}

// promptText is the text of a user message: its string content, or its text blocks
// joined by blank lines.
func promptText(message json.RawMessage) (string, error) {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(message, &m); err != nil {
		return "", fmt.Errorf("user message: %w", err)
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return "", fmt.Errorf("user message content: want a string or content blocks: %w", err)
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n\n"), nil
}

// turn runs one user message and writes its result line.
func (r *streamRun) turn(s *interactive.InteractiveSession, message json.RawMessage) {
	start := time.Now()
	r.writeInit(s)
	if r.o.ReplayUserMessages {
		r.out.ReplayUser(message)
	}
	// The session's model now: set_model may have changed it since the session started.
	res := output.Result{Subtype: output.SubtypeErrorDuringExecution, IsError: true, Model: s.Session().Model()}
	prompt, err := promptText(message)
	if err == nil && strings.TrimSpace(prompt) == "" {
		err = errors.New("the user message has no text")
	}
	if err == nil {
		if cmd, ok := slashResult(context.Background(), s, r.cwd, &prompt, r.out); ok {
			res = cmd
		} else if end, ferr := r.follow(s, prompt); ferr != nil {
			err = ferr
		} else {
			res = resultOf(s.Session(), end.Response, end.Err, r.o.MaxTurns)
			res.Model = s.Session().Model()
		}
	}
	if err != nil {
		res.Errors = []string{err.Error()}
	}
	res.DurationMS = time.Since(start).Milliseconds()
	if err := r.out.Result(res); err != nil {
		fmt.Fprintf(r.stderr, "robota: write output: %v\n", err)
	}
}

// follow submits prompt and renders its events until its end event: messages as in -p,
// deltas as stream events (--include-partial-messages), and permission requests sent to
// the client (--permission-prompt-tool stdio).
func (r *streamRun) follow(s *interactive.InteractiveSession, prompt string) (*interactive.Result, error) {
	sub := s.SubscribeWith(stdoutDelivery) // before Submit: no event of the prompt is missed
	defer sub.Close()
	sent, err := s.Submit(prompt)
	if err != nil {
		return nil, fmt.Errorf("submit the prompt: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // questions still out when the turn ends are cancelled on the wire
	p := eventPrinter{out: r.out, verbose: r.o.Verbose, stderr: r.stderr,
		partial: newPartialStream(r.o, r.out, s.Session().Model(), r.newID)}
	for {
		ev, err := sub.Next(context.Background())
		if err != nil {
			return nil, fmt.Errorf("follow the session's events: %w", err)
		}
		if ev.Type == interactive.EventPermissionRequest {
			go r.askClient(ctx, s, *ev.Permission)
		}
		if ev.PromptID == sent.PromptID || ev.Type != interactive.EventTextDelta && ev.Type != interactive.EventThinkingDelta {
			p.print(ev)
		}
		switch ev.Type {
		case interactive.EventComplete, interactive.EventError, interactive.EventInterrupted:
			if ev.PromptID == sent.PromptID {
				return ev.Result, nil
			}
		}
	}
}

// nonNilList is list, or an empty list for nil: a client reads [] where it expects a list.
func nonNilList[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
