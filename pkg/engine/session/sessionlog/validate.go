package sessionlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// IssueCode classifies a validation issue.
type IssueCode string

const (
	// A provider_request has no provider_native_raw_payload of kind response or
	// stream_event for the same executionId and round.
	IssueNativeRawPayloadMissing IssueCode = "PROVIDER_NATIVE_RAW_PAYLOAD_MISSING"
	// A provider_request has no provider_response_raw.
	IssueResponseRawMissing IssueCode = "PROVIDER_RESPONSE_RAW_MISSING"
	// A provider_request has no provider_response_normalized.
	IssueResponseNormalizedMissing IssueCode = "PROVIDER_RESPONSE_NORMALIZED_MISSING"
	// A tool_execution_request has no tool_execution_result.
	IssueToolResultMissing IssueCode = "TOOL_RESULT_MISSING"
	// A tool_execution_result has no tool_execution_request.
	IssueToolRequestMissing IssueCode = "TOOL_REQUEST_MISSING"
	// A payload reference is malformed, names another path, or its file is missing or
	// does not match its digest and length.
	IssuePayloadReferenceInvalid IssueCode = "PAYLOAD_REFERENCE_INVALID"
	// A history_mutation append's index is not the current history length (a reset was
	// not logged, or events were lost).
	IssueHistoryIndexMismatch IssueCode = "HISTORY_INDEX_MISMATCH"
	// An entry's data lacks what its event needs, or it belongs to another session.
	IssueEntryMalformed IssueCode = "ENTRY_MALFORMED"
	// Sequence numbers do not increase.
	IssueSequenceOutOfOrder IssueCode = "SEQUENCE_OUT_OF_ORDER"
	// A provider_request, or a native request body, extends a base that is not earlier in
	// the log.
	IssueRequestBaseMissing IssueCode = "PROVIDER_REQUEST_BASE_MISSING"
)

// Issue is one validation finding.
type Issue struct {
	Code        IssueCode `json:"code"`
	Message     string    `json:"message"`
	Sequence    int64     `json:"sequence,omitempty"`
	Line        int       `json:"line,omitempty"`
	ExecutionID string    `json:"executionId,omitempty"`
	Round       int       `json:"round,omitempty"`
	ToolCallID  string    `json:"toolCallId,omitempty"`
}

// Validation is the result of ValidateSessionReplayLogEntries.
type Validation struct {
	OK     bool
	Issues []Issue
}

// identity is what validation reads from replay-boundary event data (agent.Event's shape;
// toolCallId and payloadKind are also accepted at the top level).
type identity struct {
	ExecutionID string `json:"executionId"`
	Round       *int   `json:"round"`
	ToolCallID  string `json:"toolCallId"`
	PayloadKind string `json:"payloadKind"`
	Tool        *struct {
		ToolCallID string `json:"toolCallId"`
	} `json:"tool"`
	RawPayload *struct {
		PayloadKind string       `json:"payloadKind"`
		PayloadBase *PayloadBase `json:"payloadBase"`
	} `json:"rawPayload"`
}

func (id identity) toolCallID() string {
	if id.Tool != nil && id.Tool.ToolCallID != "" {
		return id.Tool.ToolCallID
	}
	return id.ToolCallID
}

func (id identity) payloadKind() string {
	if id.RawPayload != nil {
		return id.RawPayload.PayloadKind
	}
	return id.PayloadKind
}

type roundKey struct {
	execution string
	round     int
}

type toolKey struct {
	roundKey
	call string
}

type roundEvents struct {
	request                         *Entry
	nativeResponse, raw, normalized bool
	// compact: the request was written at LevelCompact, which writes no raw payloads.
	compact bool
}

// ValidateSessionReplayLogEntries checks that a log can be replayed: every provider_request
// has its native response payload, raw response and normalized response, and a delta
// request names a base request earlier in the log and adds up to its messageCount; every
// tool request has a result and every result a request; every payload reference is well
// formed and, when payloads is not nil, names a file with matching content; history
// appends are contiguous and pre_run's historyLength is the history's; sequences increase.
func ValidateSessionReplayLogEntries(entries []Entry, payloads PayloadSource) Validation {
	v := &validator{rounds: map[roundKey]*roundEvents{}, requests: map[toolKey]*Entry{}, results: map[toolKey]bool{},
		requestCounts: map[roundKey]int{}, nativeRequests: map[roundKey]bool{}}
	for i := range entries {
		v.entry(&entries[i], payloads)
	}
	v.finish()
	return Validation{OK: len(v.issues) == 0, Issues: v.issues}
}

type validator struct {
	issues     []Issue
	sessionID  string
	lastSeq    int64
	rounds     map[roundKey]*roundEvents
	roundOrder []roundKey
	requests   map[toolKey]*Entry
	toolOrder  []toolKey
	results    map[toolKey]bool
	histLen    int
	histKnown  bool
	// requestCounts is the message count of each provider request seen (-1: unknown).
	requestCounts map[roundKey]int
	// nativeRequests are the native request bodies seen.
	nativeRequests map[roundKey]bool
	// compact: the lines since the last session_init are LevelCompact's (no history
	// appends, no tool requests, no raw payloads; see Level).
	compact bool
}

func (v *validator) add(e *Entry, code IssueCode, format string, args ...any) *Issue {
	is := Issue{Code: code, Message: fmt.Sprintf(format, args...)}
	if e != nil {
		is.Sequence, is.Line = e.Sequence, e.Line
	}
	v.issues = append(v.issues, is)
	return &v.issues[len(v.issues)-1]
}

func (v *validator) entry(e *Entry, payloads PayloadSource) {
	if v.sessionID == "" {
		v.sessionID = e.SessionID
		v.histKnown = true
	} else if e.SessionID != v.sessionID {
		v.add(e, IssueEntryMalformed, "entry of session %q in the log of %q", e.SessionID, v.sessionID)
	}
	if e.Sequence <= v.lastSeq {
		v.add(e, IssueSequenceOutOfOrder, "sequence %d after %d", e.Sequence, v.lastSeq)
	}
	v.lastSeq = max(v.lastSeq, e.Sequence)
	v.checkReferences(e, payloads)

	switch e.Event {
	case EventSessionInit:
		var d struct {
			LogLevel Level `json:"logLevel"`
		}
		_ = unmarshal(e.Data, &d)
		v.compact = d.LogLevel == LevelCompact
		if v.compact {
			v.histKnown = false // the journal holds the appends
		}
	case EventProviderRequest, EventProviderNativeRawPayload, EventProviderResponseRaw,
		EventProviderResponseNormalized:
		v.providerEvent(e, payloads)
	case EventPreRun:
		var d struct {
			HistoryLength *int `json:"historyLength"`
		}
		if unmarshal(e.Data, &d) == nil && d.HistoryLength != nil && v.histKnown && *d.HistoryLength != v.histLen {
			v.add(e, IssueHistoryIndexMismatch, "pre_run with a history of %d messages, the log's has %d", *d.HistoryLength, v.histLen)
		}
	case EventToolExecutionRequest, EventToolExecutionResult:
		v.toolEvent(e)
	case EventHistoryMutation:
		v.historyEvent(e, payloads)
	}
}

func (v *validator) identity(e *Entry) (identity, bool) {
	var id identity
	if err := unmarshal(e.Data, &id); err != nil || id.ExecutionID == "" || id.Round == nil {
		v.add(e, IssueEntryMalformed, "%s without executionId and round", e.Event)
		return id, false
	}
	return id, true
}

func (v *validator) providerEvent(e *Entry, payloads PayloadSource) {
	id, ok := v.identity(e)
	if !ok {
		return
	}
	k := roundKey{id.ExecutionID, *id.Round}
	r := v.rounds[k]
	if r == nil {
		r = &roundEvents{}
		v.rounds[k] = r
		v.roundOrder = append(v.roundOrder, k)
	}
	switch e.Event {
	case EventProviderRequest:
		r.request, r.compact = e, v.compact
		v.requestChain(e, k, payloads)
	case EventProviderNativeRawPayload:
		if kind := id.payloadKind(); kind == "response" || kind == "stream_event" {
			r.nativeResponse = true
		}
		if id.payloadKind() == string(llm.PayloadRequest) {
			if b := id.RawPayload.PayloadBase; b != nil && !v.nativeRequests[roundKey{b.ExecutionID, b.Round}] {
				is := v.add(e, IssueRequestBaseMissing, "native request body extends %s round %d, which is not earlier in the log", b.ExecutionID, b.Round)
				is.ExecutionID, is.Round = k.execution, k.round
			}
			v.nativeRequests[k] = true
		}
	case EventProviderResponseRaw:
		r.raw = true
	case EventProviderResponseNormalized:
		r.normalized = true
	}
}

func (v *validator) toolEvent(e *Entry) {
	id, ok := v.identity(e)
	if !ok {
		return
	}
	call := id.toolCallID()
	if call == "" {
		v.add(e, IssueEntryMalformed, "%s without toolCallId", e.Event)
		return
	}
	k := toolKey{roundKey{id.ExecutionID, *id.Round}, call}
	if e.Event == EventToolExecutionRequest {
		if _, dup := v.requests[k]; !dup {
			v.toolOrder = append(v.toolOrder, k)
		}
		v.requests[k] = e
		return
	}
	if _, ok := v.requests[k]; !ok && !v.compact {
		is := v.add(e, IssueToolRequestMissing, "tool result %s has no request", call)
		is.ExecutionID, is.Round, is.ToolCallID = k.execution, k.round, call
	}
	v.results[k] = true
}

func (v *validator) historyEvent(e *Entry, payloads PayloadSource) {
	// Only the mutation is decoded here: message members may be payload references.
	var ev struct {
		Mutation json.RawMessage `json:"mutation"`
	}
	if err := unmarshal(e.Data, &ev); err != nil {
		v.add(e, IssueEntryMalformed, "history_mutation data: %v", err)
		return
	}
	m, err := mutationEvent{Mutation: ev.Mutation}.parse()
	if err != nil {
		v.add(e, IssueEntryMalformed, "history_mutation kind: %v", err)
		return
	}
	switch m.kind {
	case MutationAppend:
		if m.index != nil && v.histKnown && *m.index != v.histLen {
			v.add(e, IssueHistoryIndexMismatch, "append at index %d, history has %d messages", *m.index, v.histLen)
			v.histLen = *m.index // resynchronize: report each gap once
		}
		v.histLen++
	case MutationReset:
		var full struct {
			Messages  []json.RawMessage    `json:"messages"`
			Continues *HistoryContinuation `json:"continues"`
		}
		data, err := Hydrate(e.Data, e.SessionID, payloads)
		if err == nil {
			err = unmarshal(data, &full)
		}
		if c := full.Continues; c != nil && err == nil {
			if v.compact {
				v.histKnown = false // the journal's history: appends follow unlogged
				return
			}
			if v.histKnown && c.Messages != v.histLen {
				v.add(e, IssueHistoryIndexMismatch, "reset continues a history of %d messages, the log's has %d", c.Messages, v.histLen)
			}
			v.histLen, v.histKnown = c.Messages+len(full.Messages), true
			return
		}
		v.histLen, v.histKnown = len(full.Messages), err == nil && !v.compact
	default:
		v.add(e, IssueEntryMalformed, "unknown history_mutation kind %q", m.kind)
	}
}

// requestChain checks a provider_request's messages against its base and records its
// message count for the requests that extend it.
func (v *validator) requestChain(e *Entry, k roundKey, payloads PayloadSource) {
	var ev struct {
		Request *struct {
			Messages     json.RawMessage `json:"messages"`
			Base         *requestBase    `json:"base"`
			MessageCount *int            `json:"messageCount"`
			NewMessages  json.RawMessage `json:"newMessages"`
		} `json:"request"`
	}
	if err := unmarshal(e.Data, &ev); err != nil || ev.Request == nil {
		v.add(e, IssueEntryMalformed, "provider_request without request")
		return
	}
	r := ev.Request
	if r.Messages != nil {
		v.requestCounts[k] = arrayLen(e, r.Messages, payloads)
		return
	}
	if r.MessageCount == nil || r.NewMessages == nil {
		v.add(e, IssueEntryMalformed, "provider_request without messages, or newMessages and messageCount")
		return
	}
	v.requestCounts[k] = *r.MessageCount
	shared := 0
	if b := r.Base; b != nil && b.History {
		shared = b.Messages
		if shared < 0 || v.histKnown && shared > v.histLen {
			v.add(e, IssueEntryMalformed, "provider_request shares %d messages of a history of %d", shared, v.histLen)
			return
		}
	} else if b != nil {
		shared = b.Messages
		baseCount, ok := v.requestCounts[roundKey{b.ExecutionID, b.Round}]
		switch {
		case !ok:
			is := v.add(e, IssueRequestBaseMissing, "provider_request extends %s round %d, which is not earlier in the log", b.ExecutionID, b.Round)
			is.ExecutionID, is.Round = k.execution, k.round
			return
		case shared < 0 || baseCount >= 0 && shared > baseCount:
			v.add(e, IssueEntryMalformed, "provider_request shares %d messages of a base request of %d", shared, baseCount)
			return
		}
	}
	if added := arrayLen(e, r.NewMessages, payloads); added >= 0 && shared+added != *r.MessageCount {
		v.add(e, IssueEntryMalformed, "provider_request messageCount %d, but its base shares %d and it adds %d", *r.MessageCount, shared, added)
	}
}

// arrayLen is the length of a JSON array on a line (a payload reference is resolved), or
// -1 when it cannot be read (checkReferences reports why).
func arrayLen(e *Entry, raw json.RawMessage, payloads PayloadSource) int {
	raw, err := Hydrate(raw, e.SessionID, payloads)
	var items []json.RawMessage
	if err != nil || unmarshal(raw, &items) != nil {
		return -1
	}
	return len(items)
}

// checkReferences reports every malformed, misplaced or (with payloads) unresolvable
// payload reference in the entry's data.
func (v *validator) checkReferences(e *Entry, payloads PayloadSource) {
	if len(e.Data) == 0 {
		return
	}
	tree, err := toTree(e.Data)
	if err != nil {
		v.add(e, IssueEntryMalformed, "data: %v", err)
		return
	}
	walkRefs(tree, func(ref PayloadRef, err error) {
		if err == nil {
			if payloads == nil {
				err = ref.Validate(e.SessionID)
			} else {
				_, err = resolve(ref, e.SessionID, payloads)
			}
		}
		if err != nil && !errors.Is(err, ErrNoPayloadSource) {
			v.add(e, IssuePayloadReferenceInvalid, "%s: %v", e.Event, err)
		}
	})
}

func walkRefs(v any, fn func(PayloadRef, error)) {
	if ref, claimed, err := asPayloadRef(v); claimed {
		fn(ref, err)
		return
	}
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys) // deterministic issue order
		for _, k := range keys {
			walkRefs(t[k], fn)
		}
	case []any:
		for _, c := range t {
			walkRefs(c, fn)
		}
	}
}

func (v *validator) finish() {
	for _, k := range v.roundOrder {
		r := v.rounds[k]
		if r.request == nil {
			continue
		}
		missing := []struct {
			ok   bool
			code IssueCode
			what string
		}{
			{r.nativeResponse || r.compact, IssueNativeRawPayloadMissing, "provider_native_raw_payload (response or stream_event)"},
			{r.raw || r.compact, IssueResponseRawMissing, "provider_response_raw"},
			{r.normalized, IssueResponseNormalizedMissing, "provider_response_normalized"},
		}
		for _, m := range missing {
			if !m.ok {
				is := v.add(r.request, m.code, "provider request of execution %s round %d has no %s", k.execution, k.round, m.what)
				is.ExecutionID, is.Round = k.execution, k.round
			}
		}
	}
	for _, k := range v.toolOrder {
		if !v.results[k] {
			is := v.add(v.requests[k], IssueToolResultMissing, "tool request %s has no result", k.call)
			is.ExecutionID, is.Round, is.ToolCallID = k.execution, k.round, k.call
		}
	}
}
