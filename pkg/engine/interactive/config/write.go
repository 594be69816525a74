package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/robota-sdk/robota-go/internal/atomicfile"
)

// UserSettingsPath is the user's own settings file, the one robota writes (the
// lowest layer: every other file overrides what it says).
func UserSettingsPath(home string) string {
	return filepath.Join(home, ".robota", "settings.json")
}

// WriteKey sets the top-level key of the settings file at path to value (nil removes
// it), keeping every other key as written, and writes the file atomically (0600, its
// directory created). A file that is not a JSON object is an error and is left as it is.
func WriteKey(path, key string, value any) error {
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("settings %s: %w", path, err)
	default:
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &doc); err != nil || doc == nil {
				return fmt.Errorf("settings %s is not a JSON object; it was left as it is: %v", path, err)
			}
		}
	}
	if value == nil {
		delete(doc, key)
	} else {
		raw, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("settings %s: %s: %w", path, key, err)
		}
		doc[key] = raw
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("settings %s: %w", path, err)
	}
	if err := writeAtomic(path, append(out, '\n')); err != nil {
		return fmt.Errorf("settings %s: %w", path, err)
	}
	return nil
}

func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o700) }
