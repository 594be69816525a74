package agentdef

import "strings"

// ModelResolver turns a model name an agent definition or an Agent call gives (an alias
// such as sonnet, opus or haiku, or a model id) into the model id the parent's provider
// serves. ok is false when the provider has no model for an alias; the agent then
// inherits the parent's model. Provider definitions implement it (pkg/providers keeps
// every model name), so nothing here branches on a model name.
type ModelResolver interface {
	ResolveModel(name string) (id string, ok bool)
}

// ResolveModel picks the model of a subagent run: the Agent call's model, else the
// definition's, else the parent's; "inherit" (any case) and "" mean the parent's, and a
// name the resolver cannot serve falls back to the parent's. A nil resolver passes
// names through unchanged.
func ResolveModel(requested, defined, parent string, r ModelResolver) string {
	name := strings.TrimSpace(requested)
	if name == "" {
		name = strings.TrimSpace(defined)
	}
	if name == "" || strings.EqualFold(name, "inherit") {
		return parent
	}
	if r == nil {
		return name
	}
	if id, ok := r.ResolveModel(name); ok && id != "" {
		return id
	}
	return parent
}
