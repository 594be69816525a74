package assemble

import (
	"os"
	"slices"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/background"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/contextload"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// agentSpawner loads the agent definitions (problems become warnings naming the file)
// and builds the session's spawner; tools are the parent's, which subagents select from.
func (a *Assembled) newSpawner(_ *config.Settings, opts Options, choice ProviderChoice, parent []llm.Tool) (*background.Spawner, error) {
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	dirs := append(agentdef.Dirs(opts.Cwd, home), a.pluginAgentDirs()...)
	for i := range dirs {
		dirs[i].Denied = a.readDenied // an agent's body is its subagent's system prompt
	}
	catalog, problems := agentdef.Load(dirs)
	for _, p := range problems {
		a.Warnings = append(a.Warnings, "agent: "+p.Error()) // Error says whether the file was skipped
	}
	if len(opts.Agents) > 0 { // first of a name wins
		catalog = agentdef.NewCatalog(append(slices.Clone(opts.Agents), catalog.List()...))
	}
	var resolver agentdef.ModelResolver
	if def, err := registry.Default().Lookup(choice.Type); err == nil {
		resolver = def
	}
	names := make([]string, 0, len(parent))
	for _, t := range parent {
		names = append(names, t.Schema().Name)
	}
	a.subagents.Provider = choice.Type
	return &background.Spawner{Subagents: a.subagents, Catalog: catalog, Resolver: resolver, ParentModel: choice.Model, ParentTools: names}, nil
}

// instructions joins the project's CLAUDE.md family and AGENTS.md files, as subagent
// prompts carry them (spec: createSubagentSession).
func instructions(c *contextload.Context) (claudeMD, agentsMD string) {
	var claude, agents []string
	for _, f := range c.Files {
		kind := f.Family
		if kind == "" {
			kind = f.Kind
		}
		if kind == contextload.KindAgents {
			agents = append(agents, f.Content)
		} else {
			claude = append(claude, f.Content)
		}
	}
	return strings.Join(claude, "\n\n"), strings.Join(agents, "\n\n")
}
