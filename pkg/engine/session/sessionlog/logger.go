package sessionlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// Logger records session events; it has the shape of the session runtime's logger port.
// Implementations are safe for concurrent use, take what they keep of data before
// returning (its JSON, or a copy the caller cannot change; the FileLogger keeps an
// agent.Event that carries only a streamed piece's agent.DeltaData as given, see own)
// and never fail their caller: logging must never break a session.
type Logger interface {
	Log(event string, data any)
}

// SilentLogger is the null object: it records nothing.
type SilentLogger struct{}

// Log does nothing.
func (SilentLogger) Log(string, any) {}

// Close does nothing.
func (SilentLogger) Close() error { return nil }

var (
	_ Logger = SilentLogger{}
	_ Logger = (*FileLogger)(nil)
)

// DefaultInlineThreshold is the largest string (bytes) or array (bytes of JSON) kept on a
// log line; larger ones go to payload files.
const DefaultInlineThreshold = 16 << 10

// Options configure a FileLogger.
type Options struct {
	// Now stamps entries; it defaults to time.Now. Stamps are written in UTC.
	Now func() time.Time
	// InlineThreshold overrides DefaultInlineThreshold when > 0; < 0 keeps everything
	// inline.
	InlineThreshold int
	// OnError, when set, is told about every event Log failed to record (Append returns
	// the error instead).
	OnError func(event string, err error)
	// CoalesceInterval overrides DefaultCoalesceInterval when > 0: held streaming pieces
	// are written (up to the settled cut) once the oldest is this old.
	CoalesceInterval time.Duration
	// Background hands every event to a writer goroutine of the logger (see writer.go):
	// Log returns once the event is stamped, copied and queued, and the redaction,
	// encoding, hashing and writing happen off the caller's path, in order. Append, Sync
	// and Close wait for the events queued before them. OnError is then called from the
	// writer goroutine and must not log to the same logger.
	Background bool
	// WriteDelay overrides DefaultWriteDelay for a Background logger when > 0; < 0
	// starts its writer with the first event of a burst.
	WriteDelay time.Duration
	// Level is what the logger writes (see Level); empty is LevelFull. A session sets it
	// from settings.json sessionLog.level, whose default is LevelCompact.
	Level Level
}

// FileLogger appends one session's events to {dir}/{sessionID}.jsonl. It assumes it is the
// only writer of that file.
type FileLogger struct {
	dir       string
	sessionID string
	path      string
	now       func() time.Time
	threshold int
	onError   func(event string, err error)
	interval  time.Duration
	// compact: Options.Level is LevelCompact.
	compact bool
	// tools is, per conversation, the tool list a compact provider_request last wrote.
	tools map[string]toolsMark
	// verified is, per conversation, what the last compact request shared with the
	// history (see compactRequest).
	verified map[string]verifiedPrefix
	// bg is the background writer (Options.Background); nil: events are written by
	// the goroutine that logs them.
	bg *writer

	mu sync.Mutex
	// due writes held pieces once the oldest is l.interval old when no later piece
	// arrives to do it (a stream that pauses); armed while pieces are held.
	due  *time.Timer
	f    *os.File
	seq  int64
	size int64 // bytes of complete lines in the file
	held holdback
	// native is the last native request body written per conversation and provider.
	native map[string]*nativeMark
	// hist is what the logger knows of the history the log rebuilds (see history.go).
	hist histState
	// shown is the last answer written, which later lines refer to (see refs.go).
	shown shown
	// lastPayload is the last (redacted) string moved to a payload file, and its
	// reference; lastLifted the (unredacted) parts of the last content array of several
	// parts lifted out of a message (see lift.go).
	lastPayload struct {
		text string
		ref  PayloadRef
	}
	lastLifted struct {
		parts []llm.Part
		ref   PayloadRef
	}
	// lastRedacted is the last long text redacted and its redaction: a round's answer
	// is judged at the end of its stream, then stored from its text deltas, its raw
	// deltas and its response, and is redacted once for all of them (see redactLong).
	lastRedacted struct{ in, out string }
}

// ProjectDir is where a project run keeps its logs: {cwd}/.robota/logs.
func ProjectDir(cwd string) string { return filepath.Join(cwd, ".robota", "logs") }

// UserDir is where runs outside a project keep their logs: ~/.robota/logs.
func UserDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("session log: no home directory: %w", err)
	}
	return filepath.Join(home, ".robota", "logs"), nil
}

// LogPath is the log file of sessionID under dir.
func LogPath(dir, sessionID string) string { return filepath.Join(dir, sessionID+".jsonl") }

// Open opens (creating when needed) the log of sessionID in dir. An existing log is
// continued: a partial last line left by a crash is truncated away and numbering resumes
// after the last complete entry.
func Open(dir, sessionID string, opts Options) (*FileLogger, error) {
	if err := store.ValidateID(sessionID); err != nil {
		return nil, fmt.Errorf("session log: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session log: %w", err)
	}
	l := &FileLogger{dir: dir, sessionID: sessionID, path: LogPath(dir, sessionID), now: opts.Now,
		threshold: opts.InlineThreshold, onError: opts.OnError, interval: opts.CoalesceInterval,
		compact: opts.Level == LevelCompact}
	if opts.Level != "" && opts.Level != LevelCompact && opts.Level != LevelFull {
		return nil, fmt.Errorf("session log: %w: %q", ErrInvalidLevel, opts.Level)
	}
	if l.interval <= 0 {
		l.interval = DefaultCoalesceInterval
	}
	if l.now == nil {
		l.now = time.Now
	}
	if l.threshold == 0 {
		l.threshold = DefaultInlineThreshold
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session log: %w", err)
	}
	if l.size, l.seq, err = recoverTail(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("session log: recover %s: %w", l.path, err)
	}
	if !l.compact {
		// A compact log's history is the journal's: a resumed session names it
		// (ContinueHistory), and the log is not read for it.
		l.hist = recoverHistory(f, l.size, DirPayloads(dir))
	}
	l.f = f
	if opts.Background {
		l.bg = startWriter(l, opts.WriteDelay)
	}
	return l, nil
}

// Path returns the JSONL file.
func (l *FileLogger) Path() string { return l.path }

// Dir returns the log directory (payload references are relative to it).
func (l *FileLogger) Dir() string { return l.dir }

// SessionID returns the session the logger writes for.
func (l *FileLogger) SessionID() string { return l.sessionID }

// Log appends one event like Append and reports a failure to Options.OnError instead of
// returning it.
func (l *FileLogger) Log(event string, data any) {
	if l.compact && compactSkipsData(event, data) {
		return // neither copied nor queued
	}
	if l.bg != nil {
		if err := l.enqueue(event, data, nil); err != nil && l.onError != nil {
			l.onError(event, err)
		}
		return
	}
	if err := l.append(event, data, time.Time{}); err != nil && l.onError != nil {
		l.onError(event, err)
	}
}

// Append appends one event. event must be snake_case; data is any JSON-encodable value
// (nil for none). data is redacted, large strings and arrays are moved to payload files,
// and the line is written with one write call. Streaming events (text_delta,
// provider_stream_raw_delta, stream_event payloads) and the server_tool events logged
// among them may be held back and written later (see the package doc); the entry's
// timestamp is still taken now, its sequence when it is written. A failure to write a held event later goes to Options.OnError.
// With Options.Background it waits for the events queued before it and its own.
func (l *FileLogger) Append(event string, data any) error {
	if l.bg != nil {
		reply := make(chan error, 1)
		if err := l.enqueue(event, data, reply); err != nil {
			return err
		}
		return <-reply
	}
	return l.append(event, data, time.Time{})
}

// append is Append in the goroutine that writes; stamp is the entry's timestamp, or zero
// for now.
func (l *FileLogger) append(event string, data any, stamp time.Time) error {
	if !validEvent(event) {
		return fmt.Errorf("%w: %q", ErrInvalidEvent, event)
	}
	var compactOp *histOp
	if l.compact {
		var write bool
		l.mu.Lock()
		data, write, compactOp = l.compactData(event, data)
		if !write {
			if l.f == nil {
				l.mu.Unlock()
				return ErrClosed
			}
			l.hist.apply(compactOp)
		}
		l.mu.Unlock()
		if !write {
			return nil
		}
	}
	if held, ok := typedDelta(event, data); ok {
		return l.appendHeld(held, stamp)
	}
	var base *PayloadBase
	var mark *nativeMark
	if ev, ok := data.(agent.Event); ok && event == EventProviderNativeRawPayload && ev.RawPayload != nil {
		l.mu.Lock()
		data, base, mark = l.nativeDelta(ev)
		l.mu.Unlock()
	}
	logged := data             // as given, for remember
	var referred referredEvent // fix: the tree needs referred.apply
	var op *histOp
	switch event {
	case EventProviderResponseNormalized, EventAssistantMessageCommitted, EventAssistant:
		l.mu.Lock()
		data, referred = l.refer(event, data)
		l.mu.Unlock()
	case EventHistoryMutation:
		if l.compact {
			op = compactOp
			break
		}
		l.mu.Lock()
		data, op = l.historyMutation(data)
		l.mu.Unlock()
	case EventProviderRequest:
		if ev, ok := data.(agent.Event); ok && !l.compact {
			l.mu.Lock()
			data = l.requestFromHistory(ev)
			l.mu.Unlock()
		}
	}
	l.mu.Lock()
	data, lift, err := l.liftMessages(data)
	l.mu.Unlock()
	fix := referred.any()
	if fix && lift == nil && oracleEncoding == nil { // the encoder writes the reference: no tree to edit
		switch d := data.(type) {
		case agent.Event:
			referred.ev, fix = d, false
			data = referred
		case AssistantData:
			referred.assistant, fix = &d, false
			data = referred
		}
	}
	if err != nil {
		if op != nil {
			l.mu.Lock()
			l.hist = histState{}
			l.mu.Unlock()
		}
		return fmt.Errorf("session log: %s payload: %w", event, err)
	}
	rawBuf := getEncodeBuffer()
	defer putEncodeBuffer(rawBuf)
	raw, err := appendData((*rawBuf)[:0], data)
	if cap(raw) > cap(*rawBuf) {
		*rawBuf = raw[:0]
	}
	var tree any
	var line *[]byte // data's redacted JSON, when it is written without a tree
	if err == nil && base == nil && !fix && lift == nil && raw != nil && string(raw) != "null" && !mayStream(event, data) &&
		(l.threshold < 0 || len(raw) <= l.threshold/2) {
		line = getEncodeBuffer()
		defer putEncodeBuffer(line)
		var ok bool
		if *line, ok = appendRedacted((*line)[:0], raw); !ok {
			*line = (*line)[:0]
			line = nil
		}
	}
	if err == nil && line == nil {
		tree, err = treeOf(raw)
	}
	size := len(raw)
	if err != nil {
		if op != nil { // nothing is written: the log's history is no longer known
			l.mu.Lock()
			l.hist = histState{}
			l.mu.Unlock()
		}
		return fmt.Errorf("session log: encode %s: %w", event, err)
	}
	var held heldEvent
	var streaming bool
	if line == nil {
		if base != nil {
			setPayloadBase(tree, base)
		}
		if fix {
			referred.apply(tree)
		}
		if lift != nil {
			lift(tree)
		}
		held, streaming = classify(event, tree)
		if !streaming || held.kind != heldTextDelta && held.kind != heldRawDelta {
			tree = redact.Value(tree) // a delta is redacted in the line it goes out in
		}
	}

	l.mu.Lock()
	if l.f == nil {
		l.mu.Unlock()
		return ErrClosed
	}
	if stamp.IsZero() {
		stamp = l.now().UTC()
	}
	var heldErrs []heldFailure
	switch {
	case streaming && held.kind == heldInCall && len(l.held.queue) == 0:
		err = l.write(event, tree, stamp, size) // nothing held precedes it: no need to wait
	case streaming:
		held.data, held.stamp, held.size = tree, stamp, size
		heldErrs = l.hold(held)
	default:
		heldErrs = l.flushHeld()
		if line != nil {
			err = l.writeLine(event, *line, stamp)
		} else {
			err = l.write(event, tree, stamp, size)
		}
		if err == nil {
			l.remember(event, logged, l.seq)
		}
		if mark != nil && err == nil {
			if l.native == nil {
				l.native = map[string]*nativeMark{}
			}
			l.native[nativeKey(data.(agent.Event))] = mark
		}
		if op != nil && err != nil {
			op = &histOp{forget: true}
		}
		l.hist.apply(op)
	}
	l.mu.Unlock()
	l.reportHeld(heldErrs)
	return err
}

// appendHeld holds a text delta given as typed data: its data is encoded only with the
// line it goes out in.
func (l *FileLogger) appendHeld(held heldEvent, stamp time.Time) error {
	l.mu.Lock()
	if l.f == nil {
		l.mu.Unlock()
		return ErrClosed
	}
	if stamp.IsZero() {
		stamp = l.now().UTC()
	}
	held.stamp = stamp
	heldErrs := l.hold(held)
	l.mu.Unlock()
	l.reportHeld(heldErrs)
	return nil
}

// write writes one entry (l.mu held); the entry takes the next sequence. size is the
// length of the data's JSON before redaction, or -1 when not known.
func (l *FileLogger) write(event string, tree any, stamp time.Time, size int) error {
	// Nothing in data of up to half the inline threshold can reach it (redaction makes a
	// value longer only by what Placeholder adds), so its arrays are not encoded to be
	// measured.
	if size < 0 || size > l.threshold/2 {
		var err error
		if tree, err = l.externalize(tree); err != nil {
			return fmt.Errorf("session log: %s payload: %w", event, err)
		}
	}
	buf := getEncodeBuffer()
	defer putEncodeBuffer(buf)
	line, err := appendLine(*buf, l.seq+1, stamp, l.sessionID, event, tree)
	if err != nil {
		return fmt.Errorf("session log: encode %s: %w", event, err)
	}
	*buf = line
	return l.writeOut(event, line)
}

// writeLine writes one entry whose data is given as its line form (appendRedacted's; l.mu
// held).
func (l *FileLogger) writeLine(event string, data []byte, stamp time.Time) error {
	buf := getEncodeBuffer()
	defer putEncodeBuffer(buf)
	line, err := appendHeader(*buf, l.seq+1, stamp, l.sessionID, event)
	if err != nil {
		return fmt.Errorf("session log: encode %s: %w", event, err)
	}
	line = append(line, `,"data":`...)
	line = append(line, data...)
	line = append(line, '}')
	*buf = line
	return l.writeOut(event, line)
}

// writeOut appends the '\n' to an entry's encoding and writes it (l.mu held).
func (l *FileLogger) writeOut(event string, line []byte) error {
	line = append(line, '\n')
	if _, err := l.f.Write(line); err != nil {
		// Never leave a torn line for the next one to be glued to.
		_ = l.f.Truncate(l.size)
		return fmt.Errorf("session log: write %s: %w", event, err)
	}
	l.seq++
	l.size += int64(len(line))
	return nil
}

// reportHeld tells Options.OnError about held events that could not be written (outside
// l.mu, so the callback may log).
func (l *FileLogger) reportHeld(failures []heldFailure) {
	if l.onError == nil {
		return
	}
	for _, f := range failures {
		l.onError(f.event, f.err)
	}
}

// Sync writes the held streaming events and flushes the log file to stable storage
// (with Options.Background, after the events queued before it are written).
func (l *FileLogger) Sync() error {
	if l.bg != nil {
		return l.barrier(l.syncNow)
	}
	return l.syncNow()
}

func (l *FileLogger) syncNow() error {
	l.mu.Lock()
	if l.f == nil {
		l.mu.Unlock()
		return ErrClosed
	}
	heldErrs := l.flushHeld()
	err := l.f.Sync()
	l.mu.Unlock()
	l.reportHeld(heldErrs)
	return err
}

// Close writes the held streaming events, syncs and closes the log; later Logs return
// ErrClosed. Closing twice is a no-op. With Options.Background it first waits for the
// writer to write every event queued before it.
func (l *FileLogger) Close() error {
	if l.bg != nil {
		l.bg.stop()
	}
	l.mu.Lock()
	if l.f == nil {
		l.mu.Unlock()
		return nil
	}
	heldErrs := l.flushHeld()
	err := errors.Join(l.f.Sync(), l.f.Close())
	l.f = nil
	if l.due != nil {
		l.due.Stop()
		l.due = nil
	}
	l.mu.Unlock()
	l.reportHeld(heldErrs)
	return err
}

// toTree turns data into a JSON tree (numbers kept exact).
func toTree(data any) (any, error) {
	tree, _, err := toSizedTree(data)
	return tree, err
}

// toSizedTree is toTree that also tells the size of data's JSON.
func toSizedTree(data any) (any, int, error) {
	buf := getEncodeBuffer()
	defer putEncodeBuffer(buf)
	raw, err := appendData((*buf)[:0], data)
	if err != nil {
		return nil, 0, err
	}
	if cap(raw) > cap(*buf) {
		*buf = raw[:0]
	}
	tree, err := treeOf(raw) // the tree's strings are its own, not raw's
	return tree, len(raw), err
}

// appendData appends data's JSON (nothing, and nil returned, for nil data), as
// json.Marshal gives it but for member order: an agent.Event (one with a reference, a
// request rebased on the history) by the typed appender (encode.go), anything else, and
// an event that appender does not take, by JSON v2 (appendJSON). A provider request is
// encoded by the appender beside the rest of its event: json.Marshal would check and
// compact what its MarshalJSON returns once more, and a request carries the turn's new
// messages (a long answer, a file read).
func appendData(dst []byte, data any) ([]byte, error) {
	if data == nil {
		return nil, nil
	}
	if oracleEncoding != nil {
		raw, err := oracleEncoding(data)
		if err != nil || raw == nil {
			return raw, err
		}
		return append(dst, raw...), nil
	}
	switch d := data.(type) {
	case agent.Event:
		if b, ok := appendEventJSON(dst, d); ok {
			return b, nil
		}
	case historyRequestEvent:
		if b, ok := appendHistoryRequestJSON(dst, d); ok {
			return b, nil
		}
	case referredEvent:
		if d.assistant != nil {
			break
		}
		if b, ok := appendReferredJSON(dst, &d); ok {
			return b, nil
		}
		// What the appender refuses, JSON v2 most likely refuses: the error is the event's.
		raw, err := marshal(d.ev)
		if err != nil {
			return nil, err
		}
		tree, err := treeOf(raw)
		if err != nil {
			return nil, err
		}
		d.apply(tree)
		return appendTree(dst, tree)
	}
	return appendJSON(dst, data)
}

// oracleEncoding, set by tests only, makes appendData take its answer always: encoding/
// json's (json.Marshal), the oracle the lines written with JSON v2 and the appender are
// compared with.
var oracleEncoding func(data any) ([]byte, error)

// treeOf decodes data's JSON into its tree (nil for none).
func treeOf(raw []byte) (any, error) {
	if raw == nil {
		return nil, nil
	}
	return decodeTree(raw)
}

// mayStream reports whether classify could take event's data for a streaming event: its
// tree is then needed.
func mayStream(event string, data any) bool {
	switch event {
	case EventTextDelta, EventProviderStreamRawDelta, EventServerTool:
		return true
	case EventProviderNativeRawPayload:
		ev, ok := data.(agent.Event)
		return !ok || ev.RawPayload != nil && ev.RawPayload.PayloadKind == llm.PayloadStreamEvent
	}
	return false
}

// encodeJSON encodes a tree without HTML escaping and without a trailing newline, as
// encoding/json's Encoder does (see appendTree).
// It encodes into a reused buffer and returns a copy of exactly the encoding's size: a
// fresh buffer would grow by doubling from nothing for every line and payload.
func encodeJSON(v any) ([]byte, error) {
	buf := getEncodeBuffer()
	defer putEncodeBuffer(buf)
	b, err := appendTree(*buf, v)
	if err != nil {
		return nil, err
	}
	*buf = b
	return bytes.Clone(b), nil
}

// maxPooledEncodeBuffer bounds what encodeBuffers keep: a rare huge encoding is not held.
const maxPooledEncodeBuffer = 4 << 20

var encodeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func getEncodeBuffer() *[]byte { return encodeBuffers.Get().(*[]byte) }

func putEncodeBuffer(b *[]byte) {
	if cap(*b) <= maxPooledEncodeBuffer {
		*b = (*b)[:0]
		encodeBuffers.Put(b)
	}
}

// recoverTail truncates a partial last line (one without its '\n') and returns the size of
// the complete lines and the sequence of the last entry.
func recoverTail(f *os.File) (size, lastSeq int64, err error) {
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	end, lastLine, err := lastCompleteLine(f, st.Size())
	if err != nil {
		return 0, 0, err
	}
	if end < st.Size() {
		if err := f.Truncate(end); err != nil {
			return 0, 0, err
		}
	}
	if end == 0 {
		return 0, 0, nil
	}
	var e Entry
	if unmarshal(lastLine, &e) == nil && e.Sequence > 0 {
		return end, e.Sequence, nil
	}
	// The last line is not an entry (written by something else): scan everything.
	contents, err := ReadLog(io.NewSectionReader(f, 0, end))
	if err != nil {
		return 0, 0, err
	}
	for _, e := range contents.Entries {
		lastSeq = max(lastSeq, e.Sequence)
	}
	return end, lastSeq, nil
}

// lastCompleteLine reads f backwards from size and returns the offset just past the last
// '\n' (0 when there is none) and the line that '\n' ends (without it).
func lastCompleteLine(f io.ReaderAt, size int64) (end int64, line []byte, err error) {
	const chunk = 64 << 10
	var buf []byte // f[pos:size]
	pos := size
	lastNL := -1 // index in buf
	for pos > 0 {
		n := min(int64(chunk), pos)
		pos -= n
		part := make([]byte, n)
		if _, err := f.ReadAt(part, pos); err != nil && err != io.EOF {
			return 0, nil, err
		}
		buf = append(part, buf...)
		if lastNL >= 0 {
			lastNL += int(n)
		} else if i := bytes.LastIndexByte(part, '\n'); i >= 0 {
			lastNL = i
		}
		if lastNL >= 0 {
			if prev := bytes.LastIndexByte(buf[:lastNL], '\n'); prev >= 0 {
				return pos + int64(lastNL) + 1, buf[prev+1 : lastNL], nil
			}
		}
	}
	if lastNL < 0 {
		return 0, nil, nil
	}
	return int64(lastNL) + 1, buf[:lastNL], nil
}
