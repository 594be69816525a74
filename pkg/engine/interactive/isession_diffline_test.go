package interactive_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// A diff line is written with the spec's "type" key and read back from it, and from the
// "kind" key of timelines saved before, so old records and session logs keep loading.
func TestDiffLineJSON(t *testing.T) {
	b, err := json.Marshal(DiffLine{Kind: "add", Line: 2, Text: "x"})
	if err != nil || string(b) != `{"type":"add","line":2,"text":"x"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	for _, tc := range []struct {
		name, in string
		want     DiffLine
	}{
		{"spec key", `{"type":"remove","line":3,"text":"old"}`, DiffLine{"remove", 3, "old"}},
		{"key of older records", `{"kind":"hunk","line":1,"text":"@@ -1 +1 @@"}`, DiffLine{"hunk", 1, "@@ -1 +1 @@"}},
		{"type wins over kind", `{"kind":"add","type":"context","line":4,"text":"same"}`, DiffLine{"context", 4, "same"}},
		{"neither", `{"line":5,"text":"t"}`, DiffLine{"", 5, "t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got DiffLine
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil || got != tc.want {
				t.Fatalf("Unmarshal(%s) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
	var bad DiffLine
	if err := json.Unmarshal([]byte(`{"type":1}`), &bad); err == nil {
		t.Fatal("a diff line whose type is a number decoded")
	}
	// A tool-end entry saved before, with kind keys, decodes into the same ToolState.
	var st ToolState
	old := `{"toolUseId":"c2","toolName":"Edit","firstArg":"a.txt","isRunning":false,"result":"success",` +
		`"diffFile":"/p/a.txt","diffLines":[{"kind":"hunk","line":1,"text":"@@ -1,1 +1,1 @@"},{"kind":"remove","line":1,"text":"a"},{"kind":"add","line":1,"text":"b"}]}`
	if err := json.Unmarshal([]byte(old), &st); err != nil {
		t.Fatal(err)
	}
	if want := []DiffLine{{"hunk", 1, "@@ -1,1 +1,1 @@"}, {"remove", 1, "a"}, {"add", 1, "b"}}; len(st.DiffLines) != 3 ||
		st.DiffLines[0] != want[0] || st.DiffLines[1] != want[1] || st.DiffLines[2] != want[2] {
		t.Fatalf("old tool-end entry decoded to %+v", st.DiffLines)
	}
}

// goldenJSON compares got, indented, with testdata/name (rewritten with -update).
func goldenJSON(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("%s differs:\n got %s\nwant %s", path, buf.Bytes(), want)
	}
}
