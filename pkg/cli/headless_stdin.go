package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// maxPipedInput bounds what `cat file | robota -p ...` may add to the prompt.
const maxPipedInput = 10 << 20

// withPipedInput adds piped stdin to the prompt, as `claude -p` does: appended after a
// blank line, or as the whole prompt when prompt is empty. A terminal or /dev/null adds
// nothing. When no byte arrives within wait, it warns on warn and goes on without stdin
// (a pipe that is never written to or closed must not hang the run); once input starts,
// it is read to its end.
func withPipedInput(prompt string, stdin *os.File, wait time.Duration, warn io.Writer) (string, error) {
	st, err := stdin.Stat()
	if err != nil {
		return prompt, nil
	}
	if mode := st.Mode(); mode&(os.ModeNamedPipe|os.ModeSocket) == 0 && !mode.IsRegular() {
		return prompt, nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	data, arrived, err := readWithin(stdin, timer.C)
	if !arrived {
		fmt.Fprintf(warn, "robota: warning: no stdin data received in %s, proceeding without it "+
			"(redirect stdin from /dev/null to skip the wait)\n", wait)
		return prompt, nil
	}
	if err != nil {
		return "", err
	}
	if len(data) > maxPipedInput {
		return "", fmt.Errorf("piped input is over %d MiB", maxPipedInput>>20)
	}
	switch s := strings.TrimSpace(string(data)); {
	case s == "":
		return prompt, nil
	case prompt == "":
		return s, nil
	default:
		return prompt + "\n\n" + s, nil
	}
}

// readWithin reads r to its end (up to maxPipedInput+1 bytes) unless nothing at all, not
// even the end, arrived when timeout fires; then arrived is false and the read goes on in
// the background, its result dropped.
func readWithin(r io.Reader, timeout <-chan time.Time) (data []byte, arrived bool, err error) {
	type result struct {
		data []byte
		err  error
	}
	started := make(chan struct{})
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(&firstByteReader{r: io.LimitReader(r, maxPipedInput+1), started: started})
		done <- result{data, err}
	}()
	select {
	case <-started:
	case res := <-done:
		return res.data, true, res.err
	case <-timeout:
		select { // a first byte that came with the timeout still counts
		case <-started:
		case res := <-done:
			return res.data, true, res.err
		default:
			return nil, false, nil
		}
	}
	res := <-done
	return res.data, true, res.err
}

// firstByteReader closes started when the first byte is read.
type firstByteReader struct {
	r       io.Reader
	started chan struct{}
	seen    bool
}

func (f *firstByteReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 && !f.seen {
		f.seen = true
		close(f.started)
	}
	return n, err
}
