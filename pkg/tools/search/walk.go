package search

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// vcsDirs are never searched or listed (their content is not the project's source).
var vcsDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

func isVCS(name string) bool {
	for _, v := range vcsDirs {
		if name == v {
			return true
		}
	}
	return false
}

// entry is one directory entry the walker reached.
type entry struct {
	abs     string
	rel     string // slash-separated, relative to the walk root
	name    string
	isDir   bool
	ignored bool // by a .gitignore at or below the walk root
	d       fs.DirEntry
}

// walkPolicy decides what the walker descends into and reports.
type walkPolicy interface {
	// descend reports whether to enter directory e.
	descend(e entry) bool
	// include reports whether regular file e is a result.
	include(e entry) bool
}

// walk visits the regular files below root that policy includes, in parallel, calling
// visit from several goroutines. Hidden files are included; VCS directories, symbolic links
// and special files are skipped; .gitignore files at and below root are honoured through
// the verdict in entry.ignored (the policy decides what to do with it). prefix, when not
// empty, starts the walk at root/prefix while still applying the .gitignore files on the way
// down to it.
func walk(ctx context.Context, root string, prefix []string, policy walkPolicy, visit func(entry)) error {
	start, startRel, patterns, ok := descendPrefix(root, prefix, policy)
	if !ok {
		return nil
	}
	w := &walker{ctx: ctx, policy: policy, visit: visit}
	w.cond = sync.NewCond(&w.mu)
	w.queue = []dirJob{{abs: start, rel: startRel, patterns: patterns}}
	w.pending = 1
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run()
		}()
	}
	wg.Wait()
	return ctx.Err()
}

type dirJob struct {
	abs      string
	rel      string
	patterns []gitignore.Pattern
}

type walker struct {
	ctx     context.Context
	policy  walkPolicy
	visit   func(entry)
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []dirJob
	pending int // directories queued or being read
}

func (w *walker) run() {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			return
		}
		job := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.mu.Unlock()

		var subdirs []dirJob
		if w.ctx.Err() == nil {
			subdirs = w.readDir(job)
		}

		w.mu.Lock()
		w.queue = append(w.queue, subdirs...)
		w.pending += len(subdirs) - 1
		w.mu.Unlock()
		w.cond.Broadcast()
	}
}

// readDir reports the files of one directory and returns its subdirectories to walk.
func (w *walker) readDir(job dirJob) []dirJob {
	f, err := os.Open(job.abs)
	if err != nil {
		return nil
	}
	entries, _ := f.ReadDir(-1)
	f.Close()
	patterns := job.patterns
	for _, d := range entries {
		if d.Name() == ".gitignore" && d.Type().IsRegular() {
			patterns = appendIgnoreFile(patterns, filepath.Join(job.abs, d.Name()), splitRel(job.rel))
			break
		}
	}
	var matcher gitignore.Matcher
	if len(patterns) > 0 {
		matcher = gitignore.NewMatcher(patterns)
	}
	var subdirs []dirJob
	for _, d := range entries {
		name := d.Name()
		t := d.Type()
		if isVCS(name) || t&(fs.ModeSymlink|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice|fs.ModeIrregular) != 0 {
			continue
		}
		e := entry{abs: job.abs + string(filepath.Separator) + name, rel: joinRel(job.rel, name), name: name, isDir: t.IsDir(), d: d}
		if matcher != nil {
			e.ignored = matcher.Match(splitRel(e.rel), e.isDir)
		}
		if e.isDir {
			if w.policy.descend(e) {
				subdirs = append(subdirs, dirJob{abs: e.abs, rel: e.rel, patterns: patterns})
			}
			continue
		}
		if w.policy.include(e) {
			w.visit(e)
		}
	}
	return subdirs
}

// descendPrefix walks from root down to root/prefix, loading .gitignore files on the way and
// checking that no directory on the way is excluded.
func descendPrefix(root string, prefix []string, policy walkPolicy) (abs, rel string, patterns []gitignore.Pattern, ok bool) {
	abs = root
	for i, name := range prefix {
		patterns = appendIgnoreFile(patterns, filepath.Join(abs, ".gitignore"), prefix[:i])
		next := filepath.Join(abs, name)
		fi, err := os.Lstat(next)
		if err != nil || !fi.IsDir() || isVCS(name) || name == ".." || name == "." {
			return "", "", nil, false
		}
		e := entry{abs: next, rel: joinRel(rel, name), name: name, isDir: true}
		if len(patterns) > 0 {
			e.ignored = gitignore.NewMatcher(patterns).Match(splitRel(e.rel), true)
		}
		if !policy.descend(e) {
			return "", "", nil, false
		}
		abs, rel = next, e.rel
	}
	return abs, rel, patterns, true
}

// appendIgnoreFile adds the patterns of the .gitignore at path (if any), whose directory is
// domain (segments relative to the walk root). The result never aliases patterns' array,
// because sibling directories share it.
func appendIgnoreFile(patterns []gitignore.Pattern, path string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(path)
	if err != nil {
		return patterns
	}
	out := patterns[:len(patterns):len(patterns)]
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, domain))
	}
	return out
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func splitRel(rel string) []string {
	if rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}
