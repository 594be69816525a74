package fs

import "testing"

// TestImageTypeByExtension covers every extension taken for an image by name, in any
// case, and one that is not.
func TestImageTypeByExtension(t *testing.T) {
	for name, want := range map[string]string{
		"a.png": "image/png", "a.jpg": "image/jpeg", "a.JPEG": "image/jpeg", "a.gif": "image/gif",
		"a.webp": "image/webp", "a.bmp": "image/bmp", "a.ico": "image/x-icon", "a.tif": "image/tiff",
		"a.TIFF": "image/tiff", "a.avif": "image/avif", "a.heic": "image/heic", "a.txt": "",
	} {
		if got := imageType(name, []byte("plain text")); got != want {
			t.Errorf("imageType(%q) = %q, want %q", name, got, want)
		}
	}
}
