package sessionlog

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// A long answer reaches several lines of a round (its text deltas, the response, the
// history) and, being longer than the inline threshold, is moved to payload files that
// those lines refer to: a message's content array (its JSON is over the threshold) and a
// delta line's text. Lifting them before the line's data is encoded gives the same line
// and the same payload file, without encoding, decoding and walking the text with the
// rest of the data each time; the same answer is redacted and stored once.

// liftMessages returns data with the content of its text-only messages whose text is
// longer than the inline threshold left out (the messages are copied, data's are not
// changed), and the function that puts the content's stored form in its place in data's
// JSON tree (l.mu held).
func (l *FileLogger) liftMessages(data any) (any, func(tree any), error) {
	ev, ok := data.(agent.Event)
	if !ok || l.threshold < 0 {
		return data, nil, nil
	}
	var msgContent, respContent any
	if ev.Message != nil {
		c, err := l.contentPayload(ev.Message.Content)
		if err != nil {
			return data, nil, err
		}
		if c != nil {
			m := *ev.Message
			m.Content = nil
			ev.Message, msgContent = &m, c
		}
	}
	if ev.Response != nil {
		c, err := l.contentPayload(ev.Response.Response.Message.Content)
		if err != nil {
			return data, nil, err
		}
		if c != nil {
			r := *ev.Response
			r.Response.Message.Content = nil
			ev.Response, respContent = &r, c
		}
	}
	if msgContent == nil && respContent == nil {
		return data, nil, nil
	}
	return ev, func(tree any) {
		m, _ := tree.(map[string]any)
		if msg, ok := m["message"].(map[string]any); ok && msgContent != nil {
			msg["content"] = msgContent
		}
		if r, ok := m["response"].(map[string]any); ok && respContent != nil {
			if r, ok := r["response"].(map[string]any); ok {
				if msg, ok := r["message"].(map[string]any); ok {
					msg["content"] = respContent
				}
			}
		}
	}, nil
}

// contentPayload stores a text-only content array whose text is longer than the inline
// threshold and returns what the line holds in its place; nil for any other content
// (l.mu held). A single text part stays an array on the line, its text a reference to
// the text's payload: the file the call's text deltas went to, found without encoding
// or hashing the answer again (the text is redacted as they were). Several parts are
// stored as externalize would store the array (the redacted array's JSON tree, encoded
// as lines are), and the last such array is remembered, so the response and the
// history's copy of an answer cost one.
func (l *FileLogger) contentPayload(parts []llm.Part) (any, error) {
	n := 0
	for _, p := range parts {
		if p.Type != llm.PartText || p.Text == "" || p.Signature != "" || p.ToolCall != nil || p.ToolResult != nil {
			return nil, nil
		}
		n += len(p.Text)
	}
	if n <= l.threshold {
		return nil, nil
	}
	if len(parts) == 1 {
		ref, err := l.textPayload(parts[0].Text)
		if err != nil {
			return nil, err
		}
		return liftedContent{map[string]any{"type": string(llm.PartText), "text": ref}}, nil
	}
	c := l.lastLifted
	if c.ref.SHA256 != "" && sameTexts(c.parts, parts) && l.payloadExists(c.ref) {
		return c.ref, nil
	}
	arr := make([]any, len(parts)) // the tree a text part decodes to, redacted
	for i, p := range parts {
		arr[i] = map[string]any{"type": string(llm.PartText), "text": l.redactLong(p.Text)}
	}
	b, err := encodeJSON(arr)
	if err != nil {
		return nil, err
	}
	ref, err := l.writePayload(b)
	if err != nil {
		return nil, err
	}
	l.lastLifted.parts, l.lastLifted.ref = slices.Clone(parts), ref
	return ref, nil
}

// liftedContent is a content array whose text is a payload reference: it stays on the
// line as it is (externalize moves a []any, not this, and a reference inside a payload
// file would not be hydrated), and redaction has nothing left to do in it.
type liftedContent []any

// sameTexts reports whether a and b are text parts with the same texts.
func sameTexts(a, b []llm.Part) bool {
	return slices.EqualFunc(a, b, func(x, y llm.Part) bool { return len(x.Text) == len(y.Text) && x.Text == y.Text })
}

// textPayload redacts a delta line's long text and stores it as externalize would, and
// returns its reference (l.mu held).
func (l *FileLogger) textPayload(text string) (PayloadRef, error) {
	return l.externalizeString(l.redactLong(text))
}

// redactLong is redact.String for a text that may be redacted again whole: the last one
// longer than the inline threshold and its redaction are remembered (l.mu held).
func (l *FileLogger) redactLong(s string) string {
	if len(s) <= l.threshold || l.threshold < 0 {
		return redact.String(s)
	}
	if c := l.lastRedacted; len(c.in) == len(s) && c.in == s {
		return c.out
	}
	out := redact.String(s)
	l.lastRedacted.in, l.lastRedacted.out = s, out
	return out
}

func (l *FileLogger) payloadExists(ref PayloadRef) bool {
	st, err := os.Stat(filepath.Join(l.dir, filepath.FromSlash(ref.RelativePath)))
	return err == nil && st.Size() == ref.ByteLength
}
