package agentdef_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/tools/agenttool"
)

// nopSpawner stands in for the task manager adapter.
type nopSpawner struct{}

func (nopSpawner) Spawn(context.Context, agenttool.SpawnRequest) (string, error) { return "a1", nil }
func (nopSpawner) Wait(context.Context, string) (agenttool.AgentResult, error) {
	return agenttool.AgentResult{Status: agenttool.StatusCompleted}, nil
}
func (nopSpawner) Cancel(string, string) error { return nil }

// The composition root maps the catalog onto the Agent tool's agent types.
func Example_agentTool() {
	cat, _ := agentdef.Load(agentdef.Dirs("", "")) // no directories: the built-ins only
	var types []agenttool.AgentType
	for _, d := range cat.List() {
		types = append(types, agenttool.AgentType{Name: d.Name, Description: d.Description,
			Tools: d.Tools, DisallowedTools: d.DisallowedTools, Isolation: d.Isolation, Background: d.Background})
	}
	tool, err := agenttool.NewAgent(agenttool.Config{Spawner: nopSpawner{}, AgentTypes: types})
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(tool.Schema().Description, "\n") {
		if strings.HasPrefix(line, "- ") && strings.Contains(line, "(Tools:") {
			name, _, _ := strings.Cut(line, ":")
			fmt.Println(name, "…", line[strings.LastIndex(line, "(Tools:"):])
		}
	}
	// Output:
	// - Explore … (Tools: All tools except Agent, ExitPlanMode, Edit, Write, MultiEdit, NotebookEdit)
	// - Plan … (Tools: All tools except Agent, ExitPlanMode, Edit, Write, MultiEdit, NotebookEdit)
	// - general-purpose … (Tools: All tools)
}
