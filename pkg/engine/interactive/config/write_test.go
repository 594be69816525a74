package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteKey sets one key and keeps the others; it refuses a file that is not an object.
func TestWriteKey(t *testing.T) {
	dir := t.TempDir()
	path := UserSettingsPath(dir)
	if err := WriteKey(path, "language", "French"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("\xef\xbb\xbf{\"model\": \"x\", \"language\": \"German\", \"env\": {\"A\": \"1\"}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteKey(path, "language", "French"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"language": "French"`, `"model": "x"`, `"A": "1"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	if err := WriteKey(path, "language", nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "language") {
		t.Errorf("language not removed: %s", b)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("[1]"), 0o600)
	if err := WriteKey(bad, "language", "x"); err == nil {
		t.Error("a list was overwritten")
	}
	if b, _ := os.ReadFile(bad); string(b) != "[1]" {
		t.Errorf("bad file changed: %s", b)
	}
}
