package skills

import "strings"

// MaxListedDescription bounds each description in the system-prompt listing: the
// listing is metadata only, and the full text is loaded when the skill is invoked.
const MaxListedDescription = 1024

// SystemPromptBlock is the system-prompt section naming the skills the model may invoke
// (agent-sdk, "System Prompt Skill and Agent Injection"): one line per model-invocable
// skill, name and description (and when_to_use), nothing of the body. Skills with
// disable-model-invocation are left out. "" when there is none.
func SystemPromptBlock(list []Skill) string {
	var b strings.Builder
	for _, s := range list {
		if !s.ModelInvocable() {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("# Skills\n\nThese skills are available through the Skill tool. When a task matches a skill's description, invoke it with the Skill tool (skill: its name, args: any arguments) before doing the task yourself; its full instructions are loaded then. Do not invoke a skill that is already running.\n\n")
		}
		desc := s.Description
		if s.WhenToUse != "" {
			if desc != "" {
				desc += " - "
			}
			desc += s.WhenToUse
		}
		desc = strings.Join(strings.Fields(desc), " ")
		if r := []rune(desc); len(r) > MaxListedDescription {
			desc = string(r[:MaxListedDescription-3]) + "..."
		}
		b.WriteString("- " + s.Name)
		if desc != "" {
			b.WriteString(": " + desc)
		}
		b.WriteString("\n")
	}
	return b.String()
}
