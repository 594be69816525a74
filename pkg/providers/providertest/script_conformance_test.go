package providertest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/providertest"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// scriptHarness builds an in-memory script whose turns are the scenarios. The script
// provider has no HTTP layer, so a scenario's status is scripted as the error code the
// HTTP providers map it to; the suite then checks the script provider reports it.
var scriptHarness = providertest.Harness{
	Name: script.ProviderName,
	New: func(t *testing.T, scenarios ...providertest.Scenario) llm.Provider {
		t.Helper()
		s := script.Script{Name: "conformance", Model: "script-model"}
		for _, sc := range scenarios {
			s.Turns = append(s.Turns, scriptTurn(t, sc))
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		p, err := script.New(data, "conformance.json")
		if err != nil {
			t.Fatalf("script: %v\n%s", err, data)
		}
		return p
	},
}

func scriptTurn(t *testing.T, sc providertest.Scenario) script.Turn {
	turn := script.Turn{Thinking: sc.Thinking, Chunks: sc.Text, Hang: sc.Stall}
	for _, c := range sc.Text {
		turn.Text += c
	}
	for _, c := range sc.ToolCalls {
		turn.ToolCalls = append(turn.ToolCalls, script.ToolCall{ID: c.ID, Name: c.Name, InputJSON: string(c.Input)})
	}
	if u := sc.Usage; u != nil {
		turn.Usage = &script.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens}
	}
	if f := sc.Fail; f != nil {
		turn.Error = &script.Error{Code: string(statusCode(t, f.Status)), Message: f.Message, StatusCode: f.Status}
	}
	return turn
}

func statusCode(t *testing.T, status int) llm.ErrorCode {
	switch status {
	case 0, http.StatusInternalServerError, http.StatusServiceUnavailable:
		return llm.CodeProvider
	case http.StatusUnauthorized, http.StatusForbidden:
		return llm.CodeAuthentication
	case http.StatusTooManyRequests:
		return llm.CodeRateLimit
	case http.StatusBadRequest:
		return llm.CodeValidation
	case http.StatusNotFound:
		return llm.CodeModelNotAvailable
	}
	t.Fatalf("no script error code for status %d", status)
	return ""
}

func TestScriptConformance(t *testing.T) { providertest.Run(t, scriptHarness) }
