// Package wire is the contract between robota-engine and its host agents on NATS
// (DESIGN.md decision 5): the subjects, the job stream, and the messages on them.
//
// Guarantees:
//   - A job message holds no secret: no provider key, base URL or header, no settings
//     secret and no environment variable. A remote process job runs with the host's
//     allowlisted environment only; model calls and permission questions come back to
//     the engine (ChatSubject, ToolSubject).
//   - Job ids are 128 random bits (NewJobID): a party that did not see a job cannot name
//     it, and the engine answers only for ids it issued.
//   - Every subject a host sends on or reads names the host (robota.<kind>.<host>...),
//     and a host's NATS user is confined to its own (HostPublish, HostSubscribe): the
//     engine takes a message's host from its subject, never from its body, and answers
//     or accepts only for the host that holds the job's current attempt.
//   - Messages are JSON (Marshal, Unmarshal). The ones every job crosses the wire in
//     (Job, HostBatch, ControlBatch) are written and read by hand (codec.go): the same
//     bytes as the reflective codec, which reads any message that is not plain JSON
//     (escapes, null, unknown or repeated keys) and answers for it, and stays the
//     tests' oracle. The others go through github.com/go-json-experiment/json (encoding/
//     json's deep reflective descent cost a stack growth in a fresh goroutine).
//   - DecodeJob refuses a message that does not parse or breaks the shape (no id, both
//     or neither of agent and process), so a host agent can terminate it instead of
//     having it redelivered forever.
package wire

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// codecOptions keep encoding/json's leniency where it matters on the wire: a job's
// output may hold invalid UTF-8 (it becomes U+FFFD, as encoding/json makes it). Built on
// first use (internal/lazy), not in a package init: every init of robota-engine and
// robota-worker runs before main on every command (issue 29).
var codecOptions = &lazy.Value[jsontext.Options]{Build: func() jsontext.Options {
	return jsontext.AllowInvalidUTF8(true)
}}

// Marshal encodes a wire message: a Job, HostBatch or ControlBatch by hand (codec.go),
// the same bytes as the reflective codec, which encodes the others.
func Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case Job:
		return AppendJob(nil, &m)
	case HostBatch:
		return AppendHostBatch(nil, &m), nil
	case ControlBatch:
		return AppendControlBatch(nil, &m), nil
	}
	return jsonv2.Marshal(v, codecOptions.Get())
}

// HostBatchDecoder reads HostBatch messages one after another into arrays (claims,
// jobs and their events) it keeps from one message to the next, rather than allocate:
// for a reader of many batches that keeps nothing of one past the next (the engine).
// A batch without claims or without jobs leaves the arrays for the next one that has
// them (a HostBatch reused as its own spare lost them there: most batches carry only
// claims or only events, and their arrays were allocated again batch after batch).
type HostBatchDecoder struct{ spare HostBatch }

// Decode is Unmarshal of a HostBatch into hb, whose arrays are the decoder's until its
// next Decode.
func (d *HostBatchDecoder) Decode(data []byte, hb *HostBatch) error {
	if *hb = (HostBatch{}); !decodeHostBatch(data, hb, &d.spare) {
		*hb = HostBatch{}
		return jsonv2.Unmarshal(data, hb, codecOptions.Get())
	}
	if hb.Claims != nil {
		d.spare.Claims = hb.Claims
	}
	if hb.Jobs != nil {
		d.spare.Jobs = hb.Jobs
	}
	return nil
}

// DecodeControlBatch is Unmarshal of a ControlBatch into cb, whose answers array it
// fills again rather than allocate (a ControlBatch always has answers).
func DecodeControlBatch(data []byte, cb *ControlBatch) error {
	spare := cb.Claims
	if *cb = (ControlBatch{}); decodeControlBatch(data, cb, spare) {
		return nil
	}
	*cb = ControlBatch{}
	return jsonv2.Unmarshal(data, cb, codecOptions.Get())
}

// AppendJob appends j's message to dst (Marshal's bytes): a sender that publishes
// many reuses one buffer (nats.Conn.Publish copies the message).
func AppendJob(dst []byte, j *Job) ([]byte, error) {
	if b, ok := appendJob(dst, j); ok {
		return b, nil
	}
	jc := *j // a copy for the reflective codec: j itself does not escape to the heap
	b, err := jsonv2.Marshal(&jc, codecOptions.Get())
	return append(dst, b...), err
}

// AppendHostBatch appends hb's message to dst (Marshal's bytes).
func AppendHostBatch(dst []byte, hb *HostBatch) []byte { return appendHostBatch(dst, hb) }

// AppendControlBatch appends cb's message to dst (Marshal's bytes).
func AppendControlBatch(dst []byte, cb *ControlBatch) []byte { return appendControlBatch(dst, cb) }

// Unmarshal decodes a wire message into v. A *Job, *HostBatch or *ControlBatch is
// decoded into a zero value (what it held is dropped): by hand when the message is
// plain, else by the reflective codec, whose answer is the same (codec.go).
func Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *Job:
		if *m = (Job{}); decodeJob(data, m) {
			return nil
		}
		*m = Job{}
	case *HostBatch:
		if *m = (HostBatch{}); decodeHostBatch(data, m, nil) {
			return nil
		}
		*m = HostBatch{}
	case *ControlBatch:
		if *m = (ControlBatch{}); decodeControlBatch(data, m, nil) {
			return nil
		}
		*m = ControlBatch{}
	}
	return jsonv2.Unmarshal(data, v, codecOptions.Get())
}

// Names of the JetStream objects the engine creates and the host agents use.
const (
	// Stream is the work-queue stream of jobs.
	Stream = "ROBOTA_JOBS"
	// Consumer is the durable pull consumer every host agent pulls from: JetStream
	// hands each message to one of them and redelivers it when its holder stops acking.
	Consumer = "hosts"
	// JobsSubject is the subject jobs are published on (the stream's only subject).
	JobsSubject = "robota.jobs"
)

// Subjects of one job, scoped by the host that holds it: robota.<kind>.<host>.<job>.
// A host's NATS user may publish and subscribe only under its own name (HostPublish,
// HostSubscribe), so the host a subject names is the one that sent the message (the
// server checked it), and the engine answers and accepts only for the job's holder.
func ClaimSubject(host, jobID string) string   { return "robota.claim." + host + "." + jobID }
func EventSubject(host, jobID string) string   { return "robota.ev." + host + "." + jobID }
func ChatSubject(host, jobID string) string    { return "robota.chat." + host + "." + jobID }
func ToolSubject(host, jobID string) string    { return "robota.tool." + host + "." + jobID }
func ControlSubject(host, jobID string) string { return "robota.ctl." + host + "." + jobID }

// EventsSubject is where host sends HostBatch: its claims and the events of all its
// attempts queued while its previous batch was being sent, in one message (a host runs
// many short jobs at once; a request per claim batch and a message per attempt were most
// of a short job's dispatch cost). It is an event subject that names no job: job ids
// are hex. The engine answers the claims with a ControlBatch on ControlBatchSubject.

func EventsSubject(host string) string { return EventSubject(host, batchToken) }

// IsEvents reports whether subject is a host's EventsSubject.
func IsEvents(subject string) bool {
	return strings.HasPrefix(subject, "robota.ev.") && JobIDOf(subject) == batchToken
}

// ControlWildcard is what a host agent subscribes to, once: the control subjects of all
// its jobs and its ControlBatchSubject (a subscription per job cost the server a
// subscribe and an unsubscribe each).
func ControlWildcard(host string) string { return "robota.ctl." + host + ".*" }

// ControlBatchSubject is where the engine answers host's claims sent in a HostBatch
// (ControlBatch). Only host may read it, as only host may read its inboxes.
func ControlBatchSubject(host string) string { return ControlSubject(host, batchToken) }

// IsControlBatch reports whether subject is a host's ControlBatchSubject.
func IsControlBatch(subject string) bool {
	return strings.HasPrefix(subject, "robota.ctl.") && JobIDOf(subject) == batchToken
}

// HeartbeatSubject is host's heartbeat subject.
func HeartbeatSubject(host string) string { return "robota.hb." + host }

// ClaimsSubject is where host sends Claims: the claims of the jobs it took while its
// previous batch was being answered, in one request (a host takes many short jobs at
// once; one round trip each was most of a short job's dispatch cost). It is a claim
// subject that names no job: job ids are hex.
func ClaimsSubject(host string) string { return ClaimSubject(host, batchToken) }

const batchToken = "batch"

// IsClaims reports whether subject is a host's ClaimsSubject.
func IsClaims(subject string) bool {
	return strings.HasPrefix(subject, "robota.claim.") && JobIDOf(subject) == batchToken
}

// InboxPrefix is the prefix of host's reply inboxes (nats.CustomInboxPrefix): a host
// may subscribe only under its own, so no host reads another's replies, and the engine
// answers a host's request only when its reply subject is under this prefix.
func InboxPrefix(host string) string { return "robota.inbox." + host }

// Wildcards the engine subscribes to.
const (
	ClaimWildcard     = "robota.claim.*.*"
	EventWildcard     = "robota.ev.*.*"
	ChatWildcard      = "robota.chat.*.*"
	ToolWildcard      = "robota.tool.*.*"
	HeartbeatWildcard = "robota.hb.*"
)

// HostPublish lists the subjects host's NATS user may publish on: its claims, events,
// calls and heartbeat, the hosts' consumer's pull and info requests, and acks of the
// hosts' consumer's messages (progress acks, naks and terms of the jobs it took).
func HostPublish(host string) []string {
	return []string{
		"robota.claim." + host + ".*", "robota.ev." + host + ".*", "robota.chat." + host + ".*",
		"robota.tool." + host + ".*", HeartbeatSubject(host),
		"$JS.API.CONSUMER.INFO." + Stream + "." + Consumer, "$JS.API.CONSUMER.MSG.NEXT." + Stream + "." + Consumer,
		"$JS.ACK." + Stream + "." + Consumer + ".>",
	}
}

// HostSubscribe lists the subjects host's NATS user may subscribe to: the control
// subjects of its own jobs and its own inboxes. Never the job stream's subject, another
// host's subjects, the engine's subjects or the engine's inboxes.
func HostSubscribe(host string) []string {
	return []string{ControlWildcard(host), InboxPrefix(host) + ".>"}
}

// ValidHostName reports whether name can name a host agent: 1 to 64 of A-Z a-z 0-9 _ -
// (a NATS subject token, a NATS user name and a file name).
func ValidHostName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// HostOf returns the host a per-host subject names ("" when it names none).
func HostOf(subject string) string {
	rest, ok := strings.CutPrefix(subject, "robota.")
	if !ok {
		return ""
	}
	_, rest, ok = strings.Cut(rest, ".")
	if !ok {
		return ""
	}
	host, _, _ := strings.Cut(rest, ".")
	return host
}

// JobIDOf returns the job id a per-job subject names ("" when it names none).
func JobIDOf(subject string) string {
	i := strings.LastIndexByte(subject, '.')
	if i < 0 {
		return ""
	}
	return subject[i+1:]
}

// NewJobID returns a fresh job id: 32 hex digits of a ChaCha8 generator seeded from
// crypto/rand (math/rand/v2's ChaCha8 is cryptographically strong: an id cannot be
// guessed from others). crypto/rand per id cost a stack growth in each Start's fresh
// goroutine (its reader's frames are deep), a few microseconds of a short job's dispatch.
func NewJobID() string {
	var b [16]byte
	ids.mu.Lock()
	if ids.r == nil {
		var seed [32]byte
		_, _ = rand.Read(seed[:]) // crypto/rand.Read never fails (Go 1.24+)
		ids.r = mrand.NewChaCha8(seed)
	}
	_, _ = ids.r.Read(b[:]) // ChaCha8.Read never fails
	ids.mu.Unlock()
	var out [32]byte // on the stack: the id's string is the only allocation
	hex.Encode(out[:], b[:])
	return string(out[:])
}

var ids struct {
	mu sync.Mutex
	r  *mrand.ChaCha8
}

// ValidJobID reports whether id has NewJobID's shape (and so is a safe subject token).
func ValidJobID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := range len(id) { // not hex.DecodeString: no buffer per job decoded
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// Job is one job on the stream.
type Job struct {
	ID      string      `json:"id"`
	Agent   *AgentJob   `json:"agent,omitempty"`
	Process *ProcessJob `json:"process,omitempty"`
	// Labels the running host must offer (os, arch, gpu, repo, ...): all must match.
	Labels map[string]string `json:"labels,omitempty"`
	// Sandbox is the job's command sandbox (paths only), when the session has one.
	Sandbox *runnerapi.Sandbox `json:"sandbox,omitempty"`
}

// AgentJob is a subagent session (runnerapi.AgentJob's fields).
type AgentJob struct {
	AgentType      string   `json:"agentType,omitempty"`
	Prompt         string   `json:"prompt"`
	SystemPrompt   string   `json:"systemPrompt,omitempty"`
	Model          string   `json:"model,omitempty"`
	Cwd            string   `json:"cwd,omitempty"`
	Tools          []string `json:"tools,omitempty"`
	MaxTurns       int      `json:"maxTurns,omitempty,omitzero"`
	AdditionalDirs []string `json:"additionalDirs,omitempty"`
	SearchExclude  []string `json:"searchExclude,omitempty"`
}

// ProcessJob is a shell command. It has no environment on purpose (see the package doc).
type ProcessJob struct {
	Command   string `json:"command"`
	Cwd       string `json:"cwd,omitempty"`
	TimeoutMs int64  `json:"timeoutMs,omitempty,omitzero"`
}

// Errors of DecodeJob.
var ErrBadJob = errors.New("malformed job message")

// FromRunner converts job for the stream under id; a process job's environment is
// dropped (it may hold secrets). Isolation is the engine's business (worktrees are made
// where the engine runs), so it does not cross.
func FromRunner(id string, job runnerapi.Job, labels map[string]string) Job {
	out := Job{ID: id, Labels: labels, Sandbox: job.Sandbox}
	if a := job.Agent; a != nil {
		out.Agent = &AgentJob{AgentType: a.AgentType, Prompt: a.Prompt, SystemPrompt: a.SystemPrompt, Model: a.Model,
			Cwd: a.Cwd, Tools: a.Tools, MaxTurns: a.MaxTurns, AdditionalDirs: a.AdditionalDirs, SearchExclude: a.SearchExclude}
	}
	if p := job.Process; p != nil {
		out.Process = &ProcessJob{Command: p.Command, Cwd: p.Cwd, TimeoutMs: p.Timeout.Milliseconds()}
	}
	return out
}

// Runner is the job as the host agent's local worker runs it.
func (j Job) Runner() runnerapi.Job {
	out := runnerapi.Job{ID: j.ID, Sandbox: j.Sandbox}
	if a := j.Agent; a != nil {
		out.Agent = &runnerapi.AgentJob{AgentType: a.AgentType, Prompt: a.Prompt, SystemPrompt: a.SystemPrompt,
			Model: a.Model, Cwd: a.Cwd, Tools: a.Tools, MaxTurns: a.MaxTurns, AdditionalDirs: a.AdditionalDirs,
			SearchExclude: a.SearchExclude}
	}
	if p := j.Process; p != nil {
		out.Process = &runnerapi.ProcessJob{Command: p.Command, Cwd: p.Cwd, Timeout: msDuration(p.TimeoutMs)}
	}
	return out
}

// Cwd is the directory the job runs in ("" when it did not say).
func (j Job) Cwd() string {
	if j.Agent != nil {
		return j.Agent.Cwd
	}
	if j.Process != nil {
		return j.Process.Cwd
	}
	return ""
}

// DecodeJob parses a job message and checks its shape.
func DecodeJob(data []byte) (Job, error) {
	var j Job
	if err := Unmarshal(data, &j); err != nil {
		return Job{}, fmt.Errorf("%w: %v", ErrBadJob, err)
	}
	switch {
	case !ValidJobID(j.ID):
		return Job{}, fmt.Errorf("%w: id %q is not a job id", ErrBadJob, j.ID)
	case (j.Agent == nil) == (j.Process == nil):
		return Job{}, fmt.Errorf("%w: exactly one of agent and process must be set", ErrBadJob)
	case j.Agent != nil && strings.TrimSpace(j.Agent.Prompt) == "":
		return Job{}, fmt.Errorf("%w: an agent job needs a prompt", ErrBadJob)
	case j.Process != nil && strings.TrimSpace(j.Process.Command) == "":
		return Job{}, fmt.Errorf("%w: a process job needs a command", ErrBadJob)
	case j.Process != nil && j.Process.TimeoutMs < 0:
		return Job{}, fmt.Errorf("%w: negative timeout", ErrBadJob)
	}
	return j, nil
}

// Claim is a host agent's request to run a job it took from the stream.
type Claim struct {
	// Host is the claiming host's name; the engine trusts the one the subject names and
	// refuses a claim whose Host differs.
	Host string `json:"host"`
	// Probe asks only whether the job is still wanted, without taking it (a host that
	// lacks a label the job requires asks, and terminates the message when not).
	Probe bool `json:"probe,omitempty,omitzero"`
	// Ack is the JetStream ack subject of the delivery the host holds. The engine acks
	// the message itself once it has the attempt's terminal event (one message fewer
	// and no wait on the host), and checks the subject names this stream, its consumer
	// and the job's own stream sequence (AckSeq).
	Ack string `json:"ack,omitempty"`
	// Job is the job claimed, in a Claims or HostBatch batch (a single claim names it in
	// its subject).
	Job string `json:"job,omitempty"`
	// N numbers a claim in a HostBatch, unique on its host; the reply echoes it, so a
	// late reply to an earlier delivery's claim answers no later one.
	N uint64 `json:"n,omitempty,omitzero"`
}

// ClaimReply is the engine's answer: Run says whether to run it, as attempt Attempt;
// when not, Reason says why (unknown job, already ended, cancelled).
type ClaimReply struct {
	Run     bool   `json:"run"`
	Attempt int    `json:"attempt,omitempty,omitzero"`
	Reason  string `json:"reason,omitempty"`
	// Job and N name the claim answered, in a ControlBatch.
	Job string `json:"job,omitempty"`
	N   uint64 `json:"n,omitempty,omitzero"`
}

// ControlBatch is an engine → host message on the host's ControlBatchSubject: the
// answers to the claims of a HostBatch.
type ControlBatch struct {
	Claims []ClaimReply `json:"claims,omitempty"`
}

// Claims is a batch of claims of one host; each Claim names its Job.
type Claims struct {
	Host   string  `json:"host"`
	Claims []Claim `json:"claims"`
}

// ClaimsReply answers Claims, one reply per claim in order.
type ClaimsReply struct {
	Replies []ClaimReply `json:"replies"`
}

// AckSeq returns the stream sequence a JetStream ack subject of the hosts' consumer on
// the job stream names; ok is false for any other subject. Both forms of ack subject
// are read: $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<dseq>.<ts>.<pending> and
// the newer $JS.ACK.<domain>.<account>.<stream>.<consumer>.<delivered>.<sseq>....
func AckSeq(subject string) (seq uint64, ok bool) {
	var buf [16]string // a fixed array: read once per claim, no allocation
	t := buf[:0]
	for rest := subject; len(t) < len(buf); {
		tok, after, more := strings.Cut(rest, ".")
		t = append(t, tok)
		if !more {
			break
		}
		rest = after
	}
	if len(t) < 9 || t[0] != "$JS" || t[1] != "ACK" {
		return 0, false
	}
	i := 2
	if len(t) >= 12 {
		i = 4
	}
	if t[i] != Stream || t[i+1] != Consumer {
		return 0, false
	}
	var n uint64
	for _, c := range t[i+3] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, n > 0
}

// Events is a batch of one attempt's events, host → engine, in order. A host coalesces
// what its job emitted while the previous batch was being sent; a batch ends at the
// attempt's terminal event. Published without a reply: the engine acks the job's
// stream message when it takes the terminal event (Claim.Ack), so a lost batch leaves
// the message unacked and redelivered (at least once).
type Events struct {
	Host    string `json:"host"`
	Attempt int    `json:"attempt"`
	Events  []Ev   `json:"ev"`
	// Job is the job whose events these are, in a HostEvents batch (on a job's own
	// EventSubject, the subject names it).
	Job string `json:"job,omitempty"`
}

// HostBatch is what a host sends on its EventsSubject: claims of jobs it took (the
// engine answers them in one ControlBatch) and the events of several of its attempts,
// each attempt's in order. The engine takes the host from the subject and refuses a
// batch whose Host differs.
type HostBatch struct {
	Host   string   `json:"host"`
	Claims []Claim  `json:"claims,omitempty"`
	Jobs   []Events `json:"jobs,omitempty"`
}

// Ev is runnerapi.Event on the wire, with short keys and empty fields left out (an
// event is encoded and decoded once per hop, and most fields are empty).
type Ev struct {
	Kind        runnerapi.EventKind `json:"k"`
	PID         int                 `json:"pid,omitempty,omitzero"`
	Text        string              `json:"t,omitempty"`
	Tool        *ToolProgress       `json:"tool,omitempty"`
	Output      string              `json:"out,omitempty"`
	ExitCode    int                 `json:"code,omitempty,omitzero"`
	Error       string              `json:"err,omitempty"`
	Category    string              `json:"cat,omitempty"`
	Recoverable bool                `json:"rec,omitempty,omitzero"`
	Reason      string              `json:"why,omitempty"`
}

// ToolProgress is runnerapi.ToolProgress on the wire.
type ToolProgress struct {
	CallID   string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	FirstArg string `json:"arg,omitempty"`
	Error    string `json:"err,omitempty"`
}

// EvOf converts a runner's event for the wire (its job id, sequence, host and attempt
// are the engine's to set).
func EvOf(e runnerapi.Event) Ev {
	out := Ev{Kind: e.Kind, PID: e.PID, Text: e.Text, Output: e.Output, ExitCode: e.ExitCode, Error: e.Error,
		Category: e.Category, Recoverable: e.Recoverable, Reason: e.Reason}
	if t := e.Tool; t != nil {
		out.Tool = &ToolProgress{CallID: t.CallID, Name: t.Name, FirstArg: t.FirstArg, Error: t.Error}
	}
	return out
}

// Runner is the event as the engine's task manager gets it.
func (e Ev) Runner() runnerapi.Event {
	out := runnerapi.Event{Kind: e.Kind, PID: e.PID, Text: e.Text, Output: e.Output, ExitCode: e.ExitCode, Error: e.Error,
		Category: e.Category, Recoverable: e.Recoverable, Reason: e.Reason}
	if t := e.Tool; t != nil {
		out.Tool = &runnerapi.ToolProgress{CallID: t.CallID, Name: t.Name, FirstArg: t.FirstArg, Error: t.Error}
	}
	return out
}

// Heartbeat is what a host agent publishes every second: who it is, what it offers and
// which attempts it runs.
type Heartbeat struct {
	Host   string            `json:"host"`
	Labels map[string]string `json:"labels,omitempty"`
	Slots  int               `json:"slots"`
	Jobs   map[string]int    `json:"jobs,omitempty"` // job id → attempt
}

// Call is a host → engine request of a running attempt: a model call (Chat) or a tool
// call to decide (Tool).
type Call struct {
	Attempt int             `json:"attempt"`
	Chat    json.RawMessage `json:"chat,omitempty"` // an llm.ChatRequest
	Tool    *ToolCall       `json:"tool,omitempty"`
}

// ToolCall is runnerapi.ToolCall on the wire.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// Step is an engine → host message on a call's reply inbox: deltas and the result of
// a model call; for a tool call, Execute (a request: the host replies with the tool's
// result) then Result.
type Step struct {
	TextDelta     string          `json:"textDelta,omitempty"`
	ThinkingDelta string          `json:"thinkingDelta,omitempty"`
	ServerToolUse json.RawMessage `json:"serverToolUse,omitempty"`
	Execute       json.RawMessage `json:"execute,omitempty"`
	// Sandbox comes with Execute for a job whose commands run in the command sandbox:
	// this call's, the session's rules walked again as the engine lets it run, so a path
	// an earlier command of the job made is covered. Without it (an older engine) the
	// job's own Sandbox holds.
	Sandbox *runnerapi.Sandbox `json:"sandbox,omitempty"`
	// SearchExclude comes with Execute for a Grep or Glob call of a job whose searches
	// leave out what a Read deny rule covers: the paths the engine's walk as it lets the
	// call run finds, left out besides the job's own list (runnerapi.WithSearchExclude).
	SearchExclude []string `json:"searchExclude,omitempty"`
	// Done marks the last step; Result (an llm.ChatResponse or llm.ToolResult) and Error
	// (an llm.Error of a failed model call, or the engine's refusal) come with it.
	Done   bool            `json:"done,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	Refuse string          `json:"refuse,omitempty"`
}

// Control is an engine → host message on a job's control subject.
type Control struct {
	Cancel bool   `json:"cancel,omitempty,omitzero"`
	Reason string `json:"reason,omitempty"`
	Send   string `json:"send,omitempty"`
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
