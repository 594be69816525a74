package interactive

import (
	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// TeeLogger forwards every event to the session log and reports each message
// appended to the conversation, so clients see messages as they are committed.
type TeeLogger struct {
	Next      session.Logger
	OnMessage func(llm.Message)
}

func (t TeeLogger) Log(event string, data any) {
	if t.Next != nil {
		t.Next.Log(event, data)
	}
	if t.OnMessage == nil || event != string(agent.EventHistoryMutation) {
		return
	}
	if ev, ok := data.(agent.Event); ok && ev.Message != nil && (ev.Mutation == nil || ev.Mutation.Kind == "append") {
		t.OnMessage(*ev.Message)
	}
}
