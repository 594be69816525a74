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
// whole files into a reused buffer and running Go's RE2 engine over them. Files over the
// request's size cap are skipped (as rg --max-filesize does), and files over bigFileSize are
// read one at a time into a buffer that is not kept, so the searchers together hold at most
// one big file and a small buffer each, not one big file per CPU.
type goBackend struct{}

// bigFileSize is the size above which a file is read under the one shared big-file token.
const bigFileSize = 4 << 20

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
	big := make(chan struct{}, 1)
	if req.isFile {
		fr := fileReader{max: req.maxFileSize, big: big}
		if r, ok := fr.searchPath(req, req.root); ok {
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
			fr := fileReader{max: req.maxFileSize, big: big}
			for p := range paths {
				if ctx.Err() != nil {
					continue
				}
				if r, ok := fr.searchPath(req, p); ok {
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

// fileReader reads the files one searcher searches.
type fileReader struct {
	max int64         // files larger than this are skipped
	big chan struct{} // held while a file over bigFileSize is read and searched
	buf []byte        // reused for files up to bigFileSize
}

// searchPath reads path and searches it; ok is false for a file that is unreadable, over
// the size cap, binary or without a match.
func (r *fileReader) searchPath(req grepRequest, path string) (fileResult, bool) {
	f, err := os.Open(path)
	if err != nil {
		return fileResult{}, false
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if size > r.max {
		return fileResult{}, false
	}
	buf := &r.buf
	if size > bigFileSize {
		r.big <- struct{}{}
		defer func() { <-r.big }()
		buf = new([]byte)
	}
	data, ok := readAtMost(f, size, r.max, buf)
	if !ok || binaryPrefix(data) {
		return fileResult{}, false
	}
	res, ok := searchData(req, data)
	res.path = path
	return res, ok
}

// readAtMost reads f (expected to hold size bytes) into *buf, grown as needed; ok is false
// on a read error or when f turns out to hold more than max bytes.
func readAtMost(f *os.File, size, max int64, buf *[]byte) ([]byte, bool) {
	if int64(cap(*buf)) < size+1 {
		*buf = make([]byte, 0, size+512)
	}
	data := (*buf)[:0]
	lr := io.LimitReader(f, max+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
	}
	*buf = data
	return data, int64(len(data)) <= max
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
