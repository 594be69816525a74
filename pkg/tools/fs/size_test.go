package fs

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// Issue 10 §6: Edit refuses a file over MaxFileSize from its size, without reading it.
// The file is sparse, so the test costs no disk and no time.
func TestEditRefusesFilesOverTheLimitBeforeReading(t *testing.T) {
	e := newEnv(t)
	edit, _ := NewEdit(e.ws)
	p := e.write(t, "huge.log", []byte("needle\n"))
	const size = MaxFileSize + 1
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := exec(edit, args(t, map[string]any{"file_path": p, "old_string": "needle", "new_string": "pin"}))
	runtime.ReadMemStats(&after)
	if res.Success || res.Metadata["errorCode"] != CodeTooLarge {
		t.Fatalf("result = %+v, want %s", res, CodeTooLarge)
	}
	for _, want := range []string{p, "32.0 MiB (33554433 bytes)", "limit of 32.0 MiB (33554432 bytes)"} {
		if !strings.Contains(res.Error, want) {
			t.Errorf("message lacks %q: %s", want, res.Error)
		}
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("refusing allocated %d bytes: the file was read", grew)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != size {
		t.Fatalf("file changed: %v %v", fi, err)
	}
}

// A file that grows past the limit after it was measured is not read beyond it.
func TestReadAtMostStopsAtTheLimit(t *testing.T) {
	e := newEnv(t)
	e.write(t, "f.txt", []byte(strings.Repeat("x", 100)))
	root, err := os.OpenRoot(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if data, err := readAtMost(root, "f.txt", 10); err != errTooLarge || len(data) != 11 {
		t.Fatalf("read %d bytes, err %v; want 11 and errTooLarge", len(data), err)
	}
	if data, err := readAtMost(root, "f.txt", 100); err != nil || len(data) != 100 {
		t.Fatalf("read %d bytes, err %v", len(data), err)
	}
}

// Write refuses content over the limit and writes nothing; the documented limit is the
// one the tools use.
func TestWriteRefusesContentOverTheLimit(t *testing.T) {
	e := newEnv(t)
	write, _ := NewWrite(e.ws)
	edit, _ := NewEdit(e.ws)
	if write.maxSize != MaxFileSize || edit.maxSize != MaxFileSize || MaxFileSize != 32<<20 {
		t.Fatalf("limits %d/%d, want MaxFileSize = 32 MiB", write.maxSize, edit.maxSize)
	}
	for name, desc := range map[string]string{"Write": write.Schema().Description, "Edit": edit.Schema().Description} {
		if !strings.Contains(desc, "32 MiB") {
			t.Errorf("%s description does not state the limit: %q", name, desc)
		}
	}
	write.maxSize = 1024
	p := e.dir + "/big.txt"
	res := exec(write, args(t, map[string]any{"file_path": p, "content": strings.Repeat("a", 1025)}))
	if res.Success || res.Metadata["errorCode"] != CodeTooLarge || !strings.Contains(res.Error, "(1025 bytes)") {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("file written: %v", err)
	}
	if res := exec(write, args(t, map[string]any{"file_path": p, "content": strings.Repeat("a", 1024)})); !res.Success {
		t.Fatalf("content at the limit refused: %s", res.Error)
	}
}
