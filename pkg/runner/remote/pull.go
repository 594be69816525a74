package remote

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
)

// puller is a host agent's pull of the hosts' consumer: one pull request at a time for
// no more messages than the host has free slots, as jetstream's Fetch made, with the
// messages read on the Run loop itself. Fetch passed each message through a goroutine
// of its own and a timer per message: more than a short job's message was worth. Each
// pull has its own reply subscription (pulls are few: a host asks for all its free
// slots at once), feeding one channel: a message of a pull given up (no answer in time)
// is told apart by its subscription and handed back, so the host never holds more
// messages than it asked for.
type puller struct {
	nc      *nats.Conn
	subject string // the consumer's next-message API subject
	inbox   string
	msgs    chan *nats.Msg
	n       uint64 // the current pull's number
	timer   *time.Timer
}

// pullExpires is how long a pull request waits for messages (Fetch's max wait before):
// a host never holds a long pending request a dead host could leave behind with a
// message in it.
const pullExpires = time.Second

func newPuller(nc *nats.Conn, slots int) *puller {
	p := &puller{nc: nc, subject: "$JS.API.CONSUMER.MSG.NEXT." + wire.Stream + "." + wire.Consumer, inbox: nc.NewInbox(),
		msgs: make(chan *nats.Msg, 2*slots+16)}
	p.timer = time.NewTimer(time.Hour)
	p.timer.Stop()
	return p
}

// errPullEnded is a pull that ended with fewer messages than it asked for.
var errPullEnded = errors.New("the pull ended")

// pull asks for up to n messages and hands each to take, in order, until n came or the
// pull ended (the server's timeout or no-messages status, or no answer in time); err
// is not nil for a pull that could not be made or that the server refused.
func (p *puller) pull(n int, take func(jetstream.Msg)) (got int, err error) {
	p.n++
	reply := p.inbox + "." + strconv.FormatUint(p.n, 10)
	sub, err := p.nc.ChanSubscribe(reply, p.msgs)
	if err != nil {
		return 0, err
	}
	// Once it ends, nothing more of this pull is taken: a late message is left unacked
	// (redelivered after the ack wait), or handed back if it was queued already.
	defer func() { _ = sub.Unsubscribe() }()
	body := `{"batch":` + strconv.Itoa(n) + `,"expires":` + strconv.FormatInt(int64(pullExpires), 10) + `}`
	if err := p.nc.PublishRequest(p.subject, reply, []byte(body)); err != nil {
		return 0, err
	}
	p.timer.Reset(pullExpires + time.Second) // the server's own expiry, and a margin
	defer p.timer.Stop()
	for got < n {
		select {
		case m := <-p.msgs:
			if m.Sub != sub { // an earlier pull's, given up: not this host's to hold
				if isJobMsg(m) {
					_ = m.Respond([]byte("-NAK"))
				}
				continue
			}
			if !isJobMsg(m) {
				switch status := m.Header.Get("Status"); status {
				case "100": // a heartbeat or flow control: the pull goes on
					continue
				case "404", "408": // no messages, or the request expired
					return got, nil
				default:
					return got, errors.New("the job stream's consumer refused the pull: " + status + " " + m.Header.Get("Description"))
				}
			}
			got++
			take(&hostMsg{m: m, nc: p.nc})
		case <-p.timer.C:
			return got, nil // given up: a late message of it is handed back
		}
	}
	return got, nil
}

// isJobMsg tells a message of the stream from a status message (no data, a status).
func isJobMsg(m *nats.Msg) bool {
	return len(m.Data) > 0 || len(m.Header) == 0 || m.Header.Get("Status") == ""
}

// hostMsg is a message the puller took, as jetstream.Msg (its acks are jetstream's
// bodies on the message's reply subject; after an ack, a nak or a term, the next is
// refused as jetstream's are).
type hostMsg struct {
	m    *nats.Msg
	nc   *nats.Conn
	done atomic.Bool
}

var _ jetstream.Msg = (*hostMsg)(nil)

func (h *hostMsg) Metadata() (*jetstream.MsgMetadata, error) {
	seq, ok := wire.AckSeq(h.m.Reply)
	if !ok {
		return nil, jetstream.ErrNotJSMessage
	}
	return &jetstream.MsgMetadata{Sequence: jetstream.SequencePair{Stream: seq}, Stream: wire.Stream, Consumer: wire.Consumer}, nil
}

func (h *hostMsg) Data() []byte         { return h.m.Data }
func (h *hostMsg) Headers() nats.Header { return h.m.Header }
func (h *hostMsg) Subject() string      { return h.m.Subject }
func (h *hostMsg) Reply() string        { return h.m.Reply }
func (h *hostMsg) Ack() error           { return h.ack("+ACK", true) }
func (h *hostMsg) Nak() error           { return h.ack("-NAK", true) }
func (h *hostMsg) InProgress() error    { return h.ack("+WPI", false) }
func (h *hostMsg) Term() error          { return h.ack("+TERM", true) }
func (h *hostMsg) TermWithReason(r string) error {
	if r == "" {
		return h.Term()
	}
	return h.ack("+TERM "+r, true)
}

func (h *hostMsg) NakWithDelay(d time.Duration) error {
	if d <= 0 {
		return h.Nak()
	}
	return h.ack(`-NAK {"delay": `+strconv.FormatInt(d.Nanoseconds(), 10)+`}`, true)
}

func (h *hostMsg) DoubleAck(ctx context.Context) error {
	if h.done.Load() {
		return jetstream.ErrMsgAlreadyAckd
	}
	if _, err := h.nc.RequestWithContext(ctx, h.m.Reply, []byte("+ACK")); err != nil {
		return err
	}
	h.done.Store(true)
	return nil
}

// ack publishes body on the message's reply subject; final marks the message done.
func (h *hostMsg) ack(body string, final bool) error {
	if h.m.Reply == "" {
		return jetstream.ErrMsgNoReply
	}
	if h.done.Load() {
		return jetstream.ErrMsgAlreadyAckd
	}
	if err := h.nc.Publish(h.m.Reply, []byte(body)); err != nil {
		return err
	}
	if final {
		h.done.Store(true)
	}
	return nil
}
