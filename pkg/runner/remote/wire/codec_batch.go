package wire

import (
	"strconv"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// The hand-written codecs of HostBatch and ControlBatch (see codec.go).

func appendHostBatch(b []byte, hb *HostBatch) []byte {
	b = append(b, `{"host":`...)
	b = appendStr(b, hb.Host)
	if len(hb.Claims) > 0 {
		b = append(b, `,"claims":[`...)
		for i := range hb.Claims {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendClaim(b, &hb.Claims[i])
		}
		b = append(b, ']')
	}
	if len(hb.Jobs) > 0 {
		b = append(b, `,"jobs":[`...)
		for i := range hb.Jobs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEvents(b, &hb.Jobs[i])
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendClaim(b []byte, c *Claim) []byte {
	b = append(b, `{"host":`...)
	b = appendStr(b, c.Host)
	if c.Probe {
		b = append(b, `,"probe":true`...)
	}
	if c.Ack != "" {
		b = append(b, `,"ack":`...)
		b = appendStr(b, c.Ack)
	}
	if c.Job != "" {
		b = append(b, `,"job":`...)
		b = appendStr(b, c.Job)
	}
	if c.N != 0 {
		b = append(b, `,"n":`...)
		b = strconv.AppendUint(b, c.N, 10)
	}
	return append(b, '}')
}

func appendEvents(b []byte, e *Events) []byte {
	b = append(b, `{"host":`...)
	b = appendStr(b, e.Host)
	b = append(b, `,"attempt":`...)
	b = strconv.AppendInt(b, int64(e.Attempt), 10)
	b = append(b, `,"ev":[`...)
	for i := range e.Events {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEv(b, &e.Events[i])
	}
	b = append(b, ']')
	if e.Job != "" {
		b = append(b, `,"job":`...)
		b = appendStr(b, e.Job)
	}
	return append(b, '}')
}

func appendEv(b []byte, e *Ev) []byte {
	b = append(b, `{"k":`...)
	b = strconv.AppendInt(b, int64(e.Kind), 10)
	if e.PID != 0 {
		b = append(b, `,"pid":`...)
		b = strconv.AppendInt(b, int64(e.PID), 10)
	}
	if e.Text != "" {
		b = append(b, `,"t":`...)
		b = appendStr(b, e.Text)
	}
	// omitempty leaves out a tool that would be written {}.
	if t := e.Tool; t != nil && *t != (ToolProgress{}) {
		b = append(b, `,"tool":{`...)
		first := true
		for _, f := range [...]struct{ k, v string }{{"id", t.CallID}, {"name", t.Name}, {"arg", t.FirstArg}, {"err", t.Error}} {
			if f.v != "" {
				b = appendKey(b, first, f.k)
				b = appendStr(b, f.v)
				first = false
			}
		}
		b = append(b, '}')
	}
	if e.Output != "" {
		b = append(b, `,"out":`...)
		b = appendStr(b, e.Output)
	}
	if e.ExitCode != 0 {
		b = append(b, `,"code":`...)
		b = strconv.AppendInt(b, int64(e.ExitCode), 10)
	}
	for _, f := range [...]struct{ k, v string }{{`,"err":`, e.Error}, {`,"cat":`, e.Category}} {
		if f.v != "" {
			b = append(b, f.k...)
			b = appendStr(b, f.v)
		}
	}
	if e.Recoverable {
		b = append(b, `,"rec":true`...)
	}
	if e.Reason != "" {
		b = append(b, `,"why":`...)
		b = appendStr(b, e.Reason)
	}
	return append(b, '}')
}

func appendControlBatch(b []byte, cb *ControlBatch) []byte {
	b = append(b, '{')
	if len(cb.Claims) > 0 {
		b = append(b, `"claims":[`...)
		for i := range cb.Claims {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendClaimReply(b, &cb.Claims[i])
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendClaimReply(b []byte, r *ClaimReply) []byte {
	b = append(b, `{"run":`...)
	b = strconv.AppendBool(b, r.Run)
	if r.Attempt != 0 {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(r.Attempt), 10)
	}
	for _, f := range [...]struct{ k, v string }{{`,"reason":`, r.Reason}, {`,"job":`, r.Job}} {
		if f.v != "" {
			b = append(b, f.k...)
			b = appendStr(b, f.v)
		}
	}
	if r.N != 0 {
		b = append(b, `,"n":`...)
		b = strconv.AppendUint(b, r.N, 10)
	}
	return append(b, '}')
}

// decodeHostBatch reads data into hb (zero); false: leave it to the reflective codec.
// spare holds arrays of an earlier batch to fill (nil: none): hb is the same as with
// none, but for capacity.
func decodeHostBatch(data []byte, hb, spare *HostBatch) bool {
	var claims []Claim
	var jobs []Events
	if spare != nil {
		claims, jobs = spare.Claims[:0], spare.Jobs[:0]
	}
	s := newScanner(data)
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "host":
			hb.Host = s.str()
			return once(&seen, 0)
		case "claims":
			hb.Claims = claims
			if hb.Claims == nil {
				hb.Claims = []Claim{}
			}
			s.array(func() {
				hb.Claims = append(hb.Claims, Claim{})
				s.claim(&hb.Claims[len(hb.Claims)-1])
			})
			return once(&seen, 1)
		case "jobs":
			hb.Jobs = jobs
			if hb.Jobs == nil {
				hb.Jobs = []Events{}
			}
			s.array(func() {
				var evs []Ev // the events array of the entry filled before, if any
				if n := len(hb.Jobs); n < cap(hb.Jobs) {
					evs = hb.Jobs[:n+1][n].Events[:0]
				}
				hb.Jobs = append(hb.Jobs, Events{})
				s.events(&hb.Jobs[len(hb.Jobs)-1], evs)
			})
			return once(&seen, 2)
		}
		return false
	})
	return s.end()
}

func (s *scanner) claim(c *Claim) {
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "host":
			c.Host = s.str()
			return once(&seen, 0)
		case "probe":
			c.Probe = s.bool()
			return once(&seen, 1)
		case "ack":
			c.Ack = s.str()
			return once(&seen, 2)
		case "job":
			c.Job = s.str()
			return once(&seen, 3)
		case "n":
			c.N = s.uint()
			return once(&seen, 4)
		}
		return false
	})
}

// events reads e (zero); evs, when not nil, is an array to fill with its events.
func (s *scanner) events(e *Events, evs []Ev) {
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "host":
			e.Host = s.str()
			return once(&seen, 0)
		case "attempt":
			e.Attempt = s.int()
			return once(&seen, 1)
		case "ev":
			if e.Events = evs; e.Events == nil {
				e.Events = make([]Ev, 0, 2) // a start and a result, most often
			}
			s.array(func() {
				e.Events = append(e.Events, Ev{})
				s.ev(&e.Events[len(e.Events)-1])
			})
			return once(&seen, 2)
		case "job":
			e.Job = s.str()
			return once(&seen, 3)
		}
		return false
	})
}

func (s *scanner) ev(e *Ev) {
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "k":
			e.Kind = runnerapi.EventKind(s.int())
			return once(&seen, 0)
		case "pid":
			e.PID = s.int()
			return once(&seen, 1)
		case "t":
			e.Text = s.str()
			return once(&seen, 2)
		case "tool":
			e.Tool = &ToolProgress{}
			s.tool(e.Tool)
			return once(&seen, 3)
		case "out":
			e.Output = s.str()
			return once(&seen, 4)
		case "code":
			e.ExitCode = s.int()
			return once(&seen, 5)
		case "err":
			e.Error = s.str()
			return once(&seen, 6)
		case "cat":
			e.Category = s.str()
			return once(&seen, 7)
		case "rec":
			e.Recoverable = s.bool()
			return once(&seen, 8)
		case "why":
			e.Reason = s.str()
			return once(&seen, 9)
		}
		return false
	})
}

func (s *scanner) tool(t *ToolProgress) {
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			t.CallID = s.str()
			return once(&seen, 0)
		case "name":
			t.Name = s.str()
			return once(&seen, 1)
		case "arg":
			t.FirstArg = s.str()
			return once(&seen, 2)
		case "err":
			t.Error = s.str()
			return once(&seen, 3)
		}
		return false
	})
}

// decodeControlBatch reads data into cb (zero); false: leave it to the reflective codec.
// spare, when not nil, is an array to fill with the answers.
func decodeControlBatch(data []byte, cb *ControlBatch, spare []ClaimReply) bool {
	s := newScanner(data)
	var seen uint32
	s.object(func(key []byte) bool {
		if string(key) != "claims" || !once(&seen, 0) {
			return false
		}
		if cb.Claims = spare[:0]; cb.Claims == nil {
			cb.Claims = []ClaimReply{}
		}
		s.array(func() {
			cb.Claims = append(cb.Claims, ClaimReply{})
			s.claimReply(&cb.Claims[len(cb.Claims)-1])
		})
		return s.ok
	})
	return s.end()
}

func (s *scanner) claimReply(r *ClaimReply) {
	var seen uint32
	s.object(func(key []byte) bool {
		switch string(key) {
		case "run":
			r.Run = s.bool()
			return once(&seen, 0)
		case "attempt":
			r.Attempt = s.int()
			return once(&seen, 1)
		case "reason":
			r.Reason = s.str()
			return once(&seen, 2)
		case "job":
			r.Job = s.str()
			return once(&seen, 3)
		case "n":
			r.N = s.uint()
			return once(&seen, 4)
		}
		return false
	})
}
