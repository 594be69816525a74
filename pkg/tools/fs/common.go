package fs

import (
	"bytes"
	"errors"
	"fmt"
	iofs "io/fs"
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// MaxFileSize is the largest file Edit changes and the largest content Write writes
// (32 MiB). Edit holds the old text, the new text and their diff in memory at once, a few
// times the file's size; beyond this a call would cost hundreds of megabytes, or gigabytes,
// for a file no model edits by exact string replacement. Larger files are refused with a
// message naming the size and the limit, before they are read.
const MaxFileSize = 32 << 20

// CodeTooLarge is the error code of a file or content over MaxFileSize.
const CodeTooLarge = "file_too_large"

// sizeText renders a byte count for messages: "40.0 MiB (41943040 bytes)".
func sizeText(n int64) string {
	return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
}

// sniffLen is how much of a file decides whether it is binary (git looks at the same amount).
const sniffLen = 8000

// isBinary reports a NUL byte in the sniffed prefix.
func isBinary(prefix []byte) bool {
	if len(prefix) > sniffLen {
		prefix = prefix[:sniffLen]
	}
	return bytes.IndexByte(prefix, 0) >= 0
}

// imageExtension is the image MIME type of a lower-case extension; a switch, not a map,
// so it needs no package init (issue 29).
func imageExtension(ext string) (string, bool) {
	switch ext {
	case ".png":
		return "image/png", true
	case ".jpg", ".jpeg":
		return "image/jpeg", true
	case ".gif":
		return "image/gif", true
	case ".webp":
		return "image/webp", true
	case ".bmp":
		return "image/bmp", true
	case ".ico":
		return "image/x-icon", true
	case ".tif", ".tiff":
		return "image/tiff", true
	case ".avif":
		return "image/avif", true
	case ".heic":
		return "image/heic", true
	}
	return "", false
}

// imageType returns the image MIME type of a file from its extension or content, or "".
func imageType(name string, prefix []byte) string {
	if t, ok := imageExtension(strings.ToLower(filepath.Ext(name))); ok {
		return t
	}
	if t := http.DetectContentType(prefix); strings.HasPrefix(t, "image/") && t != "image/svg+xml" {
		return t
	}
	return ""
}

// binaryType names a binary file's content type for the refusal message.
func binaryType(name string, prefix []byte) string {
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return strings.SplitN(t, ";", 2)[0]
	}
	return strings.SplitN(http.DetectContentType(prefix), ";", 2)[0]
}

// resolve confines a file_path argument; the record names the real path when it resolves.
func resolve(ws *workspace.Workspace, filePath string) (workspace.Path, error) {
	return ws.Resolve(filePath)
}

// statFailure turns an error from stat/open into a result with its own message per cause.
func statFailure(rec record.Call, display string, err error) llm.ToolResult {
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return toolkit.Failure(rec, toolkit.CodeNotFound, "File does not exist: "+display, nil)
	case errors.Is(err, iofs.ErrPermission):
		return toolkit.Failure(rec, toolkit.CodeIO, "Permission denied: "+display, nil)
	default:
		return toolkit.Failure(rec, toolkit.CodeIO, "Cannot access "+display+": "+err.Error(), nil)
	}
}

func dirFailure(rec record.Call, display, hint string) llm.ToolResult {
	return toolkit.Failure(rec, toolkit.CodeIsDirectory, display+" is a directory, not a file. "+hint, nil)
}

// notRegularFailure names what a special file is.
func notRegularFailure(rec record.Call, display string, mode iofs.FileMode) llm.ToolResult {
	kind := "special file"
	switch {
	case mode&iofs.ModeNamedPipe != 0:
		kind = "named pipe"
	case mode&iofs.ModeSocket != 0:
		kind = "socket"
	case mode&iofs.ModeDevice != 0:
		kind = "device"
	}
	return toolkit.Failure(rec, toolkit.CodeNotRegular, fmt.Sprintf("%s is a %s, not a regular file.", display, kind), nil)
}
