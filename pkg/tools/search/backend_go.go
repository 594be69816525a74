package search

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
)

// goBackend searches in-process: a parallel walk feeding one searcher per CPU, each reading
// whole files into a reused buffer and running Go's RE2 engine over them.
type goBackend struct{}

func (goBackend) name() string { return "go" }

func (goBackend) search(ctx context.Context, req grepRequest) ([]fileResult, error) {
	var (
		mu      sync.Mutex
		results []fileResult
	)
	collect := func(r fileResult) {
		mu.Lock()
		results = append(results, r)
		mu.Unlock()
	}
	if req.exclude.excludes(req.root) {
		return nil, ctx.Err()
	}
	if req.isFile {
		var buf []byte
		if r, ok := searchPath(req, req.root, &buf); ok {
			collect(r)
		}
		return results, ctx.Err()
	}
	paths := make(chan string, 512)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for p := range paths {
				if ctx.Err() != nil {
					continue
				}
				if r, ok := searchPath(req, p, &buf); ok {
					collect(r)
				}
			}
		}()
	}
	err := walk(ctx, req.root, nil, req.policy(), func(e entry) { paths <- e.abs })
	close(paths)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return results, nil
}

// searchPath reads path into *buf (grown as needed, reused across files) and searches it.
func searchPath(req grepRequest, path string, buf *[]byte) (fileResult, bool) {
	data, ok := readInto(path, buf)
	if !ok || binaryPrefix(data) {
		return fileResult{}, false
	}
	r, ok := searchData(req, data)
	r.path = path
	return r, ok
}

func readInto(path string, buf *[]byte) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = int(fi.Size())
	}
	if cap(*buf) < size+1 {
		*buf = make([]byte, 0, size+512)
	}
	data := (*buf)[:0]
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
	}
	*buf = data
	return data, true
}

// span is a run of lines [first, last] (1-based) covered by one match, with the byte
// offsets of the first line's start and the last line's end (before its \n).
type span struct {
	first, last int
	start, end  int
}

// searchData finds the lines of data that match. In files_with_matches mode it stops at the
// first match.
func searchData(req grepRequest, data []byte) (fileResult, bool) {
	var spans []span
	if req.multiline {
		spans = multilineSpans(req, data)
	} else {
		spans = lineSpans(req, data)
	}
	if len(spans) == 0 {
		return fileResult{}, false
	}
	if req.mode == ModeFiles {
		return fileResult{count: 1}, true
	}
	matched := map[int]bool{}
	var nums []int
	for _, s := range spans {
		for n := s.first; n <= s.last; n++ {
			if !matched[n] {
				matched[n] = true
				nums = append(nums, n)
			}
		}
	}
	r := fileResult{count: len(nums)}
	if req.mode != ModeContent {
		return r, true
	}
	sort.Ints(nums)
	idx := newLineIndex(data)
	emitted := 0 // last line number emitted
	for _, n := range nums {
		from := max(n-req.before, emitted+1, 1)
		to := n
		if req.after > 0 {
			to = min(n+req.after, idx.count())
		}
		for k := from; k <= to; k++ {
			if k <= emitted {
				continue
			}
			r.lines = append(r.lines, resultLine{num: k, text: string(idx.line(data, k)), match: matched[k]})
			emitted = k
		}
	}
	return r, true
}

// phantom reports a match position just past a final newline (or in an empty file): the
// "line" there does not exist for a line-oriented search.
func phantom(data []byte, pos int) bool {
	return pos == len(data) && (len(data) == 0 || data[len(data)-1] == '\n')
}

// lineSpans runs the single-line search: the pattern cannot match \n, so each match lies in
// one line, and the search resumes at the next line after a match.
func lineSpans(req grepRequest, data []byte) []span {
	var spans []span
	pos, lineNo, counted := 0, 1, 0
	for pos <= len(data) {
		loc := req.pat.re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		s := pos + loc[0]
		if phantom(data, s) {
			break
		}
		ls := bytes.LastIndexByte(data[:s], '\n') + 1
		le := len(data)
		if i := bytes.IndexByte(data[s:], '\n'); i >= 0 {
			le = s + i
		}
		lineNo += bytes.Count(data[counted:ls], []byte{'\n'})
		counted = ls
		spans = append(spans, span{first: lineNo, last: lineNo, start: ls, end: le})
		if req.mode == ModeFiles {
			break
		}
		pos = le + 1
	}
	return spans
}

// multilineSpans runs the search over the whole file; a match covers every line from the one
// it starts in to the one holding its last byte.
func multilineSpans(req grepRequest, data []byte) []span {
	var spans []span
	limit := -1
	if req.mode == ModeFiles {
		limit = 2 // the first may be a phantom
	}
	lineNo, counted := 1, 0
	for _, loc := range req.pat.re.FindAllIndex(data, limit) {
		s, e := loc[0], loc[1]
		if phantom(data, s) {
			continue
		}
		last := max(e-1, s)
		lineNo += bytes.Count(data[counted:s], []byte{'\n'})
		counted = s
		first := lineNo
		lastNo := first + bytes.Count(data[s:last], []byte{'\n'})
		spans = append(spans, span{first: first, last: lastNo})
		if req.mode == ModeFiles {
			break
		}
	}
	return spans
}

// lineIndex gives the text of any line of a file by number.
type lineIndex struct{ starts []int }

func newLineIndex(data []byte) lineIndex {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	if len(data) == 0 {
		starts = nil
	}
	return lineIndex{starts: starts}
}

func (x lineIndex) count() int { return len(x.starts) }

func (x lineIndex) line(data []byte, n int) []byte {
	start := x.starts[n-1]
	end := len(data)
	if n < len(x.starts) {
		end = x.starts[n] - 1
	} else if end > start && data[end-1] == '\n' {
		end--
	}
	return data[start:end]
}
