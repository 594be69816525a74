package worker

import "testing"

// A job's SearchExclude leaves out each path and what is below it, nothing else.
func TestExcludeWithin(t *testing.T) {
	if excludeWithin(nil) != nil {
		t.Fatal("no paths: want no filter")
	}
	ex := excludeWithin([]string{"/p/secret.txt", "/p/keys"})
	for path, want := range map[string]bool{
		"/p/secret.txt": true, "/p/keys": true, "/p/keys/a.pem": true, "/p/keys/sub/b": true,
		"/p/keys2": false, "/p/secret.txt.bak": false, "/p/notes.txt": false, "/p": false,
	} {
		if got := ex("Grep", path); got != want {
			t.Errorf("%s: excluded %v, want %v", path, got, want)
		}
	}
}
