package workerplugin

import (
	"encoding/json"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// One model call crosses the wire as ChatResponse steps: its streamed events, then one
// ChatResult. HostService (a worker's agent jobs calling the engine's provider) and
// ProviderService (robota calling its provider process) both carry it; these are the
// two ends' translations.

// ChatCallbacks returns callbacks that turn a model call's streamed events into
// ChatResponse steps given to send, in stream order. Raw payloads are sent only when
// raw is set (they double the traffic, and only a session log wants them).
func ChatCallbacks(send func(*robotav1.ChatResponse), raw bool) llm.Callbacks {
	cb := llm.Callbacks{
		OnTextDelta: func(d string) {
			send(&robotav1.ChatResponse{Event: &robotav1.ChatResponse_TextDelta{TextDelta: d}})
		},
		OnThinkingDelta: func(d string) {
			send(&robotav1.ChatResponse{Event: &robotav1.ChatResponse_ThinkingDelta{ThinkingDelta: d}})
		},
		OnServerToolUse: func(u llm.ServerToolUse) {
			if b, err := json.Marshal(u); err == nil {
				send(&robotav1.ChatResponse{Event: &robotav1.ChatResponse_ServerToolUseJson{ServerToolUseJson: b}})
			}
		},
	}
	if raw {
		cb.OnRawPayload = func(e llm.RawPayloadEvent) {
			if b, err := json.Marshal(e); err == nil {
				send(&robotav1.ChatResponse{Event: &robotav1.ChatResponse_RawPayloadJson{RawPayloadJson: b}})
			}
		}
	}
	return cb
}

// DeliverChatStep hands one streamed step to cb and returns nil, or returns the
// result when the step is the end of the call.
func DeliverChatStep(step *robotav1.ChatResponse, cb llm.Callbacks) *robotav1.ChatResult {
	switch ev := step.GetEvent().(type) {
	case *robotav1.ChatResponse_TextDelta:
		cb.TextDelta(ev.TextDelta)
	case *robotav1.ChatResponse_ThinkingDelta:
		cb.ThinkingDelta(ev.ThinkingDelta)
	case *robotav1.ChatResponse_ServerToolUseJson:
		var u llm.ServerToolUse
		if json.Unmarshal(ev.ServerToolUseJson, &u) == nil {
			cb.ServerToolUse(u)
		}
	case *robotav1.ChatResponse_RawPayloadJson:
		var e llm.RawPayloadEvent
		if json.Unmarshal(ev.RawPayloadJson, &e) == nil {
			cb.RawPayload(e)
		}
	case *robotav1.ChatResponse_Result:
		return ev.Result
	}
	return nil
}

// ChatResultToProto is the end of a model call on the wire: the response (partial after
// a failure) and callErr as an *llm.Error whose code, category, status and words
// survive; its cause chain does not cross.
func ChatResultToProto(resp llm.ChatResponse, callErr error) (*robotav1.ChatResult, error) {
	result := &robotav1.ChatResult{}
	var err error
	if result.ResponseJson, err = json.Marshal(resp); err != nil {
		return nil, err
	}
	if callErr != nil {
		if result.ErrorJson, err = json.Marshal(flattenError(callErr)); err != nil {
			return nil, err
		}
	}
	return result, nil
}

// ChatResultFromProto is the response and error ChatResultToProto sent.
func ChatResultFromProto(r *robotav1.ChatResult) (llm.ChatResponse, error) {
	var resp llm.ChatResponse
	if err := json.Unmarshal(r.GetResponseJson(), &resp); err != nil {
		return llm.ChatResponse{}, llm.NewError(llm.CodePlugin, "the model response is unreadable", err)
	}
	if len(r.GetErrorJson()) == 0 {
		return resp, nil
	}
	var e llm.Error
	if err := json.Unmarshal(r.GetErrorJson(), &e); err != nil {
		return resp, llm.NewError(llm.CodePlugin, "the model error is unreadable", err)
	}
	return resp, &e
}

// flattenError is err as an *llm.Error whose Message holds the whole text: the cause
// chain does not cross the wire, its words do.
func flattenError(err error) *llm.Error {
	e := llm.FromUnknown(err)
	cp := *e
	cp.Provider = ""
	out := *e
	out.Message, out.Err = cp.Error(), nil
	return &out
}
