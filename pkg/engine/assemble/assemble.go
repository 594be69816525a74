package assemble

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/background"
	"github.com/robota-sdk/robota-go/pkg/engine/assemble/plugins"
	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/contextload"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/memory"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
	"github.com/robota-sdk/robota-go/pkg/tools/bash"
	"github.com/robota-sdk/robota-go/pkg/tools/builtin"
	"github.com/robota-sdk/robota-go/pkg/tools/mcp"
	"github.com/robota-sdk/robota-go/pkg/tools/web"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure one assembled session. Zero values mean "as the settings say".
type Options struct {
	// Cwd is the project directory (absolute). Required.
	Cwd string
	// Home is the user's home directory; empty means os.UserHomeDir.
	Home string
	// Env resolves environment variables; nil means the process environment.
	Env config.Env

	// Provider, Model and Script are --provider, --model and --script.
	Provider, Model, Script string
	// PermissionMode is --permission-mode.
	PermissionMode string
	// Allow and Deny are --allowedTools and --disallowedTools rules.
	Allow, Deny []string
	// MaxTurns is --max-turns (0: the session default).
	MaxTurns int
	// AppendSystemPrompt is --append-system-prompt.
	AppendSystemPrompt string
	// SystemPrompt, when not nil, replaces the built system prompt (--system-prompt); ""
	// means none. AppendSystemPrompt is still appended to it.
	SystemPrompt *string
	// BuiltinTools, when not nil, is the set of built-in tools offered (--tools): empty
	// offers none. A name robota does not have is a warning. Options.Tools are not affected.
	BuiltinTools []string
	// AddDirs are --add-dir directories, added to permissions.additionalDirectories.
	AddDirs []string
	// SettingSources, when not nil, limits the settings files read (--setting-sources:
	// user, project, local); empty reads none.
	SettingSources []string
	// Settings is --settings: a settings file's path (relative to Cwd) or a JSON object,
	// read as a layer above the settings files.
	Settings string
	// MaxThinkingTokens is --max-thinking-tokens: the provider type's thinking budget
	// option (registry.Definition.ThinkingBudgetOption), over the profile's; a type
	// without one gets a warning.
	MaxThinkingTokens int
	// Betas is --betas: beta feature names sent in the provider type's beta header
	// (registry.Definition.BetaHeader); a type without one gets a warning.
	Betas []string
	// FallbackModel is --fallback-model: models (comma separated, aliases resolved) a call
	// is made with when the model is overloaded or not available.
	FallbackModel string
	// NoPersistence keeps the session in memory (--no-session-persistence): no record and
	// no session log are written, so it cannot be resumed. A resumed session is read, and
	// its continuation is not saved.
	NoPersistence bool
	// SessionID is the id of the new session (--session-id): a session with this id must
	// not exist yet. With Fork it is the fork's id; with Resume or Continue alone it is an
	// ErrInvalidConfiguration.
	SessionID string
	// Name is the session's display name (-n/--name), as /rename sets it: a new session
	// gets it, a resumed one is renamed.
	Name string

	// Resume names a stored session to continue; Continue picks the newest of Cwd;
	// Fork continues either under a new session id, leaving the original untouched.
	Resume   string
	Continue bool
	Fork     bool

	// Callbacks and PermissionHandler are passed to the session. A nil handler
	// denies every call that needs approval (headless runs).
	Callbacks         session.Callbacks
	PermissionHandler session.PermissionHandler
	// OnMessage, if set, sees every message appended to the conversation.
	OnMessage func(llm.Message)
	// Runner runs the session's subagents and background commands, in robota-worker
	// processes (pkg/runner/pool) or in process (a worker.Worker). nil: neither is
	// available (the Agent tool is not offered; Bash says run_in_background is not).
	// The caller owns it and closes it after the session.
	Runner tasks.Runner
	// MaxBackgroundTasks bounds the subagents and background commands running at once
	// (0: tasks.DefaultMaxConcurrent).
	MaxBackgroundTasks int
	// TaskWatchdog bounds every subagent and background command; its zero fields take
	// background.DefaultTaskWatchdog's.
	TaskWatchdog tasks.Watchdog

	// Now and NewID make runs deterministic in tests.
	Now   func() time.Time
	NewID func() string

	// LLM is a ready provider, used as it is (Go embedders): Provider, Script and the
	// settings' provider profiles are not consulted; Model still names the model.
	LLM llm.Provider
	// Tools are offered to the model besides the built-in tools (a taken name is an
	// ErrInvalidConfiguration).
	Tools []llm.Tool
	// Interactive configures what New adds; Assemble ignores it.
	Interactive interactive.InteractiveOptions
	// Hooks are added to the settings' hooks (the Agent SDK's hooks registered at
	// initialize), run by HookExecutors, keyed by hook type, next to command and http.
	// disableAllHooks in the settings does not drop them: the embedder asked for them.
	Hooks         hook.Config
	HookExecutors map[string]hook.Executor
	// MCPConfigs are --mcp-config arguments: MCP server lists ({"mcpServers": {...}}),
	// each a file (relative to Cwd) or a JSON object, over the project's .mcp.json;
	// StrictMCPConfig ignores .mcp.json. MCPStartTimeout bounds each server's start (0:
	// MCP_TIMEOUT in ms, else 30 s). MCPSDKTransport connects "sdk" servers (the Agent
	// SDKs' in-process servers, over the control protocol); nil: they fail to start.
	MCPConfigs      []string
	StrictMCPConfig bool
	MCPStartTimeout time.Duration
	MCPSDKTransport func(name string) (sdkmcp.Transport, error)
	// Agents are agent types added by the embedder (the Agent SDK's initialize agents);
	// they win over the files' and the built-in types of the same name.
	Agents []agentdef.Definition
	// PluginDirs are plugin directories loaded for this session only (--plugin-dir),
	// besides the plugins the settings enable.
	PluginDirs []string
}

// Assembled is a ready session and what was decided while building it.
type Assembled struct {
	// commandSandbox runs the session's commands sandboxed (nil: the sandbox is off).
	commandSandbox *commandSandbox
	Session        *session.Session
	Settings       *config.Settings
	Provider       ProviderChoice
	// Tools are the tool names offered to the model.
	Tools []string
	// RecordPath and LogPath are where the session is persisted and logged; both are
	// empty with Options.NoPersistence.
	RecordPath, LogPath string
	// ResumedFrom is the stored session id the conversation came from, if any.
	ResumedFrom string
	// Warnings are non-fatal findings (unknown settings keys, project context diagnostics).
	Warnings []string
	// Sandbox says how Bash commands run: "on" (in the command sandbox), "off" (settings
	// sandbox.enabled false) or "unavailable" (the kernel cannot make it; Warnings says
	// why).
	Sandbox string
	// MCPServers are the session's MCP servers and how each started, in name order; a
	// failed one is also a warning. Their tools are in Tools.
	MCPServers []MCPServer
	// StoreWarnings are problems the session store recovered from (a torn last round
	// dropped after a crash); front ends show them always.
	StoreWarnings []string
	// Plugins are the session's plugins and how each loaded, by id; a failed one is
	// also a warning naming it.
	Plugins []PluginStatus

	logger    *sessionlog.FileLogger
	store     *store.FileStore
	tasks     *background.Runtime // nil without Options.Runner
	subagents *background.Subagents
	mcp       *mcp.Set // nil without MCP servers
	// agentCatalog is the agent definitions the Agent tool serves (nil without a runner).
	agentCatalog *agentdef.Catalog
	// skills are the session's skills and custom commands.
	skills *skills.Catalog
	// skillSpawner runs a context: fork skill the user invoked (nil: no subagents).
	skillSpawner *background.Spawner
	// memory is the project memory and the session's memory audit trail.
	memory *memory.Audit
	// plugins are the plugins that loaded.
	plugins []*plugins.Plugin
	// slash is the SlashCommand tool; New binds it to the session's commands.
	slash *slashCommandTool
	// systemFor composes the session's system prompt for a model and a response
	// language (/language); home is the user's home directory (their settings file).
	systemFor func(model, language string) string
	home      string
	// hookRunner runs the session's hooks (nil without hooks), for the events the
	// session package does not fire itself (Notification).
	hookRunner *hook.Runner
	// readDenied reports a file (its real path) the session's Read deny rules cover:
	// nothing loaded into a prompt (CLAUDE.md, memory, skills, agents) may be one.
	readDenied func(realPath string) bool
	cwd        string
	// stateRoot is the directory whose .robota receives the session's records, logs,
	// tool output and checkpoints (StateRoot).
	stateRoot string
	// userStore: the session is outside a project, and its store is the user's, shared
	// with the other such directories.
	userStore bool
}

// decorateRecord adds what the assembly owns to the session's record: the snapshots of
// its background tasks and the memory audit trail.
func (a *Assembled) decorateRecord(rec *store.Record) {
	if a.memory != nil {
		rec.MemoryEvents, rec.UsedMemoryReferences = a.memory.Snapshot()
	}
	if a.tasks != nil {
		rec.BackgroundTasks = a.tasks.RecordTasks(rec.BackgroundTasks)
		rec.BackgroundJobGroups, rec.BackgroundJobGroupEvents = a.tasks.RecordGroups(rec.BackgroundJobGroups, rec.BackgroundJobGroupEvents)
	}
}

// Tasks returns the session's background task manager; nil when the session has no
// runner (Options.Runner).
func (a *Assembled) Tasks() *tasks.BackgroundTaskManager {
	if a.tasks == nil {
		return nil
	}
	return a.tasks.Tasks
}

// ErrNoSessionToContinue is returned by --continue in a directory without sessions.
var ErrNoSessionToContinue = errors.New("no previous session in this directory")

// invalid is an interactive.ErrInvalidConfiguration naming what to fix.
func invalid(format string, args ...any) error { return interactive.Invalid(format, args...) }

// Assemble builds a session for opts.
func Assemble(ctx context.Context, opts Options) (*Assembled, error) {
	if !filepath.IsAbs(opts.Cwd) {
		return nil, invalid("working directory %q must be absolute", opts.Cwd)
	}
	if st, err := os.Stat(opts.Cwd); err != nil || !st.IsDir() {
		return nil, invalid("working directory %s: not a directory", opts.Cwd)
	}
	// Before anything is read from or written into it.
	if err := checkRobotaDir(opts.Cwd); err != nil {
		return nil, err
	}
	if opts.Fork && opts.Resume == "" && !opts.Continue {
		return nil, invalid("--fork-session needs --resume ID or --continue: there is no session to fork")
	}
	if opts.SessionID != "" && (opts.Resume != "" || opts.Continue) && !opts.Fork {
		return nil, invalid("--session-id with --resume or --continue needs --fork-session: the resumed session keeps its id")
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	if opts.Env == nil {
		opts.Env = config.OSEnv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = llm.NewID
	}
	a := &Assembled{}
	settings, err := loadSettings(opts)
	if err != nil {
		return nil, err
	}
	a.Settings = settings
	for _, w := range settings.Warnings {
		a.Warnings = append(a.Warnings, w.String())
	}
	a.loadPlugins(ctx, settings, opts)

	choice, err := providerChoice(settings, opts)
	if err != nil {
		return nil, err
	}
	if opts.MaxThinkingTokens > 0 {
		if w := choice.withThinkingBudget(opts.MaxThinkingTokens, opts.LLM != nil); w != "" {
			a.Warnings = append(a.Warnings, w)
		}
	}
	if len(opts.Betas) > 0 {
		if w := choice.withBetas(opts.Betas, opts.LLM != nil); w != "" {
			a.Warnings = append(a.Warnings, w)
		}
	}
	a.Provider = choice

	dirs := make([]string, 0, len(settings.Permissions.AdditionalDirectories))
	for _, d := range settings.Permissions.AdditionalDirectories {
		dirs = append(dirs, d.Path)
	}
	sandboxSet, sandboxWarning, err := sandboxSettingsOf(settings)
	if err != nil {
		return nil, err
	}
	var outsideSandbox func(string) bool
	if sandboxSet != nil && len(sandboxSet.ExcludedCommands) > 0 {
		excluded := sandboxSet.ExcludedCommands
		outsideSandbox = func(command string) bool { return sandbox.Excluded(excluded, command) }
	}
	evaluator, err := buildEvaluator(settings, opts.Cwd, dirs, opts.Home, sandboxSet == nil, outsideSandbox)
	if err != nil {
		return nil, err
	}
	a.readDenied = func(p string) bool {
		// A deny rule with a path (a tool-wide `Read` removes the tool, it names no file).
		_, denied := evaluator.DeniedPath("Read", p, opts.Cwd)
		return denied && evaluator.SandboxDenies("Read", p)
	}
	var isolate func(context.Context, string, []string, string, []string, string) (*exec.Cmd, error)
	var spawn func(string, []string, string, []string, string, *os.File) (bash.Process, error)
	var jobSandbox background.JobSandbox // nil: workers run commands as they are
	if sandboxSet != nil {
		home := opts.Home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		sb := newCommandSandbox(*sandboxSet, evaluator, settings.PermissionMode(), sandboxRoots(opts.Cwd, dirs), home)
		isolate, spawn, jobSandbox, a.Sandbox = sb.isolate, sb.spawn, jobPolicy{sb}, "on"
		a.commandSandbox = sb
	} else if sandboxWarning != "" {
		a.Warnings = append(a.Warnings, sandboxWarning)
		a.Sandbox = "unavailable"
	} else {
		a.Sandbox = "off"
	}
	hookRT := &hookRuntime{choice: choice}
	hooks, hookWarnings, err := buildHooks(settings, opts, hookRT, a.pluginHooks())
	if err != nil {
		return nil, err
	}
	a.Warnings = append(a.Warnings, hookWarnings...)
	a.hookRunner, a.cwd, a.home = hookRunnerOf(hooks), opts.Cwd, opts.Home
	if a.home == "" {
		a.home, _ = os.UserHomeDir()
	}
	// Where this session's records, logs, tool output and checkpoints go: the project,
	// or ~/.robota for a session started in home or the temporary directory.
	a.stateRoot = StateRoot(opts.Cwd, opts.Home)
	a.userStore = opts.Home != "" && OutsideProject(opts.Cwd, opts.Home)
	outputDir := ToolOutputDir(a.stateRoot)
	var sessionID string // known once the store is open, below
	var bg bash.BackgroundRunner
	if opts.Runner != nil {
		if a.tasks, err = background.NewRuntime(tasks.Config{RunnerFor: background.RunnerFor(opts.Runner, hookRunnerOf(hooks), func() string { return sessionID }, jobSandbox,
			jobSearchExclude(evaluator, sandboxRoots(opts.Cwd, dirs))),
			MaxConcurrent: opts.MaxBackgroundTasks, NewID: background.TaskID(opts.NewID),
			Watchdog: opts.TaskWatchdog.WithDefaults(background.DefaultTaskWatchdog)}); err != nil {
			return nil, fmt.Errorf("background tasks: %w", err)
		}
		a.tasks.LogsDir = sessionlog.ProjectDir(a.stateRoot)
		bg = background.Commands{Tasks: a.tasks.Tasks, SessionID: func() string { return sessionID }, Labels: settings.WorkerLabels}
		a.subagents = &background.Subagents{Runtime: a.tasks, Hooks: hookRunnerOf(hooks), Cwd: opts.Cwd, Dirs: dirs, Labels: settings.WorkerLabels,
			LogsDir: sessionlog.ProjectDir(a.stateRoot), NewID: opts.NewID,
			InWorktree: func(worktree, origin string) session.PermissionEvaluator {
				return evaluatorAdapter{ev: evaluator.InWorktree(worktree, origin)}
			}}
	}
	native := &nativeSearch{} // bound to the provider once it is open, below
	webSearch := webSearchBackend(settings.WebSearch, native)
	tools, _, err := builtin.New(builtin.Config{Cwd: opts.Cwd, AdditionalDirectories: dirs, Background: bg,
		Exclude: searchExclude(evaluator, opts.Cwd), ToolOutputDir: outputDir, Env: toolEnv(settings.Env), Isolate: isolate, Spawn: spawn,
		Search: webSearch})
	if err != nil {
		return nil, fmt.Errorf("built-in tools: %w", err)
	}
	var spawner *background.Spawner
	if a.subagents != nil {
		if webSearch != nil {
			for _, t := range tools {
				if t.Schema().Name == "WebSearch" {
					a.subagents.InEngine = map[string]llm.Tool{"WebSearch": t}
				}
			}
		}
		if spawner, err = a.newSpawner(settings, opts, choice, tools); err != nil {
			return nil, err
		}
		a.agentCatalog = spawner.Catalog
		set, err := background.Toolset(spawner, a.tasks.Tasks)
		if err != nil {
			return nil, fmt.Errorf("agent tools: %w", err)
		}
		tools = append(tools, set...)
	}
	// The model runs the model-invocable commands through SlashCommand (a built-in
	// tool: --tools names it); subagents do not get it.
	a.slash = newSlashCommandTool(nil)
	tools = append(tools, a.slash)
	var unknownTools []string
	tools, unknownTools = offeredBuiltins(tools, opts.BuiltinTools)
	for _, name := range unknownTools {
		a.Warnings = append(a.Warnings, fmt.Sprintf("--tools: robota has no built-in tool %q; it is not offered", name))
	}
	skillCatalog, skillTool := a.loadSkills(opts, func() string { return sessionID }, spawner)
	a.skills, a.skillSpawner, a.slash.skill = skillCatalog, spawner, skillTool
	if skillTool != nil {
		tools = append(tools, skillTool)
	}
	if tools, err = withTools(tools, opts.Tools); err != nil {
		return nil, err
	}
	for _, t := range tools {
		a.Tools = append(a.Tools, t.Schema().Name)
	}
	mcpServers, mcpWarnings, err := loadMCP(opts, settings)
	a.Warnings = append(a.Warnings, mcpWarnings...)
	if err != nil {
		return nil, err
	}
	mcpServers = a.withPluginServers(mcpServers)

	projectCtx, err := contextload.Load(contextload.Options{Cwd: opts.Cwd, Home: opts.Home,
		Denied: a.readDenied})
	if err != nil {
		return nil, fmt.Errorf("project context: %w", err)
	}
	for _, d := range projectCtx.Diagnostics {
		a.Warnings = append(a.Warnings, fmt.Sprint(d))
	}
	if spawner != nil {
		spawner.ClaudeMD, spawner.AgentsMD = instructions(projectCtx)
	}
	// systemFor composes the system prompt; /language composes it again for a new
	// response language (and the model the session has then).
	permissionMode := settings.PermissionMode()
	systemFor := func(model, language string) string {
		system := contextload.BuildSystemPrompt(contextload.PromptInput{
			Context: projectCtx, Model: model, Language: language,
			PermissionMode: permissionMode, AdditionalDirectories: dirs, Now: opts.Now,
		})
		if opts.SystemPrompt != nil {
			system = *opts.SystemPrompt
		}
		if block := skills.SystemPromptBlock(skillCatalog.ModelVisible()); block != "" && skillTool != nil && (opts.SystemPrompt == nil || *opts.SystemPrompt != "") {
			if system != "" {
				system += "\n\n"
			}
			system += block
		}
		if opts.AppendSystemPrompt != "" && system != "" {
			system += "\n\n" + opts.AppendSystemPrompt
		} else if opts.AppendSystemPrompt != "" {
			system = opts.AppendSystemPrompt
		}
		return system
	}
	system := systemFor(choice.Model, settings.Language)
	a.systemFor = systemFor

	if err := ensureRuntimeGitignore(a.stateRoot); err != nil {
		a.Warnings = append(a.Warnings, err.Error())
	}
	var warnMu sync.Mutex
	st := store.NewFileStore(store.ProjectDir(a.stateRoot), store.Options{Now: opts.Now, OnWarning: func(err error) {
		warnMu.Lock()
		a.StoreWarnings = append(a.StoreWarnings, err.Error())
		warnMu.Unlock()
	}})
	a.store = st
	resume, err := findResume(ctx, st, opts)
	if err != nil {
		return nil, err
	}
	id := opts.NewID()
	if opts.SessionID != "" {
		if err := newSessionID(ctx, st, opts.SessionID); err != nil {
			return nil, err
		}
		id = opts.SessionID
	}
	if resume != nil {
		a.ResumedFrom = resume.ID
		if !opts.Fork {
			id = resume.ID
		} else if resume, err = forkRecord(ctx, st, resume.ID, id); err != nil {
			return nil, err
		}
	}
	sessionID = id
	if resume != nil && a.tasks != nil {
		a.tasks.RestoredGroups = background.RestoreGroups(resume.BackgroundJobGroups)
	}
	var memEvents, memRefs []json.RawMessage
	if resume != nil {
		memEvents, memRefs = resume.MemoryEvents, resume.UsedMemoryReferences
	}
	a.memory = memory.NewAudit(opts.Cwd, memEvents, memRefs, opts.Now, opts.NewID)
	var sessionStore store.Store = st
	var sessionLog session.Logger // stays nil (no log) without persistence
	if opts.NoPersistence {
		// Nothing of this session is written: the record lives in memory and ends with it.
		sessionStore = store.NewMemoryStore(store.Options{Now: opts.Now})
		if resume != nil {
			if err := sessionStore.Save(ctx, resume); err != nil {
				return nil, fmt.Errorf("--no-session-persistence: %w", err)
			}
		}
	} else {
		level, err := sessionlog.ParseLevel(a.Settings.SessionLogLevel) // the settings' schema checked it
		if err != nil {
			return nil, err
		}
		logger, err := sessionlog.Open(sessionlog.ProjectDir(a.stateRoot), id,
			sessionlog.Options{Now: opts.Now, Background: true, Level: level})
		if err != nil {
			return nil, fmt.Errorf("session log: %w", err)
		}
		a.logger, sessionLog, a.LogPath = logger, logger, logger.Path()
		a.memory.SetLog(logger.Log)
		if a.RecordPath, err = st.Path(id); err != nil {
			logger.Close()
			return nil, err
		}
	}
	if a.subagents != nil {
		a.subagents.TranscriptPath = a.LogPath // the transcript_path of SubagentStart/SubagentStop
	}
	closeLog := func() {
		if a.logger != nil {
			a.logger.Close()
		}
	}

	provider, err := openProvider(&choice, opts)
	if err == nil && webSearch == web.SearchBackend(native) {
		native.bind(provider, choice.Model, func() (llm.Provider, error) { return openProvider(&choice, opts) })
		if reason := native.warning(); reason != "" {
			a.Warnings = append(a.Warnings, reason)
		}
	}
	if err == nil && opts.FallbackModel != "" {
		provider, err = withFallback(provider, choice, opts.FallbackModel)
	}
	if err != nil {
		closeLog()
		return nil, err
	}
	hookRT.bind(provider, choice, a.subagents)
	if ha, ok := hooks.(hookAdapter); ok && sessionLog != nil {
		ha.errs.set(sessionLog)
	}
	// Started last, so no failure of the assembly leaves a server process behind but
	// session.New's, which closes them.
	tools = a.connectMCP(ctx, mcpServers, opts, settings.Env, tools)
	sess, err := session.New(ctx, session.Config{
		Provider: provider, Model: choice.Model, Tools: tools, SystemMessage: system, Cwd: opts.Cwd,
		SessionID: id, Resume: resume, ProviderTimeout: choice.Timeout, MaxTurns: opts.MaxTurns, ContextWindow: choice.ContextWindow,
		ToolOutputDir:       outputDir,
		CompactInstructions: projectCtx.CompactInstructions, Callbacks: opts.Callbacks,
		PermissionMode: session.PermissionMode(settings.PermissionMode()), Evaluator: evaluatorAdapter{ev: evaluator, slash: a.slash},
		PermissionHandler: opts.PermissionHandler, Hooks: hooks, Store: sessionStore,
		Logger: interactive.TeeLogger{Next: sessionLog, OnMessage: opts.OnMessage}, TranscriptPath: a.LogPath,
		DecorateRecord: a.decorateRecord,
		Now:            opts.Now, NewID: opts.NewID,
	})
	if err != nil {
		closeLog()
		a.closeMCP()
		return nil, err
	}
	a.Session = sess
	if a.subagents != nil {
		a.subagents.Bind(sess)
	}
	return a, nil
}

// ToolOutputDir is where the whole text of a truncated tool result of a session whose
// state root (StateRoot) is root is saved: .robota/tool-output, inside the project, so a
// following Read of it is a read inside the working directory, allowed in every permission
// mode (and kept out of git by .robota/.gitignore). A session started in the temporary
// directory saves it under ~/.robota instead, outside its working directory.
func ToolOutputDir(cwd string) string { return filepath.Join(cwd, ".robota", "tool-output") }

// SyncLog waits until every event logged so far is in the session log (the log is
// written in the background, off the turn's path) and flushes it to stable storage. A
// reader of a live session's log calls it first; nil without a log.
func (a *Assembled) SyncLog() error {
	if a.logger == nil {
		return nil
	}
	return a.logger.Sync()
}

// Close shuts the session down (persisting it and firing SessionEnd) and closes its log.
func (a *Assembled) Close(ctx context.Context, reason string) error {
	var err error
	if a.tasks != nil {
		// Subagents and background commands end with the session (their terminal states
		// are part of what is saved).
		err = a.tasks.Shutdown(ctx)
	}
	if serr := a.Session.Shutdown(ctx, reason); err == nil {
		err = serr
	}
	// After SessionEnd: its hooks may still expect the servers. A server that exits
	// badly when told to stop loses nothing of the session, so it is no error here.
	a.closeMCP()
	if a.commandSandbox != nil {
		a.commandSandbox.close()
	}
	if a.logger != nil {
		if cerr := a.logger.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := a.store.Close(); err == nil {
		err = cerr
	}
	return err
}

func loadSettings(opts Options) (*config.Settings, error) {
	loader := config.NewLoader(opts.Cwd)
	loader.Home, loader.Env, loader.Sources = opts.Home, opts.Env, opts.SettingSources
	if opts.Settings != "" {
		extra, err := flagSettings(opts.Settings, opts.Cwd)
		if err != nil {
			return nil, err
		}
		loader.Extra = &extra
	}
	settings, err := loader.Load()
	if err != nil {
		return nil, err
	}
	return settings.WithOverrides(config.Overrides{
		Provider: opts.Provider, Model: opts.Model, PermissionMode: opts.PermissionMode,
		Allow: opts.Allow, Deny: opts.Deny, AdditionalDirectories: opts.AddDirs,
	})
}

func buildEvaluator(settings *config.Settings, cwd string, dirs []string, home string, noSandbox bool,
	outsideSandbox func(string) bool) (*permission.Evaluator, error) {
	var layers []permission.Layer
	for _, l := range settings.Permissions.ByLayer() {
		layers = append(layers, permission.Layer{
			Source: permission.Source{Name: l.Source.Display, Root: l.Source.Root},
			Allow:  l.Allow, Ask: l.Ask, Deny: l.Deny,
		})
	}
	rules, err := permission.Rules(layers...)
	if err != nil {
		for _, l := range layers { // name the file (or the command line) the bad rule is in
			if _, lerr := permission.Rules(l); lerr != nil {
				return nil, invalid("permission rules in %s: %w", l.Source.Name, lerr)
			}
		}
		return nil, invalid("permission rules: %w", err)
	}
	mode, err := permission.ParseMode(settings.PermissionMode())
	if err != nil {
		return nil, invalid("permission mode: %w", err)
	}
	return permission.New(permission.Config{Mode: mode, Rules: rules, ProjectRoot: cwd, AdditionalDirs: dirs, Home: home,
		NoSandbox: noSandbox, OutsideSandbox: outsideSandbox}), nil
}

// searchExclude is the search tools' path filter. A call is checked at the path it names;
// Grep and Glob then walk below it, so they ask the deny rules about every file and
// directory too (Read rules cover them, and rules may name either tool). DeniedPath costs a
// few system calls per path, so a tool without any deny rule skips it: DeniedPath denies
// a path it cannot place (the empty one) under every deny rule of the tool, which tells
// whether there is one. nil when neither tool has one; any other tool always asks.
func searchExclude(ev *permission.Evaluator, cwd string) func(tool, absPath string) bool {
	unruled := map[string]bool{}
	for _, tool := range []string{"Grep", "Glob"} {
		if _, ruled := ev.DeniedPath(tool, "", cwd); !ruled {
			unruled[tool] = true
		}
	}
	if len(unruled) == 2 {
		return nil
	}
	return func(tool, p string) bool {
		if unruled[tool] {
			return false
		}
		_, denied := ev.DeniedPath(tool, p, cwd)
		return denied
	}
}

// buildHooks returns nil when no hook is configured, so sessions skip the work. A hook
// that cannot be read or cannot run is a configuration error naming its file and key:
// running without it would silently drop a guard the user relies on. Hooks of Claude
// Code's events this engine does not fire are a warning each (they never run). rt runs
// the prompt hooks, and the agent hooks when the session has a runner for subagents.
// Plugin hooks (already checked by the plugin loader) run after the settings' ones;
// disableAllHooks turns them off too.
func buildHooks(settings *config.Settings, opts Options, rt *hookRuntime, pluginHooks hook.Config) (session.HookRunner, []string, error) {
	executors := rt.executors(opts.Runner != nil)
	if settings.DisableAllHooks || pluginHooks == nil {
		pluginHooks = hook.Config{}
	}
	if settings.DisableAllHooks || len(settings.Hooks) == 0 {
		if len(opts.Hooks) == 0 && len(pluginHooks) == 0 {
			return nil, nil, nil
		}
		return newHookAdapter(pluginHooks, settings, opts, executors), nil, nil
	}
	var errs []error
	var warnings []string
	fired := config.Hooks{}
	for _, event := range slices.Sorted(maps.Keys(settings.Hooks)) {
		groups := settings.Hooks[event]
		files := map[string]bool{}
		for _, g := range groups {
			files[g.Source.Display] = true
		}
		where := strings.Join(slices.Sorted(maps.Keys(files)), ", ")
		if slices.Contains(hook.ClaudeCodeOnlyEvents, event) {
			warnings = append(warnings, fmt.Sprintf("hooks.%s in %s: robota does not fire %s, so these hooks never run", event, where, event))
			continue
		}
		if _, err := hook.ParseEvent(event); err != nil {
			errs = append(errs, invalid("hooks.%s in %s: %w", event, where, err))
			continue
		}
		fired[event] = groups
		for _, g := range groups { // one at a time, so the error names the group's file
			one, _ := json.Marshal(map[string][]config.HookGroup{event: {g}})
			if _, err := hook.ParseConfig(one); err != nil {
				errs = append(errs, invalid("hooks.%s (matcher %q) in %s: %w", event, g.Matcher, g.Source.Display, err))
				continue
			}
			for i, h := range g.Hooks {
				if h.If != "" {
					if _, err := permission.NewRule(permission.Deny, h.If, permission.Source{Name: "hook if"}); err != nil {
						errs = append(errs, invalid("hooks.%s (matcher %q) hook %d in %s: if: %w", event, g.Matcher, i, g.Source.Display, err))
					}
				}
				if h.Model != "" && (h.Type == "prompt" || h.Type == "agent") {
					if _, err := rt.resolve(h.Model); err != nil {
						errs = append(errs, invalid("hooks.%s (matcher %q) hook %d in %s: %w", event, g.Matcher, i, g.Source.Display, err))
					}
				}
				if _, ok := executors[h.Type]; ok || h.Type == "command" || h.Type == "http" || opts.HookExecutors[h.Type] != nil {
					continue
				}
				why := fmt.Sprintf("robota has no executor for %s hooks", h.Type)
				if h.Type == "agent" {
					why = "an agent hook needs subagents, and this session has no runner for them (robota-worker)"
				}
				errs = append(errs, invalid("hooks.%s (matcher %q) hook %d in %s: %s", event, g.Matcher, i, g.Source.Display, why))
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	cfg, err := hook.ParseConfig(fired.JSON())
	if err != nil { // every group parsed on its own above
		return nil, nil, invalid("hooks: %w", err)
	}
	return newHookAdapter(hook.Merge(cfg, pluginHooks), settings, opts, executors), warnings, nil
}

// newHookAdapter runs cfg plus opts.Hooks. Hooks see the settings `env` too: command
// hooks in their environment, http hooks in the variables their allowedEnvVars may expand.
// executors (prompt, agent) come before opts.HookExecutors, which may replace them.
func newHookAdapter(cfg hook.Config, settings *config.Settings, opts Options, executors map[string]hook.Executor) hookAdapter {
	for event, groups := range opts.Hooks {
		cfg[event] = append(cfg[event], groups...)
	}
	filter := &hookIfFilter{cwd: opts.Cwd, home: opts.Home}
	xs := []hook.Option{
		hook.WithFilter(filter.match),
		hook.WithExecutor("command", &hook.CommandExecutor{ProjectDir: opts.Cwd, Base: toolEnv(nil), Env: settingsEnv(settings.Env)}),
		hook.WithExecutor("http", &hook.HTTPExecutor{LookupEnv: lookupWithSettings(settings.Env)}),
	}
	for _, typ := range slices.Sorted(maps.Keys(executors)) {
		xs = append(xs, hook.WithExecutor(typ, executors[typ]))
	}
	for typ, x := range opts.HookExecutors {
		xs = append(xs, hook.WithExecutor(typ, x))
	}
	return hookAdapter{r: hook.NewRunner(cfg, opts.Cwd, xs...), errs: &hookErrorLog{}}
}

// forkRecord copies the record id under newID (--fork-session), leaving the original
// untouched, and returns the copy the new session continues.
func forkRecord(ctx context.Context, st store.Store, id, newID string) (*store.Record, error) {
	rec, err := store.Fork(ctx, st, id, newID)
	if err != nil {
		return nil, fmt.Errorf("--fork-session: %w", err)
	}
	return &rec, nil
}

// ErrCorruptSession is returned when the session to resume or continue cannot be read:
// the message names the file and what to do. robota -p exits 1 on it.
var ErrCorruptSession = errors.New("session record is corrupt")

func findResume(ctx context.Context, st *store.FileStore, opts Options) (*store.Record, error) {
	switch {
	case opts.Resume != "":
		id, err := ResolveSession(ctx, st, opts.Resume)
		var rec *store.Record
		if err == nil {
			rec, err = loadRecord(ctx, st, id)
		}
		if errors.Is(err, ErrUnknownSession) || errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("--resume %s: %w; sessions are in %s", opts.Resume, err, st.Dir())
		}
		if errors.Is(err, ErrAmbiguousSession) {
			return nil, fmt.Errorf("--resume %s: %w", opts.Resume, err)
		}
		if ce := (*store.CorruptError)(nil); errors.As(err, &ce) {
			return nil, fmt.Errorf("--resume %s: %w: %s cannot be read (%w); move it out of %s, or resume another session",
				opts.Resume, ErrCorruptSession, ce.Path, ce.Err, st.Dir())
		}
		return rec, err
	case opts.Continue:
		// A corrupt newest record is an error, never a reason to continue an older session.
		latest, err := store.LatestForCwd(ctx, st, opts.Cwd)
		var rec *store.Record
		if err == nil {
			rec, err = loadRecord(ctx, st, latest.ID)
		}
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("--continue: %w (%s)", ErrNoSessionToContinue, st.Dir())
		}
		if ce := (*store.CorruptError)(nil); errors.As(err, &ce) {
			return nil, fmt.Errorf("--continue: %w: the newest session record %s cannot be read (%w); "+
				"move it out of %s to continue the session before it, or pick one with --resume ID",
				ErrCorruptSession, ce.Path, ce.Err, st.Dir())
		}
		return rec, err
	}
	return nil, nil
}
