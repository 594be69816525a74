package wire

import (
	"bytes"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// The hand-written codecs (codec.go) against the reflective one, the oracle: the same
// bytes out, the same value (or a refusal) in.

func oracleMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := jsonv2.Marshal(v, codecOptions.Get(), jsonv2.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// odd strings: escapes, HTML characters, line separators, invalid UTF-8, non-ASCII.
var oddStrings = []string{"", "x", `a"b\c`, "tab\there\nnl\r\x00\x1f", "<a href='x'>&amp;</a>", "\u2028\u2029",
	"bad \xff\xfe utf8", "héllo wörld ✓ 🙂", "/", "\x7f"}

func sampleMessages() []any {
	id := NewJobID()
	var out []any
	for i, s := range oddStrings {
		out = append(out,
			Job{ID: id, Process: &ProcessJob{Command: "ok:" + s, Cwd: s, TimeoutMs: int64(i * 1000)}, Labels: map[string]string{"os": s, s: "v", "z": "a"}},
			Job{ID: s, Agent: &AgentJob{AgentType: s, Prompt: s, SystemPrompt: s, Model: s, Cwd: s, Tools: []string{s, "Bash"},
				MaxTurns: i - 3, AdditionalDirs: []string{s}, SearchExclude: []string{}}},
			HostBatch{Host: s, Claims: []Claim{{Host: s, Probe: i%2 == 0, Ack: s, Job: id, N: uint64(i) << 60}, {}},
				Jobs: []Events{{Host: s, Attempt: -i, Job: s, Events: []Ev{{Kind: runnerapi.EventKind(i), PID: i - 5, Text: s,
					Tool: &ToolProgress{CallID: s, Name: "n", FirstArg: s}, Output: s, ExitCode: -i, Error: s, Category: s,
					Recoverable: i%3 == 0, Reason: s}, {Kind: runnerapi.EventCompleted, Tool: &ToolProgress{}}}}, {}}},
			ControlBatch{Claims: []ClaimReply{{Run: i%2 == 1, Attempt: i, Reason: s, Job: s, N: uint64(i)}, {}}},
		)
	}
	return append(out, Job{}, Job{ID: id, Agent: &AgentJob{}, Process: &ProcessJob{}, Labels: map[string]string{}},
		Job{ID: id, Process: &ProcessJob{Command: "x"}, Sandbox: &runnerapi.Sandbox{Hide: []string{"/s"}}},
		HostBatch{}, HostBatch{Claims: []Claim{}, Jobs: []Events{}}, ControlBatch{}, ControlBatch{Claims: []ClaimReply{}})
}

func TestCodecWritesTheReflectiveBytes(t *testing.T) {
	for _, m := range sampleMessages() {
		checkEncode(t, m)
	}
}

// checkEncode holds Marshal(m) to the reflective codec's bytes (its error, if it
// refuses m), and reads them back.
func checkEncode(t testing.TB, m any) {
	t.Helper()
	got, err := Marshal(m)
	want, errWant := jsonv2.Marshal(m, codecOptions.Get(), jsonv2.Deterministic(true))
	if (err == nil) != (errWant == nil) {
		t.Fatalf("Marshal(%#v) = %v; the reflective codec: %v", m, err, errWant)
	}
	if err != nil {
		return
	}
	if j, ok := m.(Job); ok {
		if _, hand := appendJob(nil, &j); !hand { // the reflective codec's own (its maps unsorted)
			checkDecode(t, got)
			return
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal(%#v)\n got %s\nwant %s", m, got, want)
	}
	checkDecode(t, got)
}

func TestCodecReadsWhatTheReflectiveCodecReads(t *testing.T) {
	for _, m := range sampleMessages() {
		b := oracleMarshal(t, m)
		checkDecode(t, b)
		// The same message spaced out, and cut short.
		checkDecode(t, bytes.ReplaceAll(bytes.ReplaceAll(b, []byte(":"), []byte(" :\n ")), []byte(","), []byte("\t, ")))
		checkDecode(t, b[:len(b)/2])
	}
	for _, s := range []string{`{"id":"x","id":"y"}`, `{"host":"a","claims":null}`, `{"claims":[{"run":1}]}`,
		`{"claims":[{"run":true,"attempt":1.0}]}`, `{"claims":[{"run":true,"attempt":-0}]}`, `{"claims":[{"n":-1}]}`,
		`{"claims":[{"n":18446744073709551616}]}`, `{"jobs":[{"attempt":9223372036854775808}]}`, `{"HOST":"a"}`,
		`{"host":"a"} {}`, `{"host":"a",}`, `{"jobs":[{"ev":[{"k":01}]}]}`, `{"labels":{"a":"1","a":"2"}}`,
		`{"id":"a\u0041"}`, `{"agent":{"prompt":"p","tools":["a",null]}}`, `{"process":{"command":"c","timeoutMs":1e3}}`,
		`{"host":"a","unknown":1}`, ` {"host" : "a" } `, `[]`, `null`, ``, `{"claims":[]}`, `{"jobs":[{"ev":[]}]}`} {
		checkDecode(t, []byte(s))
	}
}

// checkDecode decodes data as each hand-read message, and holds Unmarshal (and the hand
// decoder, when it reads it) to the reflective codec.
func checkDecode(t testing.TB, data []byte) {
	t.Helper()
	check := func(fast func() (any, bool), got, want any) {
		t.Helper()
		errGot := Unmarshal(data, got)
		errWant := jsonv2.Unmarshal(data, want, codecOptions.Get())
		if (errGot == nil) != (errWant == nil) || errWant == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Unmarshal(%q) = %#v, %v; want %#v, %v", data, got, errGot, want, errWant)
		}
		if v, ok := fast(); ok && (errWant != nil || !reflect.DeepEqual(v, want)) {
			t.Fatalf("hand decoder read %q as %#v; the reflective codec: %#v, %v", data, v, want, errWant)
		}
	}
	check(func() (any, bool) { var v Job; ok := decodeJob(data, &v); return &v, ok }, &Job{}, &Job{})
	check(func() (any, bool) { var v HostBatch; ok := decodeHostBatch(data, &v, nil); return &v, ok }, &HostBatch{}, &HostBatch{})
	// By a decoder that read batches before, whose arrays it fills again: the same value.
	dec := HostBatchDecoder{spare: HostBatch{Host: "old", Claims: make([]Claim, 1, 4), Jobs: []Events{{Host: "old", Events: make([]Ev, 3, 5)}, {}}}}
	dec.spare.Jobs = dec.spare.Jobs[:0]
	reused := HostBatch{Host: "old", Claims: make([]Claim, 2)}
	var fresh HostBatch
	errFresh := jsonv2.Unmarshal(data, &fresh, codecOptions.Get())
	if err := dec.Decode(data, &reused); (err == nil) != (errFresh == nil) || err == nil && !reflect.DeepEqual(reused, fresh) {
		t.Fatalf("HostBatchDecoder.Decode(%q) after other batches = %#v, %v; want %#v, %v", data, reused, err, fresh, errFresh)
	}
	check(func() (any, bool) { var v ControlBatch; ok := decodeControlBatch(data, &v, nil); return &v, ok }, &ControlBatch{}, &ControlBatch{})
	usedCB := ControlBatch{Claims: make([]ClaimReply, 2, 3)}
	var freshCB ControlBatch
	errFresh = jsonv2.Unmarshal(data, &freshCB, codecOptions.Get())
	if err := DecodeControlBatch(data, &usedCB); (err == nil) != (errFresh == nil) || err == nil && !reflect.DeepEqual(usedCB, freshCB) {
		t.Fatalf("DecodeControlBatch(%q) into a used batch = %#v, %v; want %#v, %v", data, usedCB, err, freshCB, errFresh)
	}
}

func FuzzCodecDecode(f *testing.F) {
	for _, m := range sampleMessages() {
		f.Add(oracleMarshal(f, m))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecode(t, data) })
}

func FuzzCodecEncode(f *testing.F) {
	f.Add("h1", "x", "$JS.ACK.a.b.1.2.3.4.5", 1, uint64(7), true)
	f.Add("", "bad \xff", "<&>\u2028", -1, uint64(0), false)
	f.Fuzz(func(t *testing.T, a, b, c string, n int, u uint64, flag bool) {
		for _, m := range []any{
			Job{ID: a, Process: &ProcessJob{Command: b, Cwd: c, TimeoutMs: int64(n)}, Labels: map[string]string{a: b, c: a}},
			Job{ID: a, Agent: &AgentJob{Prompt: b, Model: c, Tools: []string{a, c}, MaxTurns: n}},
			HostBatch{Host: a, Claims: []Claim{{Host: b, Probe: flag, Ack: c, Job: a, N: u}},
				Jobs: []Events{{Host: c, Attempt: n, Job: b, Events: []Ev{{Kind: runnerapi.EventKind(n), Text: a, Output: b,
					Error: c, Recoverable: flag, Tool: &ToolProgress{Name: a, Error: c}}}}}},
			ControlBatch{Claims: []ClaimReply{{Run: flag, Attempt: n, Reason: a, Job: b, N: u}}},
		} {
			checkEncode(t, m)
		}
	})
}

func TestPubAckSeq(t *testing.T) {
	for _, tc := range []struct {
		in  string
		seq uint64
		ok  bool
	}{
		{`{"stream":"ROBOTA_JOBS","seq":42}`, 42, true},
		{`{"stream":"ROBOTA_JOBS","domain":"hub","seq":7,"duplicate":true}`, 7, true},
		{`{"stream":"ROBOTA_JOBS"}`, 0, false},
		{`{"error":{"code":503,"description":"no responders"}}`, 0, false},
		{`{"stream":"ROBOTA_JOBS","seq":1,"seq":2}`, 0, false},
		{`{"stream":"ROBOTA_JOBS","seq":1.5}`, 0, false},
		{`{"stream":"A\u0042","seq":3}`, 0, false},
		{`{"stream":"ROBOTA_JOBS","seq":3,"batch":"x"}`, 0, false},
		{`{"stream":"ROBOTA_JOBS","seq":3} x`, 0, false},
	} {
		seq, ok := PubAckSeq([]byte(tc.in))
		if ok != tc.ok || ok && seq != tc.seq {
			t.Errorf("PubAckSeq(%s) = %d, %v; want %d, %v", tc.in, seq, ok, tc.seq, tc.ok)
		}
		// What it reads, the reflective codec reads alike.
		var want struct {
			Seq   uint64    `json:"seq"`
			Error *struct{} `json:"error,omitempty"`
		}
		if ok && (jsonv2.Unmarshal([]byte(tc.in), &want) != nil || want.Seq != seq || want.Error != nil) {
			t.Errorf("PubAckSeq(%s) = %d; the reflective codec: %+v", tc.in, seq, want)
		}
	}
}
