package skills

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func testCatalog() *Catalog {
	return NewCatalog([]Skill{
		{Name: "fix", Body: "Fix issue $0 with priority $1.", Kind: KindCommand, AllowedTools: []string{"Read", "Edit"}, Model: "haiku"},
		{Name: "pdf", Body: "Read reference.md first.", Kind: KindSkill, Dir: "/s/pdf"},
		{Name: "deploy", Body: "Deploy.", DisableModelInvocation: true},
		{Name: "research", Body: "Research $ARGUMENTS.", Context: ContextFork, Agent: "Explore"},
	})
}

func TestSkillTool(t *testing.T) {
	var forked []string
	tool := NewTool(ToolConfig{
		Catalog: testCatalog,
		Fork: func(_ context.Context, s Skill, text string) (string, error) {
			forked = append(forked, s.Agent+":"+text)
			if strings.Contains(text, "fail") {
				return "", errors.New("subagent crashed")
			}
			return "fork answer", nil
		},
	})
	if tool.Schema().Name != "Skill" || !json.Valid(tool.Schema().InputSchema) {
		t.Fatalf("schema %+v", tool.Schema())
	}
	for _, tc := range []struct {
		name, args string
		ok         bool
		want       string // output on success, error substring on failure
		meta       map[string]any
	}{
		{"inline with args", `{"skill":"fix","args":"123 high"}`, true, "Fix issue 123 with priority high.",
			map[string]any{"skill": "fix", "kind": "command", "allowedTools": []string{"Read", "Edit"}, "model": "haiku"}},
		{"slash prefix and base dir", `{"skill":"/pdf"}`, true, "Base directory for this skill: /s/pdf\n\nRead reference.md first.",
			map[string]any{"skill": "pdf", "kind": "skill"}},
		{"fork runs the subagent", `{"skill":"research","args":"go generics"}`, true, "fork answer",
			map[string]any{"skill": "research", "kind": "", "context": "fork"}},
		{"fork failure", `{"skill":"research","args":"fail"}`, false, `skill "research" failed: subagent crashed`, nil},
		{"disabled for the model", `{"skill":"deploy"}`, false, "cannot be invoked by the model", nil},
		{"unknown lists the others", `{"skill":"nope"}`, false, `unknown skill: "nope". Available skills: fix, pdf, research`, nil},
		{"missing skill", `{"args":"x"}`, false, `"skill" is required`, nil},
		{"unknown parameter", `{"skill":"fix","extra":1}`, false, "invalid Skill arguments", nil},
		{"not json", `{`, false, "invalid Skill arguments", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tool.Execute(context.Background(), json.RawMessage(tc.args))
			if r.Success != tc.ok {
				t.Fatalf("success = %v (%+v)", r.Success, r)
			}
			if tc.ok && r.Output != tc.want {
				t.Errorf("output %q, want %q", r.Output, tc.want)
			}
			if !tc.ok && !strings.Contains(r.Error, tc.want) {
				t.Errorf("error %q, want it to contain %q", r.Error, tc.want)
			}
			if tc.meta != nil && !reflect.DeepEqual(r.Metadata, tc.meta) {
				t.Errorf("metadata %v, want %v", r.Metadata, tc.meta)
			}
		})
	}
	if want := []string{"Explore:Research go generics.", "Explore:Research fail."}; !reflect.DeepEqual(forked, want) {
		t.Errorf("fork calls %q, want %q", forked, want)
	}
}

func TestSkillToolWithoutForkOrCatalog(t *testing.T) {
	r := NewTool(ToolConfig{Catalog: testCatalog, SessionID: func() string { return "s9" }}).
		Execute(context.Background(), json.RawMessage(`{"skill":"research","args":"x"}`))
	if !r.Success || r.Output != "Research x." {
		t.Fatalf("fork skill without Fork: %+v", r)
	}
	r = NewTool(ToolConfig{}).Execute(context.Background(), json.RawMessage(`{"skill":"x"}`))
	if r.Success || !strings.Contains(r.Error, "No skills are available") {
		t.Fatalf("no catalog: %+v", r)
	}
}
