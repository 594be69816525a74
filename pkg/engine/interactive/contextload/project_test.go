package contextload

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDetectProject(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  ProjectInfo
	}{
		{"none", map[string]string{"README.md": "x"}, ProjectInfo{}},
		{"go", map[string]string{"go.mod": "// c\nmodule \"example.com/m\"\n"}, ProjectInfo{Type: "go", Language: "go", Name: "example.com/m"}},
		{"typescript with pnpm", map[string]string{"package.json": `{"name":"@s/app"}`, "tsconfig.json": "{}", "pnpm-lock.yaml": ""},
			ProjectInfo{Type: "node", Language: "typescript", Name: "@s/app", PackageManager: "pnpm"}},
		{"javascript, broken package.json", map[string]string{"package.json": `{`, "yarn.lock": ""},
			ProjectInfo{Type: "node", Language: "javascript", PackageManager: "yarn"}},
		{"python", map[string]string{"pyproject.toml": ""}, ProjectInfo{Type: "python", Language: "python"}},
		{"rust", map[string]string{"Cargo.toml": ""}, ProjectInfo{Type: "rust", Language: "rust"}},
		{"kotlin", map[string]string{"build.gradle.kts": ""}, ProjectInfo{Type: "java", Language: "kotlin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, t.TempDir(), tt.files)
			if got := DetectProject(dir); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSystemPromptMetadata(t *testing.T) {
	tmp := t.TempDir()
	dir := tree(t, tmp, map[string]string{"p/sub/.keep": ""})
	c, err := Load(Options{Cwd: filepath.Join(dir, "p", "sub"), ProjectRoot: filepath.Join(dir, "p"), StopAt: tmp})
	if err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return time.Date(2030, 1, 31, 12, 0, 0, 0, time.UTC) }
	got := BuildSystemPrompt(PromptInput{Context: c, Now: clock, Platform: "plan9/arm",
		AdditionalDirectories: []string{"/srv/shared"}})
	want := "# Environment\n\n" +
		"- Working directory: " + filepath.Join(dir, "p", "sub") + "\n" +
		"- Project root: " + filepath.Join(dir, "p") + "\n" +
		"- Additional directory: /srv/shared\n" +
		"- Platform: plan9/arm\n" +
		"- Date: 2030-01-31\n" +
		"- Git repository: no\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A nil context still yields a prompt (metadata only).
	if p := BuildSystemPrompt(PromptInput{Now: clock, Platform: "x/y"}); !strings.Contains(p, "- Date: 2030-01-31") {
		t.Errorf("nil context prompt = %q", p)
	}
}
