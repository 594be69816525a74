package contextload

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

// Section is a titled block of the system prompt supplied by the caller (tool
// descriptions, skills, command descriptors, --append-system-prompt).
type Section struct {
	Title string
	Body  string
}

// PromptInput is what the system prompt is built from.
type PromptInput struct {
	Context *Context
	// Model is the active model id.
	Model string
	// Language is the response language from settings (`language`).
	Language string
	// PermissionMode is the session's permission mode, rendered as metadata when set.
	PermissionMode string
	// AdditionalDirectories are extra working directories, rendered as metadata.
	AdditionalDirectories []string
	// Sections are rendered after the project context and before the environment.
	Sections []Section
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Platform is GOOS/GOARCH; empty means the running platform.
	Platform string
}

// BuildSystemPrompt lays out the system prompt: the instruction files (each under its
// path), Project Memory, Active Task Context, the caller's sections, then Environment
// metadata. It adds no behaviour text: every line is a file's content, a caller's
// section or a fact.
func BuildSystemPrompt(in PromptInput) string {
	c := in.Context
	if c == nil {
		c = &Context{}
	}
	var parts []string
	add := func(title, body string) {
		if body = strings.TrimSpace(body); body != "" {
			parts = append(parts, "# "+title+"\n\n"+body)
		}
	}

	var files []string
	for _, f := range c.Files {
		if body := strings.TrimSpace(f.Content); body != "" {
			head := "## " + f.Display
			if f.ImportedBy != "" {
				head += " (imported)"
			}
			files = append(files, head+"\n\n"+body)
		}
	}
	add("Project Instructions", strings.Join(files, "\n\n"))

	mem := c.Memory.Content
	if c.Memory.Truncated {
		mem = strings.TrimRight(mem, "\n") + fmt.Sprintf("\n\n[truncated: %d of %d lines, %d of %d bytes shown]",
			countLines(c.Memory.Content), c.Memory.TotalLines, len(c.Memory.Content), c.Memory.TotalBytes)
	}
	add("Project Memory", mem)
	add("Active Task Context", c.TaskContext)
	for _, s := range in.Sections {
		add(s.Title, s.Body)
	}
	add("Environment", environment(in, c))
	return strings.Join(parts, "\n\n") + "\n"
}

func environment(in PromptInput, c *Context) string {
	now := time.Now
	if in.Now != nil {
		now = in.Now
	}
	platform := in.Platform
	if platform == "" {
		platform = runtime.GOOS + "/" + runtime.GOARCH
	}
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "- %s: %s\n", k, v)
		}
	}
	line("Working directory", c.Cwd)
	if c.ProjectRoot != c.Cwd {
		line("Project root", c.ProjectRoot)
	}
	for _, d := range in.AdditionalDirectories {
		line("Additional directory", d)
	}
	line("Platform", platform)
	line("Date", now().Format("2006-01-02"))
	git := "no"
	if c.Git.IsRepo {
		git = "yes"
		if c.Git.Branch != "" {
			git += " (branch " + c.Git.Branch + ")"
		}
	}
	line("Git repository", git)
	line("Model", in.Model)
	p := c.Project
	line("Project type", p.Type)
	line("Project language", p.Language)
	line("Project name", p.Name)
	line("Package manager", p.PackageManager)
	line("Response language", in.Language)
	line("Permission mode", in.PermissionMode)
	return b.String()
}
