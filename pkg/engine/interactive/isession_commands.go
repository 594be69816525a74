package interactive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// permissionModes are the modes /mode accepts (Claude Code's names).
var permissionModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

// ExecuteCommand runs the slash command name (with or without its "/") with args. An
// unknown name fails with commands.ErrUnknownCommand; a command that cannot do what was
// asked returns a Result with Success false. clear, compact, reset and model refuse while
// a prompt runs.
func (s *InteractiveSession) ExecuteCommand(ctx context.Context, name, args string) (commands.Result, error) {
	return s.registry().Execute(ctx, name, args)
}

// ListCommands lists the commands whose name starts with prefix.
func (s *InteractiveSession) ListCommands(prefix string) []commands.Command {
	return s.registry().List(prefix)
}

// CommandSources are the extra sources (skills, plugins) after the built-ins; set before
// the session is used.
func (s *InteractiveSession) AddCommandSource(src commands.Source) {
	s.cmdMu.Lock()
	s.cmdSources = append(s.cmdSources, src)
	s.cmdMu.Unlock()
}

func (s *InteractiveSession) registry() *commands.Registry {
	s.cmdMu.Lock()
	defer s.cmdMu.Unlock()
	r := commands.NewRegistry(commands.Static{SourceName: "builtin", List: s.builtins()})
	for _, src := range s.cmdSources {
		r.Add(src)
	}
	return r
}

func ok(msg string, data map[string]any) commands.Result {
	return commands.Result{Message: msg, Success: true, Data: data}
}

func fail(msg string, data map[string]any) commands.Result {
	return commands.Result{Message: msg, Success: false, Data: data}
}

// busy refuses a command that changes the conversation or model while a prompt runs.
func (s *InteractiveSession) busy(name string) (commands.Result, bool) {
	if s.IsRunning() {
		return fail(fmt.Sprintf("/%s is not available while a prompt is running; wait for it to finish or abort it", name),
			map[string]any{"reason": "prompt_running"}), true
	}
	return commands.Result{}, false
}

// builtinCommands are the built-in commands without their handlers: what they are,
// who may run them and what running them may do. Only /memory is model-invocable (the
// spec's "model-invocable built-ins"); the rest change or show the user's session.
var builtinCommands = []commands.Command{
	{Name: "help", Description: "List the available commands", Safety: commands.SafetyReadOnly},
	{Name: "clear", Description: "Start a new conversation", Safety: commands.SafetyWrite},
	{Name: "compact", Description: "Compact the conversation", ArgumentHint: "[instructions]", Safety: commands.SafetyWrite},
	{Name: "mode", Description: "Show or set the permission mode", ArgumentHint: "[mode]", Subcommands: permissionModes,
		Safety: commands.SafetyWrite, SafetyFor: showsWithoutArgs},
	{Name: "model", Description: "Show or set the model", ArgumentHint: "[model]", Subcommands: []string{"default", "sonnet", "opus", "haiku"},
		Safety: commands.SafetyWrite, SafetyFor: showsWithoutArgs},
	{Name: "language", Description: "Show or set the response language (saved in the user's settings)", ArgumentHint: "[language]",
		Subcommands: languageChoices, Safety: commands.SafetyWrite, SafetyFor: showsWithoutArgs},
	{Name: "cost", Description: "Show the session's id, message count and token usage", Safety: commands.SafetyReadOnly},
	{Name: "context", Description: "Show the context window state", Safety: commands.SafetyReadOnly},
	{Name: "permissions", Description: "Show the permission rules", Safety: commands.SafetyReadOnly},
	{Name: "memory", Description: "Project memory: list, show, add and review it, report the memory used in this session. " +
		"Inspect it when stored context may help; add only durable, reusable facts (preferences, conventions, feedback, references), never secrets or transient facts",
		ArgumentHint: "list | show [topic] | add <user|feedback|project|reference> <topic> <text> | pending | approve ID | reject ID | used",
		Subcommands:  memorySubcommands, ModelInvocable: true, Safety: commands.SafetyWrite, SafetyFor: memorySafety},
	{Name: "rewind", Description: "Restore files edited since a prompt (Write and Edit; not Bash)", ArgumentHint: "list | code ID | [conversation] ID",
		Subcommands: []string{"list", "code", "conversation"}, Safety: commands.SafetyWrite},
	{Name: "resume", Description: "List stored sessions to resume", Safety: commands.SafetyReadOnly},
	{Name: "rename", Description: "Name this session", ArgumentHint: "NAME", Safety: commands.SafetyWrite},
	{Name: "reset", Description: "Start a new conversation (Claude Code's alias of /clear) and clear the session's permission rules", Safety: commands.SafetyWrite},
	{Name: "background", Description: "Background tasks and job groups: list, read a task's log, cancel, close; list, make and wait on groups",
		ArgumentHint: "[list] | read TASK_ID [OFFSET] | cancel TASK_ID | close TASK_ID | groups | group GROUP_ID | group create POLICY TASK_ID... | wait GROUP_ID",
		Subcommands:  backgroundSubcommands, Safety: commands.SafetyBackgroundAgent, SafetyFor: backgroundSafety},
	{Name: "agent", Description: "Agents: list definitions and jobs, start one in the background, run several in parallel under a job group, read, stop, close",
		ArgumentHint: `[list] | [run] [AGENT] PROMPT | parallel [--detach|--any|--manual] LABEL:"PROMPT"... | wait GROUP_ID | read ID | stop ID | close ID`,
		Subcommands:  agentSubcommands, Safety: commands.SafetyBackgroundAgent, SafetyFor: agentSafety},
}

// languageChoices are the /language arguments offered for completion: "default" clears
// the setting, the others are common response languages. Any other language name is
// accepted too (the setting is free text, as Claude Code's language setting is).
var languageChoices = []string{"default", "English", "Korean", "Japanese", "Chinese", "Spanish", "French", "German"}

// showsWithoutArgs: a command that shows a setting without arguments and sets it with
// one only reads when run bare.
func showsWithoutArgs(args string) commands.Safety {
	if strings.TrimSpace(args) == "" {
		return commands.SafetyReadOnly
	}
	return commands.SafetyWrite
}

// memorySafety: /memory list, show, pending (review) and used read; add, approve and
// reject write.
func memorySafety(args string) commands.Safety {
	switch sub, _ := splitWord(args); sub {
	case "", "list", "show", "pending", "review", "used":
		return commands.SafetyReadOnly
	}
	return commands.SafetyWrite
}

func (s *InteractiveSession) builtins() []commands.Command {
	run := map[string]commands.Handler{
		"help": s.cmdHelp, "clear": s.cmdClear, "compact": s.cmdCompact, "mode": s.cmdMode, "model": s.cmdModel,
		"language": s.cmdLanguage, "cost": s.cmdCost, "context": s.cmdContext, "permissions": s.cmdPermissions,
		"memory": s.cmdMemory, "rewind": s.cmdRewind, "resume": s.cmdResume, "rename": s.cmdRename, "reset": s.cmdReset,
		"background": s.cmdBackground, "agent": s.cmdAgent,
	}
	out := make([]commands.Command, 0, len(builtinCommands))
	for _, c := range builtinCommands {
		c.UserInvocable, c.Run = true, run[c.Name]
		out = append(out, c)
	}
	return out
}

func (s *InteractiveSession) cmdHelp(_ context.Context, _ string) commands.Result {
	list := s.ListCommands("")
	var b strings.Builder
	names := make([]string, 0, len(list))
	for _, c := range list {
		fmt.Fprintf(&b, "/%s", c.QualifiedName())
		if c.ArgumentHint != "" {
			fmt.Fprintf(&b, " %s", c.ArgumentHint)
		}
		fmt.Fprintf(&b, " - %s\n", c.Description)
		names = append(names, c.QualifiedName())
	}
	return ok(strings.TrimRight(b.String(), "\n"), map[string]any{"commands": names})
}

func (s *InteractiveSession) cmdClear(_ context.Context, _ string) commands.Result {
	if r, refused := s.busy("clear"); refused {
		return r
	}
	if err := s.sess.ClearHistory(); err != nil {
		return fail("clear: "+err.Error(), nil)
	}
	return ok("Conversation cleared.", map[string]any{"cleared": true})
}

func (s *InteractiveSession) cmdCompact(ctx context.Context, args string) commands.Result {
	if r, refused := s.busy("compact"); refused {
		return r
	}
	before := s.sess.ContextState()
	if err := s.Compact(ctx, args); err != nil {
		if errors.Is(err, session.ErrRunInProgress) {
			r, _ := s.busy("compact")
			return r
		}
		if errors.Is(err, session.ErrNothingToCompact) {
			return fail("Nothing to compact yet: the conversation is empty.", map[string]any{"reason": "empty"})
		}
		return fail("compact: "+err.Error(), nil)
	}
	after := s.sess.ContextState()
	return ok(fmt.Sprintf("Conversation compacted (%d → %d tokens).", before.UsedTokens, after.UsedTokens),
		map[string]any{"instructions": args, "beforeTokens": before.UsedTokens, "afterTokens": after.UsedTokens})
}

func (s *InteractiveSession) cmdMode(_ context.Context, args string) commands.Result {
	cur := string(s.sess.PermissionMode())
	if args == "" {
		return ok("Permission mode: "+cur, map[string]any{"mode": cur, "modes": permissionModes})
	}
	if !slices.Contains(permissionModes, args) {
		return fail(fmt.Sprintf("Unknown permission mode %q; one of: %s", args, strings.Join(permissionModes, ", ")),
			map[string]any{"mode": cur, "modes": permissionModes})
	}
	s.sess.SetPermissionMode(session.PermissionMode(args))
	return ok("Permission mode set to "+args, map[string]any{"mode": args, "previous": cur})
}

func (s *InteractiveSession) cmdModel(_ context.Context, args string) commands.Result {
	cur := s.sess.Model()
	if args == "" {
		return ok("Model: "+cur, map[string]any{"model": cur})
	}
	if r, refused := s.busy("model"); refused {
		return r
	}
	id, err := s.SetModel(args)
	if err != nil {
		if errors.Is(err, session.ErrRunInProgress) {
			r, _ := s.busy("model")
			return r
		}
		return fail("model: "+err.Error(), map[string]any{"model": cur})
	}
	return ok("Model set to "+id, map[string]any{"model": id, "previous": cur})
}

// cmdLanguage is /language: bare, it shows the response language; /language X saves X
// as `language` in the user's settings (~/.robota/settings.json) and composes the
// session's system prompt again so it asks for X from the next prompt on; /language
// default removes the setting. A settings file above the user's that sets language
// still wins in new sessions, and the message says so.
func (s *InteractiveSession) cmdLanguage(ctx context.Context, args string) commands.Result {
	if s.host == nil || s.host.Settings == nil {
		return fail("This session has no settings: the response language cannot be set here.", map[string]any{"available": false})
	}
	a := s.host
	s.langMu.Lock()
	defer s.langMu.Unlock()
	cur := a.Settings.Language
	lang := strings.TrimSpace(args)
	if lang == "" {
		if cur == "" {
			return ok("No response language is set. Set one with /language LANGUAGE (e.g. /language French).", map[string]any{"language": ""})
		}
		return ok("Response language: "+cur, map[string]any{"language": cur})
	}
	if r, refused := s.busy("language"); refused {
		return r
	}
	if len([]rune(lang)) > 64 || strings.ContainsFunc(lang, unicode.IsControl) {
		return fail("A language is a name such as French or 日本語, on one line, at most 64 characters.", map[string]any{"language": cur})
	}
	var value any = lang
	if strings.EqualFold(lang, "default") {
		lang, value = "", nil
	}
	if a.Home == "" {
		return fail("No home directory: the user's settings file cannot be written.", map[string]any{"language": cur})
	}
	path := config.UserSettingsPath(a.Home)
	origin, hasOrigin := a.Settings.Origin("language")
	if err := config.WriteKey(path, "language", value); err != nil {
		return fail("language: "+err.Error(), map[string]any{"language": cur})
	}
	if a.SystemFor != nil && s.sess.SystemMessage() != "" {
		if sys := a.SystemFor(s.sess.Model(), lang); sys != "" && sys != s.sess.SystemMessage() {
			if err := s.sess.SetSystemMessage(ctx, sys); err != nil {
				if errors.Is(err, session.ErrRunInProgress) {
					r, _ := s.busy("language")
					return r
				}
				return fail("language: saved in "+path+", but the system prompt could not be changed: "+err.Error(), map[string]any{"language": cur, "settingsPath": path})
			}
		}
	}
	a.Settings.Language = lang
	msg := "Response language set to " + lang + " (saved in " + path + ")."
	if lang == "" {
		msg = "Response language setting removed (from " + path + ")."
	}
	data := map[string]any{"language": lang, "previous": cur, "settingsPath": path}
	if hasOrigin && origin.Path != "" && origin.Path != path && origin.Layer > 1 {
		// A higher layer's language wins when the next session reads the settings.
		msg += " " + origin.Display + " also sets language and wins in new sessions."
		data["overriddenBy"] = origin.Display
	}
	return ok(msg, data)
}

// cmdCost is /cost: the session's id and message count (the spec's) and its token
// usage, which a resumed session restores from the usage-summary entries of the prompts
// it ran before.
func (s *InteractiveSession) cmdCost(_ context.Context, _ string) commands.Result {
	s.usageMu.Lock()
	u, n := s.usage, s.prompts
	r, rn := s.restored, s.restoredTurns
	s.usageMu.Unlock()
	total := r.Add(u)
	sub := s.sess.SubagentUsage()
	id, msgs := s.ID(), s.sess.HistoryLen()
	var b strings.Builder
	fmt.Fprintf(&b, "Session: %s\nMessages: %d\nTokens: %d input, %d output (%d total)", id, msgs, total.InputTokens, total.OutputTokens, total.Total())
	if rn > 0 {
		fmt.Fprintf(&b, "; %d input and %d output restored from %d earlier turn(s)", r.InputTokens, r.OutputTokens, rn)
	}
	fmt.Fprintf(&b, "\nThis run: %d prompt(s); subagents %d tokens.", n, sub.Total())
	return ok(b.String(),
		map[string]any{"sessionId": id, "messageCount": msgs,
			"inputTokens": total.InputTokens, "outputTokens": total.OutputTokens,
			"cacheCreationInputTokens": total.CacheCreationInputTokens, "cacheReadInputTokens": total.CacheReadInputTokens,
			"totalTokens": total.Total(), "prompts": n, "restoredInputTokens": r.InputTokens, "restoredOutputTokens": r.OutputTokens,
			"restoredTurns": rn, "subagentTokens": sub.Total(), "costStatus": "unknown"})
}

// restoredUsage adds up the usage-summary entries of a resumed conversation (one per
// Run of an earlier prompt): the usage the session had before this process.
func restoredUsage(history []session.HistoryEntry) (llm.Usage, int) {
	var u llm.Usage
	n := 0
	for _, e := range history {
		if e.Category != session.CategoryEvent || e.Type != EntryUsageSummary {
			continue
		}
		var us UsageSnapshot
		if json.Unmarshal(e.Data, &us) != nil {
			continue
		}
		u = u.Add(llm.Usage{InputTokens: us.PromptTokens, OutputTokens: us.CompletionTokens})
		n++
	}
	return u, n
}

func (s *InteractiveSession) cmdContext(_ context.Context, _ string) commands.Result {
	st := s.sess.ContextState()
	n := s.sess.HistoryLen()
	return ok(fmt.Sprintf("Context: %d / %d tokens (%.1f%%), %d messages.", st.UsedTokens, st.MaxTokens, st.UsedPercentage, n),
		map[string]any{"usedTokens": st.UsedTokens, "maxTokens": st.MaxTokens, "usedPercentage": st.UsedPercentage,
			"messages": n})
}

func (s *InteractiveSession) cmdPermissions(_ context.Context, _ string) commands.Result {
	var allow, ask, deny []string
	if s.host != nil && s.host.Settings != nil {
		p := s.host.Settings.Permissions
		for _, r := range p.Allow {
			allow = append(allow, r.Text)
		}
		for _, r := range p.Ask {
			ask = append(ask, r.Text)
		}
		for _, r := range p.Deny {
			deny = append(deny, r.Text)
		}
	}
	sessionRules := s.sess.SessionRules()
	mode := string(s.sess.PermissionMode())
	sandboxState := ""
	if s.host != nil {
		sandboxState = s.host.Sandbox
	}
	msg := fmt.Sprintf("Mode %s; allow %d, ask %d, deny %d rules; %d session rule(s). Command sandbox: %s.",
		mode, len(allow), len(ask), len(deny), len(sessionRules), sandboxState)
	return ok(msg, map[string]any{"mode": mode, "allow": nonNilStrings(allow), "ask": nonNilStrings(ask),
		"deny": nonNilStrings(deny), "sessionRules": nonNilStrings(sessionRules), "sandbox": sandboxState})
}

func nonNilStrings(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

func (s *InteractiveSession) cmdResume(ctx context.Context, _ string) commands.Result {
	how := "Start with `robota --resume ID` (or NAME), or `robota --continue` for the latest."
	if s.host == nil || s.host.Sessions == nil {
		return ok("No session store. "+how, map[string]any{"sessions": []any{}})
	}
	list, err := s.host.Sessions(ctx)
	if err != nil {
		return fail("resume: "+err.Error(), nil)
	}
	var b strings.Builder
	out := make([]map[string]any, 0, len(list))
	for _, in := range list {
		if in.ID == s.ID() {
			continue
		}
		title := in.Name
		if title == "" {
			title = in.FirstPrompt
		}
		fmt.Fprintf(&b, "%s  %s  %d messages  %s\n", in.ID, in.UpdatedAt.Format("2006-01-02 15:04"), in.Messages, title)
		out = append(out, map[string]any{"id": in.ID, "name": in.Name, "firstPrompt": in.FirstPrompt,
			"updatedAt": in.UpdatedAt, "messages": in.Messages})
	}
	// triggerResumePicker tells a UI to show its picker over these sessions (the TUI
	// does; a headless run prints the list).
	return ok(b.String()+how, map[string]any{"sessions": out, "triggerResumePicker": true})
}

func (s *InteractiveSession) cmdRename(ctx context.Context, args string) commands.Result {
	if args == "" {
		return fail("Usage: /rename NAME", map[string]any{"name": s.sess.Name()})
	}
	if err := s.sess.SetName(ctx, args); err != nil {
		return fail("rename: "+err.Error(), nil)
	}
	return ok("Session renamed to "+s.sess.Name(), map[string]any{"name": s.sess.Name()})
}

func (s *InteractiveSession) cmdReset(_ context.Context, _ string) commands.Result {
	if r, refused := s.busy("reset"); refused {
		return r
	}
	if err := s.sess.ClearHistory(); err != nil {
		return fail("reset: "+err.Error(), nil)
	}
	s.sess.ClearSessionRules()
	// resetRequested is the spec's contract (its CLI deleted the settings and exited);
	// Claude Code's /reset is /clear, which wins (DESIGN decision 1): nothing exits and
	// no settings file is touched.
	return ok("Conversation cleared and session permission rules removed.",
		map[string]any{"cleared": true, "sessionRulesCleared": true, "resetRequested": true})
}

func (s *InteractiveSession) taskList(kind tasks.Kind) []tasks.Task {
	if s.Tasks() == nil {
		return nil
	}
	return s.Tasks().List(tasks.Filter{Kind: kind})
}

func nonNilTasks(v []tasks.Task) []tasks.Task {
	if v == nil {
		return []tasks.Task{}
	}
	return v
}

// BuiltinCommands are the built-in commands without their handlers (the SlashCommand
// tool lists the model-invocable ones).
func BuiltinCommands() []commands.Command { return slices.Clone(builtinCommands) }
