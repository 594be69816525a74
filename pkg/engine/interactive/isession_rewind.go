package interactive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/checkpoint"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// Checkpoint is an edit checkpoint (package checkpoint); CheckpointFile a file it kept.
type (
	Checkpoint     = checkpoint.Checkpoint
	CheckpointFile = checkpoint.File
)

// EntryCheckpointWarning is the history entry of a file a checkpoint could not keep;
// EntryRewind records a rewind.
const (
	EntryCheckpointWarning = "checkpoint-warning"
	EntryRewind            = "rewind"
)

// checkpointTool tells the tools whose file_path a checkpoint captures before they run.
func checkpointTool(name string) bool {
	switch name {
	case "Write", "Edit", "MultiEdit":
		return true
	}
	return false
}

const bashNotTracked = "Files changed by Bash are not tracked."

func (s *InteractiveSession) beginCheckpoint(p *pendingPrompt) {
	if s.checkpoints == nil {
		return
	}
	if err := s.checkpoints.Begin(p.id, p.label(), s.sess.HistoryLen()); err != nil {
		s.addEntry(EntryCheckpointWarning, map[string]string{"error": err.Error()})
	}
}

func (s *InteractiveSession) endCheckpoint() {
	if s.checkpoints != nil {
		s.checkpoints.End()
	}
}

// recordEdit notes what a successful Write or Edit left in the file, so a rewind can tell
// a file changed since (by a person, by Bash) from one only this session changed.
func (s *InteractiveSession) recordEdit(ev session.ToolExecutionEvent) {
	if s.checkpoints == nil || !checkpointTool(ev.ToolName) || !ev.Success {
		return
	}
	if p, ok := editedPath(ev.ToolArgs, s.cwd); ok {
		if err := s.checkpoints.Wrote(p); err != nil {
			s.addEntry(EntryCheckpointWarning, map[string]string{"path": p, "error": err.Error()})
		}
	}
}

// editedPath is the absolute, clean file_path of a Write or Edit call.
func editedPath(args json.RawMessage, cwd string) (string, bool) {
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(args, &in) != nil || in.FilePath == "" {
		return "", false
	}
	p := in.FilePath
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), true
}

// captureEdit keeps the prior content of the file a Write or Edit is about to change.
// The start event comes before the permission check: a denied call leaves a pre-image
// equal to the file, which restores it as it is.
func (s *InteractiveSession) captureEdit(ev session.ToolExecutionEvent) {
	if s.checkpoints == nil || !checkpointTool(ev.ToolName) {
		return
	}
	p, ok := editedPath(ev.ToolArgs, s.cwd)
	if !ok {
		return
	}
	if err := s.checkpoints.Capture(p); err != nil {
		s.addEntry(EntryCheckpointWarning, map[string]string{"path": p, "error": err.Error()})
	}
}

// EditCheckpoints lists the session's edit checkpoints, newest first.
func (s *InteractiveSession) EditCheckpoints() ([]Checkpoint, error) {
	if s.checkpoints == nil {
		return nil, nil
	}
	list, err := s.checkpoints.List()
	slices.Reverse(list)
	return list, err
}

func (s *InteractiveSession) cmdRewind(_ context.Context, args string) commands.Result {
	fields := strings.Fields(args)
	if len(fields) == 0 {
		fields = []string{"list"}
	}
	if s.checkpoints == nil {
		return fail("No edit checkpoints: this session has no project directory or is not persisted.", map[string]any{"checkpoints": []any{}})
	}
	switch {
	case fields[0] == "list" && len(fields) == 1:
		return s.rewindList()
	case (fields[0] == "code" || fields[0] == "restore") && len(fields) == 2: // the spec names both
		return s.rewind(fields[1], false)
	case fields[0] == "conversation" && len(fields) == 2:
		return s.rewind(fields[1], true)
	case len(fields) == 1 && fields[0] != "code" && fields[0] != "restore" && fields[0] != "conversation":
		return s.rewind(fields[0], true)
	}
	return fail("Usage: /rewind list | /rewind code ID (or restore ID: files only) | /rewind [conversation] ID. "+bashNotTracked, nil)
}

func (s *InteractiveSession) rewindList() commands.Result {
	list, err := s.EditCheckpoints()
	if err != nil {
		return fail("rewind: "+err.Error(), nil)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d checkpoint(s), newest first. %s", len(list), bashNotTracked)
	out := make([]map[string]any, 0, len(list))
	for _, cp := range list {
		files := cp.FilePaths()
		fmt.Fprintf(&b, "\n%s  %s  %q  %d file(s)", cp.ID, cp.CreatedAt.Format("2006-01-02 15:04:05"), cp.Prompt, len(files))
		for _, f := range files {
			fmt.Fprintf(&b, "\n    %s", f)
		}
		out = append(out, map[string]any{"id": cp.ID, "prompt": cp.Prompt, "createdAt": cp.CreatedAt,
			"messages": cp.Messages, "files": files})
	}
	return ok(b.String(), map[string]any{"checkpoints": out, "bashTracked": false})
}

// rewind restores the files to checkpoint id and, with conversation, the conversation
// to its length when that prompt began (the prompt and everything after it dropped).
func (s *InteractiveSession) rewind(id string, conversation bool) commands.Result {
	if r, refused := s.busy("rewind"); refused {
		return r
	}
	if conversation {
		list, err := s.EditCheckpoints()
		if err != nil {
			return fail("rewind: "+err.Error(), nil)
		}
		i := slices.IndexFunc(list, func(c Checkpoint) bool { return c.ID == id })
		// A compaction or clear since then left fewer messages than the checkpoint saw:
		// the conversation of that point is gone, so nothing is changed.
		if n := s.sess.HistoryLen(); i >= 0 && list[i].Messages > n {
			return fail(fmt.Sprintf("The conversation was compacted or cleared since checkpoint %s; use /rewind code %s to restore the files only.", id, id),
				map[string]any{"reason": "conversation_replaced"})
		}
	}
	cp, restored, removed, kept, err := s.checkpoints.Restore(id)
	if err != nil {
		if errors.Is(err, ErrUnknownCheckpoint) {
			return fail(fmt.Sprintf("No checkpoint %q; see /rewind list.", id), map[string]any{"reason": "unknown_checkpoint"})
		}
		return fail("rewind: "+err.Error(), map[string]any{"restored": nonNilStrings(restored), "removed": nonNilStrings(removed)})
	}
	data := map[string]any{"checkpoint": cp.ID, "restored": nonNilStrings(restored), "removed": nonNilStrings(removed),
		"kept": nonNilStrings(kept), "bashTracked": false, "conversation": conversation}
	var b strings.Builder
	fmt.Fprintf(&b, "Files restored to checkpoint %s (%q): %d restored, %d removed.", cp.ID, cp.Prompt, len(restored), len(removed))
	if conversation {
		if err := s.sess.TruncateHistory(context.Background(), cp.Messages); err != nil {
			s.addEntry(EntryRewind, data)
			return fail(b.String()+"\nThe conversation could not be restored: "+err.Error(), data)
		}
		data["messages"] = cp.Messages
		fmt.Fprintf(&b, " Conversation restored to before that prompt (%d messages).", cp.Messages)
	}
	s.addEntry(EntryRewind, data)
	for _, p := range restored {
		fmt.Fprintf(&b, "\n  restored %s", p)
	}
	for _, p := range removed {
		fmt.Fprintf(&b, "\n  removed  %s", p)
	}
	for _, p := range kept {
		fmt.Fprintf(&b, "\n  kept     %s (changed since this session last wrote it: not overwritten)", p)
	}
	fmt.Fprintf(&b, "\n%s", bashNotTracked)
	return ok(b.String(), data)
}
