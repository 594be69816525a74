package permission

import (
	"fmt"
	"strings"
)

// specKind says how a rule's specifier is interpreted, which depends on its tool.
type specKind int

const (
	specNone    specKind = iota // tool-wide rule
	specBash                    // Bash command pattern
	specPath                    // gitignore-style path pattern (Read and Edit families)
	specDomain                  // WebFetch(domain:host)
	specName                    // Agent(Name) / Task(Name)
	specCommand                 // SlashCommand(/name), SlashCommand(/name:*)
	specOpaque                  // a specifier on a tool that exposes no matching argument
)

type specifier struct {
	kind    specKind
	bash    bashPattern
	path    pathPattern
	domain  string
	name    string
	command commandPattern
}

// Tool families: a rule naming the family head applies to every member, as Claude
// Code documents for Read and Edit rules.
func readFamily(s string) bool {
	switch s {
	case "Read", "Glob", "Grep", "LS", "NotebookRead":
		return true
	}
	return false
}

func editFamily(s string) bool {
	switch s {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}

func compileSpecifier(tool, spec string, has bool) (specifier, error) {
	if !has {
		return specifier{kind: specNone}, nil
	}
	switch {
	case tool == "Bash":
		return specifier{kind: specBash, bash: compileBashPattern(spec)}, nil
	case readFamily(tool) || editFamily(tool):
		p, err := compilePathPattern(spec)
		if err != nil {
			return specifier{}, err
		}
		return specifier{kind: specPath, path: p}, nil
	case tool == "WebFetch":
		d, ok := strings.CutPrefix(spec, "domain:")
		d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
		if !ok || d == "" || d == "*." || strings.ContainsAny(d, "/:@ ") {
			return specifier{}, fmt.Errorf("WebFetch specifier must be domain:HOST, got %q", spec)
		}
		return specifier{kind: specDomain, domain: d}, nil
	case tool == "Agent" || tool == "Task":
		return specifier{kind: specName, name: spec}, nil
	case tool == SlashCommandTool:
		c, err := compileCommandPattern(spec)
		if err != nil {
			return specifier{}, err
		}
		return specifier{kind: specCommand, command: c}, nil
	}
	return specifier{kind: specOpaque}, nil
}

// appliesTo reports whether a rule naming ruleTool governs a call of tool. Deny and
// ask rules compare names case-insensitively so a miscapitalised deny still holds.
func appliesTo(r *Rule, tool string) bool {
	eq := func(a, b string) bool { return a == b }
	if r.Behavior != Allow {
		eq = strings.EqualFold
	}
	rt := r.Tool
	switch {
	case eq(rt, tool):
		return true
	case eq(rt, "Read") && readFamily(tool), eq(rt, "Edit") && editFamily(tool):
		return true
	case (eq(rt, "Agent") && tool == "Task") || (eq(rt, "Task") && tool == "Agent"):
		return true
	}
	if len(rt) <= 5 || !eq(rt[:5], "mcp__") {
		return false
	}
	if prefix, ok := strings.CutSuffix(rt, "*"); ok {
		return len(tool) > len(prefix) && eq(tool[:len(prefix)], prefix)
	}
	// `mcp__server` names every tool of that server.
	server := rt + "__"
	return !strings.Contains(rt[5:], "__") && len(tool) > len(server) && eq(tool[:len(server)], server)
}
