package script

import (
	"os"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// requestView is what conditions look at.
type requestView struct {
	req            llm.ChatRequest
	lastUser       string
	lastToolResult string
	system         string
}

func newRequestView(req llm.ChatRequest) requestView {
	v := requestView{req: req}
	foundUser, foundTool := false, false
	for i := len(req.Messages) - 1; i >= 0 && !(foundUser && foundTool); i-- {
		m := req.Messages[i]
		switch m.Role {
		case llm.RoleUser:
			if !foundUser {
				v.lastUser, foundUser = m.Text(), true
			}
		case llm.RoleTool:
			if r, ok := m.ToolResult(); ok && !foundTool {
				v.lastToolResult, foundTool = r.Content, true
			}
		}
	}
	v.system, _ = llm.SplitSystem(req.Messages)
	return v
}

func (v requestView) matches(c *compiled) bool {
	w := c.turn.When
	if w == nil {
		return true
	}
	purpose := string(v.req.Purpose)
	if purpose == "" {
		purpose = "chat"
	}
	switch {
	case w.LastUserContains != "" && !strings.Contains(v.lastUser, w.LastUserContains),
		c.pattern != nil && !c.pattern.MatchString(v.lastUser),
		w.LastToolResultContains != "" && !strings.Contains(v.lastToolResult, w.LastToolResultContains),
		w.SystemContains != "" && !strings.Contains(v.system, w.SystemContains),
		w.Purpose != "" && w.Purpose != purpose,
		w.Compaction != nil && *w.Compaction != (v.req.Purpose == llm.PurposeCompaction),
		w.HasTools != nil && *w.HasTools != (len(v.req.Tools) > 0),
		w.Agent != "" && w.Agent != v.req.Agent,
		w.Model != "" && w.Model != v.req.Model:
		return false
	}
	return true
}

func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, llm.NewError(llm.CodeConfiguration, "script "+path, err)
	}
	return data, nil
}
