package openai

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/robota-sdk/robota-go/pkg/providers/internal/transport"
)

// mapError classifies an SDK failure onto the llm taxonomy.
func (p *Provider) mapError(err error) error {
	var aerr *openai.Error
	if errors.As(err, &aerr) {
		e := transport.APIError{Status: aerr.StatusCode, Type: aerr.Type, Code: aerr.Code, Message: aerr.Message, Cause: err}
		if aerr.Response != nil {
			e.Header = aerr.Response.Header
		}
		if e.Message == "" {
			e.Message = bodyMessage(aerr.RawJSON())
		}
		if e.Message == "" {
			e.Message = http.StatusText(e.Status)
		}
		return transport.Classify(p.name, e, p.now())
	}
	var serr *ssestream.StreamError
	if errors.As(err, &serr) {
		// An error object inside a 200 stream: {"error": {"message", "type", "code"}}.
		var doc struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		e := transport.APIError{Message: serr.Message, Cause: err}
		if json.Unmarshal(serr.Event.Data, &doc) == nil && doc.Error.Message != "" {
			e.Message, e.Type = doc.Error.Message, doc.Error.Type
			if code, ok := doc.Error.Code.(string); ok {
				e.Code = code
			}
		}
		return transport.Classify(p.name, e, p.now())
	}
	return transport.Unclassified(p.name, err)
}

// bodyMessage reads the message of an error body some servers send without the
// {"error": {...}} envelope the SDK expects (e.g. {"error": "model not found"}).
func bodyMessage(raw string) string {
	var doc map[string]any
	if json.Unmarshal([]byte(raw), &doc) != nil {
		return ""
	}
	switch v := doc["error"].(type) {
	case string:
		return v
	case map[string]any:
		if s, ok := v["message"].(string); ok {
			return s
		}
	}
	if s, ok := doc["message"].(string); ok {
		return s
	}
	return ""
}
