package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// rgBackend runs ripgrep. Its flags pin ripgrep to the same rules as the Go backend: hidden
// files searched, .gitignore honoured at and below the search root whether or not it is a
// git repository (no global, parent, .ignore or info/exclude files), VCS directories
// skipped, symbolic links not followed, the pattern as Go parsed it, and binary detection
// done here (a NUL in the first 8,000 bytes), not by ripgrep.
type rgBackend struct{ path string }

func (b rgBackend) name() string { return "ripgrep" }

// rgTypeName is the ripgrep type Grep's type parameter is defined as (with --type-add).
const rgTypeName = "robotatype"

func (b rgBackend) args(req grepRequest) []string {
	args := []string{
		"--no-config", "--hidden", "--no-require-git", "--no-ignore-parent", "--no-ignore-global",
		"--no-ignore-exclude", "--no-ignore-dot", "--text", "--no-messages", "--with-filename",
		"--max-filesize", strconv.FormatInt(req.maxFileSize, 10),
	}
	if req.globRaw != "" {
		args = append(args, "--glob", req.globRaw)
	}
	for _, v := range vcsDirs {
		args = append(args, "--glob", "!"+v)
	}
	if req.typeGlobs != nil {
		for _, g := range req.typeGlobs {
			args = append(args, "--type-add", rgTypeName+":"+g)
		}
		args = append(args, "--type", rgTypeName)
	}
	if req.multiline {
		args = append(args, "--multiline")
	}
	switch {
	case req.mode == ModeFiles:
		args = append(args, "--files-with-matches", "--null")
	case req.mode == ModeCount && !req.multiline:
		args = append(args, "--count", "--null")
	default:
		args = append(args, "--json")
		if req.mode == ModeContent {
			args = append(args, "--after-context", strconv.Itoa(req.after), "--before-context", strconv.Itoa(req.before))
		}
	}
	target := "."
	if req.isFile {
		target = req.root
	}
	return append(args, "--regexp", req.pat.rgPattern, "--", target)
}

// search runs rg and drops the files req.exclude leaves out as it reads rg's output, before
// anything of them is kept (or opened for the binary check). rg itself still reads them: the
// filter is a Go function it cannot apply.
func (b rgBackend) search(ctx context.Context, req grepRequest) ([]fileResult, error) {
	if req.exclude.excludes(req.root) {
		return nil, ctx.Err()
	}
	cmd := exec.CommandContext(ctx, b.path, b.args(req)...)
	if !req.isFile {
		cmd.Dir = req.root
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting ripgrep: %w", err)
	}
	abs := func(p string) string {
		if req.isFile || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(req.root, strings.TrimPrefix(p, "./"))
	}
	keep := func(string) bool { return true }
	if !req.isFile {
		keep = newResultFilter(req.root, req.exclude).keep
	}
	var results []fileResult
	var parseErr error
	switch {
	case req.mode == ModeFiles:
		results, parseErr = parseNullList(stdout, abs, keep)
	case req.mode == ModeCount && !req.multiline:
		results, parseErr = parseNullCounts(stdout, abs, keep)
	default:
		results, parseErr = parseJSON(stdout, abs, keep, req.mode == ModeContent)
	}
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if parseErr != nil {
		return nil, fmt.Errorf("reading ripgrep output: %w", parseErr)
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) && exit.ExitCode() == 2 && len(results) == 0 && stderr.Len() > 0 {
		return nil, fmt.Errorf("ripgrep failed: %s", strings.TrimSpace(stderr.String()))
	} else if waitErr != nil && !errors.As(waitErr, &exit) {
		return nil, fmt.Errorf("ripgrep failed: %w", waitErr)
	}
	return dropBinary(results), nil
}

// dropBinary removes files whose first 8,000 bytes hold a NUL, checking them in parallel.
func dropBinary(results []fileResult) []fileResult {
	binary := make([]bool, len(results))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(results)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				binary[i] = binaryFile(results[i].path)
			}
		}()
	}
	for i := range results {
		next <- i
	}
	close(next)
	wg.Wait()
	kept := results[:0]
	for i, r := range results {
		if !binary[i] {
			kept = append(kept, r)
		}
	}
	return kept
}

// parseNullList reads a --null file list. Like the other parsers, it takes abs, which makes
// rg's paths absolute, and keep, which says whether a file's results may be used at all.
func parseNullList(r io.Reader, abs func(string) string, keep func(string) bool) ([]fileResult, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	var out []fileResult
	for {
		p, err := br.ReadString(0)
		if p = strings.TrimSuffix(p, "\x00"); p != "" && keep(abs(p)) {
			out = append(out, fileResult{path: abs(p), count: 1})
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func parseNullCounts(r io.Reader, abs func(string) string, keep func(string) bool) ([]fileResult, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	var out []fileResult
	for {
		p, err := br.ReadString(0)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		countText, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return out, err
		}
		n, convErr := strconv.Atoi(strings.TrimSpace(countText))
		if convErr != nil {
			return out, fmt.Errorf("bad count line %q", countText)
		}
		if path := abs(strings.TrimSuffix(p, "\x00")); keep(path) {
			out = append(out, fileResult{path: path, count: n})
		}
	}
}

// rgData is ripgrep's JSON text-or-bytes value.
type rgData struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (d rgData) String() string {
	if d.Text != nil {
		return *d.Text
	}
	if d.Bytes != nil {
		if raw, err := base64.StdEncoding.DecodeString(*d.Bytes); err == nil {
			return string(raw)
		}
	}
	return ""
}

type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgData `json:"path"`
		Lines      rgData `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

// parseJSON reads ripgrep's --json stream. A multiline match message holds several lines; it
// is split so each line is reported once, under its own number.
func parseJSON(r io.Reader, abs func(string) string, keep func(string) bool, keepLines bool) ([]fileResult, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 256*1024*1024)
	var out []fileResult
	var cur *fileResult
	skipping := false     // the current file is excluded: its lines are dropped
	seen := map[int]int{} // line number → index in cur.lines
	for sc.Scan() {
		var m rgMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return out, err
		}
		switch m.Type {
		case "begin":
			path := abs(m.Data.Path.String())
			if skipping = !keep(path); skipping {
				cur = nil
				continue
			}
			out = append(out, fileResult{path: path})
			cur = &out[len(out)-1]
			clear(seen)
		case "match", "context":
			if skipping {
				continue
			}
			if cur == nil {
				return out, errors.New("match before begin")
			}
			text := strings.TrimSuffix(m.Data.Lines.String(), "\n")
			for i, line := range strings.Split(text, "\n") {
				num := m.Data.LineNumber + i
				isMatch := m.Type == "match"
				if k, dup := seen[num]; dup {
					if isMatch && !cur.lines[k].match {
						cur.lines[k].match = true
						cur.count++
					}
					continue
				}
				seen[num] = len(cur.lines)
				cur.lines = append(cur.lines, resultLine{num: num, text: line, match: isMatch})
				if isMatch {
					cur.count++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	kept := out[:0]
	for _, f := range out {
		if f.count == 0 {
			continue
		}
		if !keepLines {
			f.lines = nil
		}
		kept = append(kept, f)
	}
	return kept, nil
}
