package wire

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Hand-written codecs of the messages every job crosses the wire in (Job, HostBatch,
// ControlBatch): the reflective codec's descent was most of the engine's and the host's
// own CPU per short job. They write the bytes the reflective codec writes (fields in
// declaration order, empty ones left out as the tags say, maps by sorted key) and read
// the plain JSON those writers produce; anything else (escapes, null, an unknown or
// repeated key, a value of another type) is read by the reflective codec, whose answer
// stands. codec_test.go holds them to the reflective codec, which stays the oracle.

// appendStr appends s quoted as the reflective codec writes it (invalid UTF-8 becomes
// U+FFFD, as codecOptions allow).
func appendStr(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s)
	return b
}

func appendKey(b []byte, first bool, key string) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStrs(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

func appendStrMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, k)
		b = append(b, ':')
		b = appendStr(b, m[k])
	}
	return append(b, '}')
}

// appendJob appends j's JSON; ok is false for a job the hand-written codec leaves to
// the reflective one: one with a sandbox, or a label name of invalid UTF-8 (two such
// names may both become U+FFFD, which the reflective codec refuses as a repeated name).
func appendJob(b []byte, j *Job) ([]byte, bool) {
	if j.Sandbox != nil {
		return b, false
	}
	for k := range j.Labels {
		if !utf8.ValidString(k) {
			return b, false
		}
	}
	b = append(b, `{"id":`...)
	b = appendStr(b, j.ID)
	if a := j.Agent; a != nil {
		b = append(b, `,"agent":{`...)
		first := true
		key := func(k string) { b = appendKey(b, first, k); first = false }
		if a.AgentType != "" {
			key("agentType")
			b = appendStr(b, a.AgentType)
		}
		key("prompt")
		b = appendStr(b, a.Prompt)
		for _, f := range [...]struct{ k, v string }{{"systemPrompt", a.SystemPrompt}, {"model", a.Model}, {"cwd", a.Cwd}} {
			if f.v != "" {
				key(f.k)
				b = appendStr(b, f.v)
			}
		}
		if len(a.Tools) > 0 {
			key("tools")
			b = appendStrs(b, a.Tools)
		}
		if a.MaxTurns != 0 {
			key("maxTurns")
			b = strconv.AppendInt(b, int64(a.MaxTurns), 10)
		}
		if len(a.AdditionalDirs) > 0 {
			key("additionalDirs")
			b = appendStrs(b, a.AdditionalDirs)
		}
		if len(a.SearchExclude) > 0 {
			key("searchExclude")
			b = appendStrs(b, a.SearchExclude)
		}
		b = append(b, '}')
	}
	if p := j.Process; p != nil {
		b = append(b, `,"process":{"command":`...)
		b = appendStr(b, p.Command)
		if p.Cwd != "" {
			b = append(b, `,"cwd":`...)
			b = appendStr(b, p.Cwd)
		}
		if p.TimeoutMs != 0 {
			b = append(b, `,"timeoutMs":`...)
			b = strconv.AppendInt(b, p.TimeoutMs, 10)
		}
		b = append(b, '}')
	}
	if len(j.Labels) > 0 {
		b = append(b, `,"labels":`...)
		b = appendStrMap(b, j.Labels)
	}
	return append(b, '}'), true
}

// decodeJob reads data into j (zero); false: leave it to the reflective codec.
func decodeJob(data []byte, j *Job) bool {
	s := newScanner(data)
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			j.ID = s.str()
			return once(&seen, 0)
		case "agent":
			j.Agent = &AgentJob{}
			return once(&seen, 1) && s.agentJob(j.Agent)
		case "process":
			j.Process = &ProcessJob{}
			return once(&seen, 2) && s.processJob(j.Process)
		case "labels":
			j.Labels = s.strMap()
			return once(&seen, 3)
		}
		return false
	})
	return s.end()
}

func (s *scanner) agentJob(a *AgentJob) bool {
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "agentType":
			a.AgentType = s.str()
			return once(&seen, 0)
		case "prompt":
			a.Prompt = s.str()
			return once(&seen, 1)
		case "systemPrompt":
			a.SystemPrompt = s.str()
			return once(&seen, 2)
		case "model":
			a.Model = s.str()
			return once(&seen, 3)
		case "cwd":
			a.Cwd = s.str()
			return once(&seen, 4)
		case "tools":
			a.Tools = s.strings()
			return once(&seen, 5)
		case "maxTurns":
			a.MaxTurns = s.int()
			return once(&seen, 6)
		case "additionalDirs":
			a.AdditionalDirs = s.strings()
			return once(&seen, 7)
		case "searchExclude":
			a.SearchExclude = s.strings()
			return once(&seen, 8)
		}
		return false
	})
	return s.ok
}

func (s *scanner) processJob(p *ProcessJob) bool {
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "command":
			p.Command = s.str()
			return once(&seen, 0)
		case "cwd":
			p.Cwd = s.str()
			return once(&seen, 1)
		case "timeoutMs":
			p.TimeoutMs = int64(s.int())
			return once(&seen, 2)
		}
		return false
	})
	return s.ok
}

// PubAckSeq reads a JetStream publish ack of the plain form the server writes
// ({"stream":..,"seq":..}, with domain or duplicate at times) and returns its
// sequence; ok is false for any other message (an error, or not plain), which the
// caller reads with Unmarshal. The engine gets one per job it publishes.
func PubAckSeq(data []byte) (seq uint64, ok bool) {
	s := newScanner(data)
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "stream":
			s.raw()
			return once(&seen, 0)
		case "seq":
			seq = s.uint()
			return once(&seen, 1)
		case "domain":
			s.raw()
			return once(&seen, 2)
		case "duplicate":
			s.bool()
			return once(&seen, 3)
		}
		return false
	})
	return seq, s.end() && seen&(1<<1) != 0
}
