package memory

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// Paths relative to the project root, slash-separated (os.Root names).
const (
	Dir        = ".robota/memory"
	IndexFile  = Dir + "/MEMORY.md"
	TopicsDir  = Dir + "/topics"
	PendingDir = Dir + "/pending"
)

// MaxTextBytes bounds one memory's text.
const MaxTextBytes = 4096

// maxIndexText bounds the text an index line repeats of its entry.
const maxIndexText = 160

// maxTopicBytes bounds a topic file that is read.
const maxTopicBytes = 1 << 20

// Store is the project memory of one project root. It is safe for concurrent use.
type Store struct {
	root string
	now  func() time.Time
	mu   sync.Mutex // orders the dedup check and the append of one process
}

// NewStore returns the store of the project at root; now nil means time.Now.
func NewStore(root string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{root: root, now: now}
}

// Root is the project root the store lives in.
func (s *Store) Root() string { return s.root }

func (s *Store) open() (*os.Root, error) {
	r, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("project memory: %w", err)
	}
	return r, nil
}

// TopicPath is the topic file of a valid, normalised topic, relative to the project.
func TopicPath(topic string) string { return TopicsDir + "/" + topic + ".md" }

// AppendResult is what Append did.
type AppendResult struct {
	Topic, Path  string
	Entry        Entry
	Deduplicated bool
}

// Append adds text as a typ memory of topic: a bullet line in the topic file and one in
// the index. The text is not checked against the policy here (Evaluate is the caller's
// step); it is folded into one line. An entry already in the topic is not written again.
func (s *Store) Append(topic string, typ Type, text string) (AppendResult, error) {
	topic = NormalizeTopic(topic)
	if err := ValidTopic(topic); err != nil {
		return AppendResult{}, err
	}
	if _, err := ParseType(string(typ)); err != nil {
		return AppendResult{}, err
	}
	text = oneLine(text)
	if text == "" {
		return AppendResult{}, ErrEmptyText
	}
	if len(text) > MaxTextBytes {
		return AppendResult{}, fmt.Errorf("memory text is %d bytes; at most %d", len(text), MaxTextBytes)
	}
	e := Entry{Type: typ, Text: text, Date: s.now().UTC().Format(time.DateOnly)}
	res := AppendResult{Topic: topic, Path: TopicPath(topic), Entry: e}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.open()
	if err != nil {
		return res, err
	}
	defer r.Close()
	existing, err := readRooted(r, res.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("memory topic %s: %w", topic, err)
	}
	want := normalize(text)
	for _, old := range parseEntries(existing) {
		if normalize(old.Text) == want {
			res.Deduplicated, res.Entry = true, old
			return res, nil
		}
	}
	if err := r.MkdirAll(TopicsDir, 0o755); err != nil {
		return res, fmt.Errorf("project memory: %w", err)
	}
	add := e.line() + "\n"
	if existing == "" {
		add = "# " + topic + "\n\n" + add
	} else if !strings.HasSuffix(existing, "\n") {
		add = "\n" + add
	}
	if err := appendRooted(r, res.Path, add); err != nil {
		return res, fmt.Errorf("memory topic %s: %w", topic, err)
	}
	if err := s.appendIndex(r, topic, e); err != nil {
		return res, err
	}
	return res, nil
}

func (s *Store) appendIndex(r *os.Root, topic string, e Entry) error {
	text := e.Text
	if len(text) > maxIndexText {
		cut := maxIndexText
		for cut > 0 && !utf8Start(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	line := fmt.Sprintf("- %s (%s): %s\n", topic, e.Type, text)
	old, err := readRooted(r, IndexFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("memory index: %w", err)
	}
	if old != "" && !strings.HasSuffix(old, "\n") {
		line = "\n" + line
	}
	if err := appendRooted(r, IndexFile, line); err != nil {
		return fmt.Errorf("memory index: %w", err)
	}
	return nil
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Index returns the text of MEMORY.md ("" when there is none).
func (s *Store) Index() (string, error) {
	r, err := s.open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	text, err := readRooted(r, IndexFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return text, err
}

// TopicInfo summarises one topic file.
type TopicInfo struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Entries int    `json:"entries"`
}

// Topics lists the topic files, by name. A file whose name is not a valid topic is
// skipped (it cannot be shown or added to either).
func (s *Store) Topics() ([]TopicInfo, error) {
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d, err := r.Open(TopicsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory topics: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("memory topics: %w", err)
	}
	slices.Sort(names)
	var out []TopicInfo
	for _, n := range names {
		topic, ok := strings.CutSuffix(n, ".md")
		if !ok || ValidTopic(topic) != nil {
			continue
		}
		text, err := readRooted(r, TopicPath(topic))
		if err != nil {
			continue // a directory or an unreadable file named like a topic
		}
		out = append(out, TopicInfo{Name: topic, Path: TopicPath(topic), Entries: len(parseEntries(text))})
	}
	return out, nil
}

// Topic is a topic file's content.
type Topic struct {
	TopicInfo
	Content string  `json:"content"`
	List    []Entry `json:"list"`
}

// Show reads a topic file.
func (s *Store) Show(topic string) (Topic, error) {
	topic = NormalizeTopic(topic)
	if err := ValidTopic(topic); err != nil {
		return Topic{}, err
	}
	r, err := s.open()
	if err != nil {
		return Topic{}, err
	}
	defer r.Close()
	text, err := readRooted(r, TopicPath(topic))
	if errors.Is(err, fs.ErrNotExist) {
		return Topic{}, fmt.Errorf("%w %q", ErrUnknownTopic, topic)
	}
	if err != nil {
		return Topic{}, fmt.Errorf("memory topic %s: %w", topic, err)
	}
	list := parseEntries(text)
	return Topic{TopicInfo: TopicInfo{Name: topic, Path: TopicPath(topic), Entries: len(list)}, Content: text, List: list}, nil
}

// readRooted reads a regular file inside r, at most maxTopicBytes.
func readRooted(r *os.Root, name string) (string, error) {
	f, err := r.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTopicBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxTopicBytes {
		return "", fmt.Errorf("%s is larger than %d bytes", name, maxTopicBytes)
	}
	return string(b), nil
}

func appendRooted(r *os.Root, name, text string) error {
	if err := r.MkdirAll(path.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
