package assemble_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// A Go program embeds a session: it brings its own provider (here the offline script
// provider), subscribes to the events, submits a prompt and answers the permission
// request. "Allow for the session" adds the rule shown in the request.
func ExampleNew() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "robota-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	provider, err := script.New([]byte(`
turns:
  - toolCalls: [{name: Bash, input: {command: "echo hello"}}]
  - text: "The command printed hello."
`), "example.yaml")
	if err != nil {
		log.Fatal(err)
	}

	// Settings, project context, tools and permissions come from Cwd (and Home).
	s, err := assemble.New(ctx, assemble.Options{Cwd: dir, Home: dir, LLM: provider})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx, "other")
	events := s.Subscribe()
	sent, err := s.Submit("Run echo hello")
	if err != nil {
		log.Fatal(err)
	}
	for {
		ev, err := events.Next(ctx)
		if err != nil {
			log.Fatal(err)
		}
		switch ev.Type {
		case interactive.EventPermissionRequest:
			fmt.Println("asked:", ev.Permission.ToolName, "-", ev.Permission.SessionRule)
			err = s.RespondPermission(ev.Permission.RequestID, session.ApprovalAllowSession, "")
			if err != nil {
				log.Fatal(err)
			}
		case interactive.EventToolEnd:
			fmt.Println("tool:", ev.Tool.ToolName, ev.Tool.FirstArg, "-", ev.Tool.Result, "-", ev.Tool.ToolResultData)
		case interactive.EventComplete:
			if ev.PromptID == sent.PromptID {
				fmt.Println("answer:", ev.Result.Response)
				fmt.Println("session rules:", s.Session().SessionRules())
				return
			}
		}
	}
	// Output:
	// asked: Bash - Bash(echo hello:*)
	// tool: Bash echo hello - success - hello
	// answer: The command printed hello.
	// session rules: [Bash(echo hello:*)]
}

// Query runs one prompt in a new session and returns the answer (the spec's
// createQuery). Nobody is asked for permission: calls that need it are denied and
// listed in PermissionDenials.
func ExampleQuery() {
	dir, err := os.MkdirTemp("", "robota-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	provider, err := script.New([]byte(`
turns:
  - toolCalls: [{id: call_1, name: Bash, input: {command: "rm -rf build"}}]
  - text: "I was not allowed to delete build/."
`), "example.yaml")
	if err != nil {
		log.Fatal(err)
	}
	res, err := assemble.Query(context.Background(), "Delete build/",
		assemble.Options{Cwd: dir, Home: dir, LLM: provider})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Response)
	for _, d := range res.PermissionDenials {
		fmt.Println("denied:", d.ToolName, string(d.ToolInput))
	}
	// Output:
	// I was not allowed to delete build/.
	// denied: Bash {"command":"rm -rf build"}
}
