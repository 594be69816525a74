package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// pngHeader is the start of a 1x1 PNG: enough for content sniffing.
var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

type env struct {
	ws      *workspace.Workspace
	dir     string // the workspace (cwd)
	outside string // a directory next to it
}

func newEnv(t *testing.T) env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := env{dir: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{e.dir, e.outside, filepath.Join(e.dir, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.outside, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.outside, filepath.Join(e.dir, "out-link")); err != nil {
		t.Fatal(err)
	}
	e.ws, err = workspace.New(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e env) write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (e env) transcript() *golden.Transcript {
	return golden.New([]string{e.dir, "$WS", e.outside, "$OUTSIDE"}, "diff")
}

func args(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func exec(tool llm.Tool, a string) llm.ToolResult {
	return tool.Execute(context.Background(), json.RawMessage(a))
}

func TestReadGolden(t *testing.T) {
	e := newEnv(t)
	read, err := NewRead(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	e.write(t, "hello.txt", []byte("first line\r\nsecond line\nthird line without newline"))
	var many strings.Builder
	for i := 1; i <= 30; i++ {
		many.WriteString("line " + strings.Repeat("x", i%5) + "\n")
	}
	e.write(t, "many.txt", []byte(many.String()))
	e.write(t, "long.txt", []byte("short\n"+strings.Repeat("é", MaxLineLength+17)+"\nend\n"))
	e.write(t, "empty.txt", nil)
	e.write(t, "blob.bin", []byte("abc\x00def"))
	e.write(t, "pixel.png", pngHeader)
	e.write(t, "sub/inner.go", []byte("package sub\n"))
	if err := syscall.Mkfifo(filepath.Join(e.dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := e.transcript()
	for _, c := range []struct{ name, args string }{
		{"whole file (CRLF shown without \\r, last line without newline)", args(t, map[string]any{"file_path": filepath.Join(e.dir, "hello.txt")})},
		{"relative path resolves against the cwd", args(t, map[string]any{"file_path": "sub/inner.go"})},
		{"offset and limit window", args(t, map[string]any{"file_path": filepath.Join(e.dir, "many.txt"), "offset": 10, "limit": 3})},
		{"limit from the start", args(t, map[string]any{"file_path": filepath.Join(e.dir, "many.txt"), "limit": 2})},
		{"long line truncated", args(t, map[string]any{"file_path": filepath.Join(e.dir, "long.txt")})},
		{"offset past the end", args(t, map[string]any{"file_path": filepath.Join(e.dir, "many.txt"), "offset": 31})},
		{"empty file", args(t, map[string]any{"file_path": filepath.Join(e.dir, "empty.txt")})},
		{"missing file", args(t, map[string]any{"file_path": filepath.Join(e.dir, "nope.txt")})},
		{"directory", args(t, map[string]any{"file_path": filepath.Join(e.dir, "sub")})},
		{"binary file", args(t, map[string]any{"file_path": filepath.Join(e.dir, "blob.bin")})},
		{"image file", args(t, map[string]any{"file_path": filepath.Join(e.dir, "pixel.png")})},
		{"fifo", args(t, map[string]any{"file_path": filepath.Join(e.dir, "fifo")})},
		{"dot-dot escape", args(t, map[string]any{"file_path": "../outside/secret.txt"})},
		{"absolute path outside", args(t, map[string]any{"file_path": filepath.Join(e.outside, "secret.txt")})},
		{"symlink pointing out", args(t, map[string]any{"file_path": filepath.Join(e.dir, "out-link", "secret.txt")})},
		{"NUL in path", args(t, map[string]any{"file_path": filepath.Join(e.dir, "hello.txt\x00.png")})},
		{"missing file_path", `{}`},
		{"limit below 1", args(t, map[string]any{"file_path": "hello.txt", "limit": 0})},
	} {
		tr.Add(c.name, c.args, exec(read, c.args))
	}
	tr.Check(t, "read.golden")
}

func TestWriteGolden(t *testing.T) {
	e := newEnv(t)
	write, err := NewWrite(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	existing := e.write(t, "existing.txt", []byte("old\n"))
	tr := e.transcript()
	for _, c := range []struct{ name, args string }{
		{"create with missing parents", args(t, map[string]any{"file_path": filepath.Join(e.dir, "new/deep/file.txt"), "content": "hello\nworld\n"})},
		{"overwrite existing", args(t, map[string]any{"file_path": existing, "content": "new content"})},
		{"empty content", args(t, map[string]any{"file_path": "empty.txt", "content": ""})},
		{"directory", args(t, map[string]any{"file_path": filepath.Join(e.dir, "sub"), "content": "x"})},
		{"the workspace root itself", args(t, map[string]any{"file_path": e.dir, "content": "x"})},
		{"dot-dot escape", args(t, map[string]any{"file_path": "../outside/new.txt", "content": "x"})},
		{"absolute path outside", args(t, map[string]any{"file_path": filepath.Join(e.outside, "secret.txt"), "content": "x"})},
		{"symlink pointing out", args(t, map[string]any{"file_path": filepath.Join(e.dir, "out-link", "secret.txt"), "content": "x"})},
		{"NUL in path", args(t, map[string]any{"file_path": "a\x00b", "content": "x"})},
		{"missing content", args(t, map[string]any{"file_path": "x.txt"})},
	} {
		tr.Add(c.name, c.args, exec(write, c.args))
	}
	for _, name := range []string{"new/deep/file.txt", "existing.txt", "empty.txt"} {
		data, err := os.ReadFile(filepath.Join(e.dir, name))
		tr.Note("file %s: %q (err %v)", name, data, err)
	}
	secret, _ := os.ReadFile(filepath.Join(e.outside, "secret.txt"))
	tr.Note("outside secret.txt: %q", secret)
	_, err = os.Stat(filepath.Join(e.outside, "new.txt"))
	tr.Note("outside new.txt exists: %v", err == nil)
	tr.Check(t, "write.golden")
}

func TestWriteKeepsModeAndLeavesNoTempFiles(t *testing.T) {
	e := newEnv(t)
	write, _ := NewWrite(e.ws)
	edit, _ := NewEdit(e.ws)
	p := e.write(t, "script.sh", []byte("echo hi\n"))
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	if res := exec(write, args(t, map[string]any{"file_path": p, "content": "echo bye\n"})); !res.Success {
		t.Fatal(res.Error)
	}
	if res := exec(edit, args(t, map[string]any{"file_path": p, "old_string": "bye", "new_string": "ciao"})); !res.Success {
		t.Fatal(res.Error)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode = %v, want 0750", fi.Mode().Perm())
	}
	if data, _ := os.ReadFile(p); string(data) != "echo ciao\n" {
		t.Fatalf("content = %q", data)
	}
	entries, _ := os.ReadDir(e.dir)
	for _, ent := range entries {
		if strings.Contains(ent.Name(), ".tmp-") {
			t.Fatalf("temp file left behind: %s", ent.Name())
		}
	}
	// New files get 0644 regardless of the umask.
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	if res := exec(write, args(t, map[string]any{"file_path": "fresh.txt", "content": "x"})); !res.Success {
		t.Fatal(res.Error)
	}
	if fi, _ := os.Stat(filepath.Join(e.dir, "fresh.txt")); fi.Mode().Perm() != defaultFileMode {
		t.Fatalf("new file mode = %v, want %v", fi.Mode().Perm(), defaultFileMode)
	}
}

func TestWriteThroughInsideSymlinkReplacesTarget(t *testing.T) {
	e := newEnv(t)
	write, _ := NewWrite(e.ws)
	target := e.write(t, "target.txt", []byte("old"))
	link := filepath.Join(e.dir, "link.txt")
	if err := os.Symlink("target.txt", link); err != nil {
		t.Fatal(err)
	}
	res := exec(write, args(t, map[string]any{"file_path": link, "content": "new"}))
	if !res.Success {
		t.Fatal(res.Error)
	}
	if data, _ := os.ReadFile(target); string(data) != "new" {
		t.Fatalf("target content = %q", data)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if got := res.Metadata[record.WritesKey]; got.([]string)[0] != target {
		t.Fatalf("writes = %v, want the real target %s", got, target)
	}
}

func TestEditGolden(t *testing.T) {
	e := newEnv(t)
	edit, err := NewEdit(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	code := "package main\n\nfunc a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	main := e.write(t, "main.go", []byte(code))
	e.write(t, "crlf.txt", []byte("one\r\ntwo\r\nthree\r\n"))
	e.write(t, "blob.bin", []byte("a\x00b"))
	e.write(t, "empty.txt", nil)
	tr := golden.New([]string{e.dir, "$WS", e.outside, "$OUTSIDE"})
	for _, c := range []struct{ name, args string }{
		{"ambiguous match", args(t, map[string]any{"file_path": main, "old_string": "return 1", "new_string": "return 3"})},
		{"unique match", args(t, map[string]any{"file_path": main, "old_string": "func a() {\n\treturn 1", "new_string": "func a() {\n\treturn 2"})},
		{"replace_all", args(t, map[string]any{"file_path": main, "old_string": "return", "new_string": "return -", "replace_all": true})},
		{"no match", args(t, map[string]any{"file_path": main, "old_string": "func c()", "new_string": "func d()"})},
		{"old equals new", args(t, map[string]any{"file_path": main, "old_string": "package main", "new_string": "package main"})},
		{"empty old_string on a non-empty file", args(t, map[string]any{"file_path": main, "old_string": "", "new_string": "x"})},
		{"empty old_string fills an empty file", args(t, map[string]any{"file_path": "empty.txt", "old_string": "", "new_string": "filled\n"})},
		{"empty old_string creates a missing file", args(t, map[string]any{"file_path": "created/new.txt", "old_string": "", "new_string": "brand new\n"})},
		{"CRLF file with LF old_string", args(t, map[string]any{"file_path": "crlf.txt", "old_string": "two\nthree", "new_string": "2\n3"})},
		{"missing file", args(t, map[string]any{"file_path": "nope.txt", "old_string": "a", "new_string": "b"})},
		{"directory", args(t, map[string]any{"file_path": "sub", "old_string": "a", "new_string": "b"})},
		{"binary file", args(t, map[string]any{"file_path": "blob.bin", "old_string": "a", "new_string": "b"})},
		{"dot-dot escape", args(t, map[string]any{"file_path": "../outside/secret.txt", "old_string": "secret", "new_string": "x"})},
		{"symlink pointing out", args(t, map[string]any{"file_path": "out-link/secret.txt", "old_string": "secret", "new_string": "x"})},
		{"NUL in path", args(t, map[string]any{"file_path": "main.go\x00", "old_string": "a", "new_string": "b"})},
		{"missing new_string", args(t, map[string]any{"file_path": main, "old_string": "a"})},
	} {
		tr.Add(c.name, c.args, exec(edit, c.args))
	}
	for _, name := range []string{"main.go", "crlf.txt", "empty.txt", "created/new.txt"} {
		data, _ := os.ReadFile(filepath.Join(e.dir, name))
		tr.Note("file %s: %q", name, data)
	}
	tr.Check(t, "edit.golden")
}

func TestEditFailuresLeaveFileByteIdentical(t *testing.T) {
	e := newEnv(t)
	edit, _ := NewEdit(e.ws)
	original := []byte("x := 1\ny := 1\nz := 2\n")
	p := e.write(t, "f.go", original)
	before, _ := os.Stat(p)
	for _, c := range []struct {
		name, old, code string
	}{
		{"ambiguous", ":= 1", "ambiguous_match"},
		{"missing", "w := 3", "no_match"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := exec(edit, args(t, map[string]any{"file_path": p, "old_string": c.old, "new_string": "changed"}))
			if res.Success || res.Metadata["errorCode"] != c.code {
				t.Fatalf("result = %+v, want failure %s", res, c.code)
			}
			data, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(data, original) {
				t.Fatalf("file changed to %q (err %v)", data, err)
			}
			after, _ := os.Stat(p)
			if !os.SameFile(before, after) {
				t.Fatal("file was replaced (different inode)")
			}
		})
	}
}

func TestEditReplaceAllStartLineAndDiff(t *testing.T) {
	e := newEnv(t)
	edit, _ := NewEdit(e.ws)
	p := e.write(t, "list.txt", []byte("a\nb\nfoo\nc\nfoo bar foo\nd\n"))
	res := exec(edit, args(t, map[string]any{"file_path": p, "old_string": "foo", "new_string": "baz", "replace_all": true}))
	if !res.Success {
		t.Fatal(res.Error)
	}
	if data, _ := os.ReadFile(p); string(data) != "a\nb\nbaz\nc\nbaz bar baz\nd\n" {
		t.Fatalf("content = %q", data)
	}
	if res.Metadata["startLine"] != 3 || res.Metadata["replacements"] != 3 {
		t.Fatalf("startLine/replacements = %v/%v, want 3/3", res.Metadata["startLine"], res.Metadata["replacements"])
	}
	wantDiff := "--- " + p + "\n+++ " + p + "\n@@ -1,6 +1,6 @@\n a\n b\n-foo\n+baz\n c\n-foo bar foo\n+baz bar baz\n d\n"
	if res.Metadata["diff"] != wantDiff {
		t.Fatalf("diff =\n%s\nwant\n%s", res.Metadata["diff"], wantDiff)
	}
	if !strings.HasSuffix(res.Output, wantDiff) {
		t.Fatalf("output does not end with the diff:\n%s", res.Output)
	}
}

func TestDescribe(t *testing.T) {
	e := newEnv(t)
	read, _ := NewRead(e.ws)
	write, _ := NewWrite(e.ws)
	edit, _ := NewEdit(e.ws)
	p := e.write(t, "a.txt", []byte("x"))
	if got := read.Describe(json.RawMessage(`{"file_path":"a.txt"}`)); got.FirstArg != "a.txt" || len(got.Reads) != 1 || got.Reads[0] != p || got.Writes != nil {
		t.Fatalf("Read record = %+v", got)
	}
	if got := write.Describe(json.RawMessage(`{"file_path":"a.txt","content":""}`)); len(got.Writes) != 1 || got.Writes[0] != p || got.Reads != nil {
		t.Fatalf("Write record = %+v", got)
	}
	if got := edit.Describe(json.RawMessage(`{"file_path":"../x","old_string":"a","new_string":"b"}`)); got.FirstArg != "../x" || got.Writes != nil {
		t.Fatalf("Edit record for a refused path = %+v", got)
	}
	if got := edit.Describe(json.RawMessage(`{"file_path":3}`)); got.FirstArg != "" {
		t.Fatalf("record for invalid args = %+v", got)
	}
}
