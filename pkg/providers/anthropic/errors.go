package anthropic

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/robota-sdk/robota-go/pkg/providers/internal/transport"
)

// mapError classifies an SDK failure onto the llm taxonomy.
func (p *Provider) mapError(err error) error {
	var aerr *anthropic.Error
	if errors.As(err, &aerr) {
		e := transport.APIError{Type: string(aerr.Type()), Cause: err}
		if aerr.StatusCode/100 != 2 { // an error event inside a 200 stream has no status of its own
			e.Status = aerr.StatusCode
		}
		if aerr.Response != nil {
			e.Header = aerr.Response.Header
		}
		e.Message = errorMessage(aerr.RawJSON())
		if e.Message == "" && e.Status != 0 {
			e.Message = http.StatusText(e.Status)
		}
		return transport.Classify(p.name, e, p.now())
	}
	return transport.Unclassified(p.name, err)
}

// errorMessage extracts error.message from an Anthropic error document.
func errorMessage(raw string) string {
	var doc struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &doc) == nil {
		return doc.Error.Message
	}
	return ""
}
