package interactive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/memory"
)

const memoryUsage = "Usage: /memory list | show [topic] | add <user|feedback|project|reference> <topic> <text> | pending | approve <id> | reject <id> | used"

var memorySubcommands = []string{"list", "show", "add", "pending", "review", "approve", "reject", "used"}

// cmdMemory is /memory (spec: Project Memory). Writes and retrievals happen only here,
// when the command is run: nothing is added to prompts or queued after a turn.
func (s *InteractiveSession) cmdMemory(ctx context.Context, args string) commands.Result {
	if s.host == nil || s.host.Memory == nil {
		return fail("Project memory needs a project directory; this session has none.", map[string]any{"available": false})
	}
	m := s.host.Memory
	sub, rest := splitWord(args)
	switch sub {
	case "", "list":
		return memoryList(m)
	case "show":
		return s.memoryShow(ctx, m, rest)
	case "add":
		return s.memoryAdd(ctx, m, rest)
	case "pending", "review":
		return memoryPending(m)
	case "approve":
		return s.memoryApprove(ctx, m, rest)
	case "reject":
		return s.memoryReject(ctx, m, rest)
	case "used":
		return memoryUsed(m)
	}
	return fail(fmt.Sprintf("Unknown /memory subcommand %q. %s", sub, memoryUsage), map[string]any{"subcommands": memorySubcommands})
}

// splitWord cuts the first word off s.
func splitWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// saveAudit writes the audit trail to the session record now, so that it survives an
// exit or a crash before the next prompt.
func (s *InteractiveSession) saveAudit(ctx context.Context) string {
	if err := s.sess.SaveHeader(ctx); err != nil {
		return "\nThe session record could not be saved: " + err.Error()
	}
	return ""
}

func memoryList(m *memory.Audit) commands.Result {
	topics, err := m.Store().Topics()
	if err != nil {
		return fail("memory: "+err.Error(), nil)
	}
	pending, err := m.Store().Pending()
	if err != nil {
		return fail("memory: "+err.Error(), nil)
	}
	index, err := m.Store().Index()
	if err != nil {
		return fail("memory: "+err.Error(), nil)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d memory topic(s), %d pending candidate(s).", len(topics), len(pending))
	for _, t := range topics {
		fmt.Fprintf(&b, "\n%s  %d entr%s  %s", t.Name, t.Entries, plural(t.Entries, "y", "ies"), t.Path)
	}
	if topics == nil {
		topics = []memory.TopicInfo{}
	}
	return ok(b.String(), map[string]any{"topics": topics, "pending": len(pending), "index": index, "indexPath": memory.IndexFile})
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (s *InteractiveSession) memoryShow(ctx context.Context, m *memory.Audit, topic string) commands.Result {
	if topic == "" {
		index, err := m.Store().Index()
		if err != nil {
			return fail("memory: "+err.Error(), nil)
		}
		if index == "" {
			return ok("The project memory is empty ("+memory.IndexFile+" does not exist).", map[string]any{"path": memory.IndexFile, "content": ""})
		}
		return ok(strings.TrimRight(index, "\n"), map[string]any{"path": memory.IndexFile, "content": index})
	}
	t, err := m.Store().Show(topic)
	if err != nil {
		if errors.Is(err, memory.ErrUnknownTopic) || errors.Is(err, memory.ErrInvalidTopic) {
			return fail(err.Error()+"; see /memory list", map[string]any{"topic": topic})
		}
		return fail("memory: "+err.Error(), nil)
	}
	m.Use(memory.Reference{Topic: t.Name, Path: t.Path, Entries: t.Entries, RetrievedAt: m.Now().UTC()})
	m.Record(memory.Event{Type: memory.EventRetrieved, Topic: t.Name, Path: t.Path})
	warn := s.saveAudit(ctx)
	return ok(strings.TrimRight(t.Content, "\n")+warn, map[string]any{"topic": t.Name, "path": t.Path, "entries": t.List, "content": t.Content})
}

func (s *InteractiveSession) memoryAdd(ctx context.Context, m *memory.Audit, args string) commands.Result {
	typ, rest := splitWord(args)
	topic, text := splitWord(rest)
	if typ == "" || topic == "" || text == "" {
		return fail("Usage: /memory add <user|feedback|project|reference> <topic> <text>", nil)
	}
	mt, err := memory.ParseType(typ)
	if err != nil {
		return fail(err.Error(), nil)
	}
	norm := memory.NormalizeTopic(topic)
	if err := memory.ValidTopic(norm); err != nil {
		return fail(err.Error(), nil)
	}
	v := memory.Evaluate(text)
	switch v.Action {
	case memory.Refuse:
		m.Record(memory.Event{Type: memory.EventSkipped, Topic: norm, MemoryType: mt, Reason: v.Kind})
		warn := s.saveAudit(ctx)
		return fail("Not saved: "+v.Reason+"."+warn, map[string]any{"action": string(v.Action), "kind": v.Kind, "reason": v.Reason, "topic": norm})
	case memory.Review:
		id := shortID(m.NewID())
		if err := m.Store().Queue(memory.Candidate{ID: id, Topic: norm, Type: mt, Text: text, Reason: v.Reason, Kind: v.Kind, SessionID: s.ID()}); err != nil {
			return fail("memory: "+err.Error(), nil)
		}
		m.Record(memory.Event{Type: memory.EventQueued, Topic: norm, MemoryType: mt, CandidateID: id, Reason: v.Kind})
		warn := s.saveAudit(ctx)
		return ok(fmt.Sprintf("Queued for review as %s: %s.%s", id, v.Reason, warn),
			map[string]any{"action": string(v.Action), "kind": v.Kind, "reason": v.Reason, "candidateId": id, "topic": norm, "type": string(mt)})
	}
	res, err := m.Store().Append(norm, mt, text)
	if err != nil {
		return fail("memory: "+err.Error(), nil)
	}
	m.Record(memory.Event{Type: memory.EventSaved, Topic: res.Topic, MemoryType: mt, Path: res.Path, Deduplicated: res.Deduplicated})
	warn := s.saveAudit(ctx)
	msg := fmt.Sprintf("Saved to %s (%s).", res.Path, mt)
	if res.Deduplicated {
		msg = fmt.Sprintf("Already in %s; nothing added.", res.Path)
	}
	return ok(msg+warn, map[string]any{"action": string(memory.Save), "topic": res.Topic, "path": res.Path, "type": string(mt), "deduplicated": res.Deduplicated})
}

// shortID keeps the first block of a UUID (candidate ids are typed by people); another
// id is kept whole.
func shortID(id string) string {
	if len(id) == 36 && strings.Count(id, "-") == 4 && strings.IndexByte(id, '-') == 8 {
		return id[:8]
	}
	return id
}

func memoryPending(m *memory.Audit) commands.Result {
	list, err := m.Store().Pending()
	if err != nil {
		return fail("memory: "+err.Error(), nil)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d pending candidate(s).", len(list))
	for _, c := range list {
		fmt.Fprintf(&b, "\n%s  %s (%s): %s\n    %s", c.ID, c.Topic, c.Type, c.Text, c.Reason)
	}
	if list == nil {
		list = []memory.Candidate{}
	}
	return ok(b.String(), map[string]any{"pending": list})
}

func (s *InteractiveSession) memoryApprove(ctx context.Context, m *memory.Audit, id string) commands.Result {
	if id == "" {
		return fail("Usage: /memory approve <id> (see /memory pending)", nil)
	}
	c, res, err := m.Store().Approve(id)
	if err != nil {
		if errors.Is(err, memory.ErrRefused) {
			m.Record(memory.Event{Type: memory.EventSkipped, Topic: c.Topic, MemoryType: c.Type, CandidateID: c.ID, Reason: "refused on approval"})
			return fail("Not saved: "+strings.TrimPrefix(err.Error(), memory.ErrRefused.Error()+": ")+"."+s.saveAudit(ctx), map[string]any{"candidateId": id})
		}
		return fail(err.Error()+"; see /memory pending", map[string]any{"candidateId": id})
	}
	m.Record(memory.Event{Type: memory.EventApproved, Topic: res.Topic, MemoryType: c.Type, Path: res.Path, CandidateID: c.ID, Deduplicated: res.Deduplicated})
	warn := s.saveAudit(ctx)
	return ok(fmt.Sprintf("Approved %s: saved to %s.%s", c.ID, res.Path, warn),
		map[string]any{"candidateId": c.ID, "topic": res.Topic, "path": res.Path, "type": string(c.Type), "deduplicated": res.Deduplicated})
}

func (s *InteractiveSession) memoryReject(ctx context.Context, m *memory.Audit, id string) commands.Result {
	if id == "" {
		return fail("Usage: /memory reject <id> (see /memory pending)", nil)
	}
	c, err := m.Store().Reject(id)
	if err != nil {
		return fail(err.Error()+"; see /memory pending", map[string]any{"candidateId": id})
	}
	m.Record(memory.Event{Type: memory.EventRejected, Topic: c.Topic, MemoryType: c.Type, CandidateID: c.ID})
	warn := s.saveAudit(ctx)
	return ok(fmt.Sprintf("Rejected %s; nothing saved.%s", c.ID, warn), map[string]any{"candidateId": c.ID, "topic": c.Topic})
}

func memoryUsed(m *memory.Audit) commands.Result {
	rawEvents, rawRefs := m.Snapshot()
	refs := decodeAll[memory.Reference](rawRefs)
	events := decodeAll[memory.Event](rawEvents)
	var b strings.Builder
	fmt.Fprintf(&b, "%d memory reference(s) used in this session, %d memory event(s).", len(refs), len(events))
	for _, r := range refs {
		fmt.Fprintf(&b, "\n%s  %s  %d entr%s  retrieved %s", r.Topic, r.Path, r.Entries, plural(r.Entries, "y", "ies"), r.RetrievedAt.Format("2006-01-02 15:04:05"))
	}
	return ok(b.String(), map[string]any{"usedMemoryReferences": refs, "memoryEvents": events})
}

// decodeAll decodes the entries it can; the record's members are opaque JSON that a
// newer version may have shaped differently.
func decodeAll[T any](raw []json.RawMessage) []T {
	out := make([]T, 0, len(raw))
	for _, r := range raw {
		var v T
		if json.Unmarshal(r, &v) == nil {
			out = append(out, v)
		}
	}
	return out
}
