package skills_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
)

// The composition root loads the catalog once per session, puts the listing into the
// system prompt, registers the Skill tool, and expands a user's "/name args" itself.
func Example() {
	cwd, _ := os.MkdirTemp("", "skills-example")
	defer os.RemoveAll(cwd)
	dir := filepath.Join(cwd, ".claude", "skills", "greet")
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: greet\ndescription: Greet someone\n---\nSay hello to $0.\n"), 0o644)

	cat, problems := skills.Load(skills.Dirs(cwd, "")) // problems: warnings naming files
	fmt.Println(len(problems), "problems")
	block := strings.Split(strings.TrimSpace(skills.SystemPromptBlock(cat.ModelVisible())), "\n")
	fmt.Println(block[0], "…", block[len(block)-1])

	tool := skills.NewTool(skills.ToolConfig{Catalog: func() *skills.Catalog { return cat }})
	r := tool.Execute(context.Background(), json.RawMessage(`{"skill":"greet","args":"Ada"}`))
	fmt.Printf("%q\n", strings.ReplaceAll(r.Output, dir, "DIR"))

	s, _ := cat.Lookup("greet") // the user typed /greet Bob
	text := skills.Expand(s, "Bob", skills.ExpandOptions{})
	fmt.Printf("%q\n", strings.ReplaceAll(text, dir, "DIR"))
	// Output:
	// 0 problems
	// # Skills … - greet: Greet someone
	// "Base directory for this skill: DIR\n\nSay hello to Ada."
	// "Base directory for this skill: DIR\n\nSay hello to Bob."
}
