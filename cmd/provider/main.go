// Command robota-provider makes the model calls of robota's OpenAI-compatible providers
// (openai, ollama, lmstudio, vllm, gemini, gemma) for robota, which starts it through
// go-plugin over gRPC when a session chooses one of those types, so the OpenAI SDK is
// not linked into robota itself (pkg/providers/providerplugin). Started by hand it says
// so and exits 1.
package main

import (
	_ "github.com/robota-sdk/robota-go/internal/startstack" // grows the main stack before the libraries' inits
	"github.com/robota-sdk/robota-go/pkg/providers/openaicompat"
	"github.com/robota-sdk/robota-go/pkg/providers/providerplugin"
)

func main() { providerplugin.Serve(openaicompat.NewBackend()) }
