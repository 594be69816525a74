package sessionlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// PayloadKind marks a payload reference object on a log line.
const PayloadKind = "external-payload"

// PayloadRef replaces a large value on a log line (the spec's IExternalPayloadReference).
// RelativePath is "{sessionId}.payloads/{sha256}.json", relative to the log directory, with
// '/' separators; the file holds the value's JSON, whose SHA-256 and length are given.
type PayloadRef struct {
	Kind         string `json:"kind"`
	Encoding     string `json:"encoding"`
	SHA256       string `json:"sha256"`
	ByteLength   int64  `json:"byteLength"`
	RelativePath string `json:"relativePath"`
}

var sha256Hex = lazy.NewRegexp(`^[0-9a-f]{64}$`)

// PayloadDir returns the relative directory of sessionID's payload files.
func PayloadDir(sessionID string) string { return sessionID + ".payloads" }

// Validate checks the reference's shape and that it names sessionID's payload directory
// and a file named after its own digest — so it can never point elsewhere.
func (r PayloadRef) Validate(sessionID string) error {
	switch {
	case r.Kind != PayloadKind:
		return fmt.Errorf("%w: kind %q", ErrPayloadReference, r.Kind)
	case r.Encoding != "json":
		return fmt.Errorf("%w: encoding %q", ErrPayloadReference, r.Encoding)
	case !sha256Hex.MatchString(r.SHA256):
		return fmt.Errorf("%w: sha256 %q", ErrPayloadReference, r.SHA256)
	case r.ByteLength < 0:
		return fmt.Errorf("%w: byteLength %d", ErrPayloadReference, r.ByteLength)
	case r.RelativePath != path.Join(PayloadDir(sessionID), r.SHA256+".json"):
		return fmt.Errorf("%w: relativePath %q is not %s's payload %s", ErrPayloadReference, r.RelativePath, sessionID, r.SHA256)
	}
	return nil
}

// PayloadSource reads payload files by their relative path.
type PayloadSource interface {
	ReadPayload(relativePath string) ([]byte, error)
}

// DirPayloads reads payloads from a log directory.
type DirPayloads string

// ReadPayload implements PayloadSource; paths that are not local to the directory are
// refused.
func (d DirPayloads) ReadPayload(relativePath string) ([]byte, error) {
	p := filepath.FromSlash(relativePath)
	if !filepath.IsLocal(p) {
		return nil, fmt.Errorf("%w: %q is not inside the log directory", ErrPayloadReference, relativePath)
	}
	return os.ReadFile(filepath.Join(string(d), p))
}

// resolve reads and verifies the content ref names.
func resolve(ref PayloadRef, sessionID string, src PayloadSource) ([]byte, error) {
	if err := ref.Validate(sessionID); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, ErrNoPayloadSource
	}
	b, err := src.ReadPayload(ref.RelativePath)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrPayloadReference, ref.RelativePath, err)
	}
	sum := sha256.Sum256(b)
	if int64(len(b)) != ref.ByteLength || hex.EncodeToString(sum[:]) != ref.SHA256 {
		return nil, fmt.Errorf("%w: %s does not match its digest or length", ErrPayloadReference, ref.RelativePath)
	}
	if !validJSON(b) {
		return nil, fmt.Errorf("%w: %s is not JSON", ErrPayloadReference, ref.RelativePath)
	}
	return b, nil
}

// asPayloadRef reports whether a tree node claims to be a payload reference (its kind is
// PayloadKind) and decodes it; a claim with extra or missing members is malformed.
func asPayloadRef(v any) (ref PayloadRef, claimed bool, err error) {
	m, ok := v.(map[string]any)
	if !ok || m["kind"] != PayloadKind {
		return PayloadRef{}, false, nil
	}
	raw, err := marshal(m)
	if err != nil {
		return PayloadRef{}, true, err
	}
	if err := jsonv2.Unmarshal(raw, &ref, v1Options.Get(), jsonv2.RejectUnknownMembers(true)); err != nil {
		return PayloadRef{}, true, fmt.Errorf("%w: %v", ErrPayloadReference, err)
	}
	if len(m) != 5 {
		return PayloadRef{}, true, fmt.Errorf("%w: %d members, want 5", ErrPayloadReference, len(m))
	}
	return ref, true, nil
}

// Hydrate returns data with every payload reference replaced by the value it names, after
// checking the reference and the content's digest. Data without references is returned
// as is.
func Hydrate(data json.RawMessage, sessionID string, src PayloadSource) (json.RawMessage, error) {
	if !bytes.Contains(data, []byte(PayloadKind)) {
		return data, nil
	}
	tree, err := toTree(data)
	if err != nil {
		return nil, err
	}
	tree, err = hydrateTree(tree, sessionID, src)
	if err != nil {
		return nil, err
	}
	return encodeJSON(tree)
}

func hydrateTree(v any, sessionID string, src PayloadSource) (any, error) {
	ref, claimed, err := asPayloadRef(v)
	if err != nil {
		return nil, err
	}
	if claimed {
		b, err := resolve(ref, sessionID, src)
		if err != nil {
			return nil, err
		}
		return toTree(json.RawMessage(b))
	}
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if t[k], err = hydrateTree(c, sessionID, src); err != nil {
				return nil, err
			}
		}
	case []any:
		for i, c := range t {
			if t[i], err = hydrateTree(c, sessionID, src); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// externalize moves strings longer than the threshold and arrays whose JSON is longer
// into payload files, replacing them with references. Objects are descended into, so the
// identifiers they carry stay on the line. The tree is modified in place.
func (l *FileLogger) externalize(v any) (any, error) {
	if l.threshold < 0 {
		return v, nil
	}
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			nc, err := l.externalize(c)
			if err != nil {
				return nil, err
			}
			t[k] = nc
		}
		return t, nil
	case []any:
		buf := getEncodeBuffer()
		defer putEncodeBuffer(buf)
		b, err := appendTree(*buf, t)
		if err != nil {
			return nil, err
		}
		*buf = b
		if len(b) <= l.threshold {
			return t, nil
		}
		return l.writePayload(b)
	case string:
		if len(t) <= l.threshold {
			return t, nil
		}
		return l.externalizeString(t)
	default:
		return v, nil
	}
}

// externalizeString stores a (redacted) long string as a payload. A round's answer is
// externalized from several lines (its deltas, the response, the history): the same
// string gets the same file, found without encoding and hashing it again.
func (l *FileLogger) externalizeString(s string) (PayloadRef, error) {
	if c := l.lastPayload; c.ref.SHA256 != "" && len(c.text) == len(s) && c.text == s && l.payloadExists(c.ref) {
		return c.ref, nil
	}
	buf := getEncodeBuffer()
	defer putEncodeBuffer(buf)
	b := appendString(*buf, s) // a string's JSON, as encodeJSON writes it
	*buf = b
	ref, err := l.writePayload(b)
	if err == nil {
		l.lastPayload.text, l.lastPayload.ref = s, ref
	}
	return ref, err
}

// writePayload stores b under its digest (once: an existing file of the right size is
// reused) and returns its reference. The file is complete before the reference is
// returned, so no line ever names a partial payload.
func (l *FileLogger) writePayload(b []byte) (PayloadRef, error) {
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:])
	ref := PayloadRef{Kind: PayloadKind, Encoding: "json", SHA256: digest, ByteLength: int64(len(b)),
		RelativePath: path.Join(PayloadDir(l.sessionID), digest+".json")}
	dir := filepath.Join(l.dir, PayloadDir(l.sessionID))
	final := filepath.Join(dir, digest+".json")
	if st, err := os.Stat(final); err == nil && st.Size() == int64(len(b)) {
		return ref, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return PayloadRef{}, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return PayloadRef{}, err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return PayloadRef{}, err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return PayloadRef{}, err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		_ = os.Remove(tmp.Name())
		return PayloadRef{}, err
	}
	return ref, nil
}
