package assemble

import (
	"context"
	"slices"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// A headless run as a thin adapter (New with NoPrompt + Submit + wait for the end event)
// ends as the direct Run does today: same answer, rounds, usage, messages and
// permission denials (the asked call denied, nobody to ask).
func TestHeadlessThroughInteractiveSessionMatchesRun(t *testing.T) {
	const yaml = `
turns:
  - text: "I will try."
    toolCalls: [{id: c1, name: Bash, input: {command: "touch f"}}]
    usage: {inputTokens: 10, outputTokens: 3}
  - text: "It was denied."
    usage: {inputTokens: 20, outputTokens: 4}
`
	type outcome struct {
		answer   string
		rounds   int
		usage    llm.Usage
		denials  []string
		messages []string
	}
	summarize := func(sess *session.Session, answer string) outcome {
		o := outcome{answer: answer, rounds: sess.LastResult().Rounds, usage: sess.LastResult().Usage}
		for _, d := range sess.PermissionDenials() {
			o.denials = append(o.denials, d.ToolName+" "+d.ToolUseID+" "+string(d.ToolInput))
		}
		for _, m := range sess.Messages()[1:] { // the system prompt names the run's time
			o.messages = append(o.messages, string(m.Role)+": "+m.Text())
		}
		return o
	}

	// Today's path.
	dir := t.TempDir()
	a, err := Assemble(context.Background(), Options{Cwd: dir, Home: t.TempDir(), Env: envOf(nil),
		LLM: scriptProvider(t, yaml), NewID: safeIDs()})
	if err != nil {
		t.Fatal(err)
	}
	answer, err := a.Session.Run(context.Background(), "make f")
	if err != nil {
		t.Fatal(err)
	}
	direct := summarize(a.Session, answer)
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}

	// Through InteractiveSession.
	s := newTestSession(t, scriptProvider(t, yaml), Options{Interactive: InteractiveOptions{NoPrompt: true}})
	sub := s.Subscribe()
	sent, err := s.Submit("make f")
	if err != nil {
		t.Fatal(err)
	}
	events := until(t, sub, ends(sent.PromptID))
	end := events[len(events)-1]
	if end.Type != EventComplete {
		t.Fatalf("ended %s %+v", end.Type, end.Result)
	}
	adapted := summarize(s.Session(), end.Result.Response)
	if end.Result.Rounds != adapted.rounds || end.Result.Usage != adapted.usage {
		t.Fatalf("end event %+v differs from LastResult", end.Result)
	}

	if direct.answer != adapted.answer || direct.rounds != adapted.rounds || direct.usage != adapted.usage ||
		!slices.Equal(direct.denials, adapted.denials) || !slices.Equal(direct.messages, adapted.messages) {
		t.Fatalf("direct  %+v\nadapted %+v", direct, adapted)
	}
	if len(direct.denials) != 1 {
		t.Fatalf("denials %v, want the Bash call", direct.denials)
	}
}
