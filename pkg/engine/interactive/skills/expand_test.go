package skills

import (
	"reflect"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a b  c", []string{"a", "b", "c"}},
		{`"hello world" 'it''s' x\ y`, []string{"hello world", "its", "x y"}},
		{`"a \"q\" b" ''`, []string{`a "q" b`, ""}},
		{`"unclosed rest`, []string{"unclosed rest"}},
	} {
		if got := SplitArgs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExpand(t *testing.T) {
	cmd := func(body string) Skill {
		return Skill{Name: "c", Body: body, Kind: KindCommand, Dir: "/p/.claude/commands"}
	}
	for _, tc := range []struct {
		name string
		s    Skill
		args string
		want string
	}{
		{"all arguments", cmd("Fix issue $ARGUMENTS now."), "123 high", "Fix issue 123 high now."},
		{"indexed from zero", cmd("first=$ARGUMENTS[0] second=$ARGUMENTS[1] none=[$ARGUMENTS[5]]"), `"a b" c`, "first=a b second=c none=[]"},
		{"shorthand", cmd("$0 then $1, $2."), "x y", "x then y, ."},
		{"digits glued to a word are text", cmd("cost $1abc"), "x y", "cost $1abc\n\nARGUMENTS: x y"},
		{"no placeholder appends", cmd("Review the code."), "src/main.go", "Review the code.\n\nARGUMENTS: src/main.go"},
		{"no args no append", cmd("Review the code."), "  ", "Review the code."},
		{"no re-expansion", cmd("[$ARGUMENTS] [$0]"), "$1 $ARGUMENTS", "[$1 $ARGUMENTS] [$1]"},
		{"skill dir and session", Skill{Body: "Run ${CLAUDE_SKILL_DIR}/scripts/a.sh for ${CLAUDE_SESSION_ID}", Kind: KindSkill, Dir: "/s/pdf"}, "",
			"Base directory for this skill: /s/pdf\n\nRun /s/pdf/scripts/a.sh for sess-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Expand(tc.s, tc.args, ExpandOptions{SessionID: "sess-1"}); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSystemPromptBlock(t *testing.T) {
	if got := SystemPromptBlock(nil); got != "" {
		t.Fatalf("empty catalog gave %q", got)
	}
	got := SystemPromptBlock([]Skill{
		{Name: "pdf", Description: "Work with PDF\nfiles", WhenToUse: "when a PDF is named", Body: "SECRET BODY"},
		{Name: "deploy", Description: "Deploy", DisableModelInvocation: true},
		{Name: "bare"},
	})
	want := "# Skills\n\nThese skills are available through the Skill tool. When a task matches a skill's description, invoke it with the Skill tool (skill: its name, args: any arguments) before doing the task yourself; its full instructions are loaded then. Do not invoke a skill that is already running.\n\n" +
		"- pdf: Work with PDF files - when a PDF is named\n- bare\n"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
