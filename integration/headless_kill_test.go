package integration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	killRounds = 50
	// maxReads bounds the large Reads a resumed session collects (see the loop).
	maxReads = 15
	// killSeedEnv replays a failing run: ROBOTA_KILL_SEED=<seed printed by the test>.
	killSeedEnv = "ROBOTA_KILL_SEED"
)

// TestHeadlessKill9LeavesLoadableSessionAndLog: robota -p killed with SIGKILL at a random
// moment, 50 times (new sessions and --resume of one session, mixed), always leaves every
// session journal loadable, holding every tool round completed before the kill (issue 10
// §2: a round is proven complete by the log, which records a provider request only after
// the rounds before it are stored), and logs whose complete lines all parse (a trailing
// partial line is allowed), with consecutive sequence numbers and payload references that
// name complete payload files. Afterwards every stored session resumes with them.
func TestHeadlessKill9LeavesLoadableSessionAndLog(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(killSeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", killSeedEnv, s, err)
		}
		seed = v
	}
	t.Logf("kill timing seed %d (replay with %s=%d)", seed, killSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, 0x6b696c6c))

	p := newProject(t)
	var big strings.Builder
	for i := range 300 {
		fmt.Fprintf(&big, "line %03d %s\n", i, strings.Repeat("x", 60))
	}
	p.writeFile(t, "big.txt", big.String())
	script := p.script(t, "kill", nil)
	base := []string{"--provider", "script", "--script", script, "--allowedTools", "Read,Bash(sleep *)", "--output-format", "stream-json"}

	// Two complete runs of the session the kills will --resume; the faster one sets the
	// range of kill delays, so most kills land inside a run on this machine.
	start := time.Now()
	first := p.mustRun(t, append([]string{"-p", "start"}, base...)...)
	fullRun := time.Since(start)
	id := sessionIDOf(t, first.Stdout)
	start = time.Now()
	p.mustRun(t, append([]string{"-p", "again", "--resume", id}, base...)...)
	fullRun = min(fullRun, time.Since(start))
	t.Logf("a complete run takes %v", fullRun)

	saved := map[string][]byte{} // last seen bytes of each record file
	logs := logCheck{}
	checkSessions(t, p, saved, "before the kills")

	killed, finished, resumed, savesSeen, tornTails, proven := 0, 0, 0, 0, 0, 0
	resumedIDs := []string{id}
	for round := range killRounds {
		args := append([]string{"-p", fmt.Sprintf("round %d", round)}, base...)
		// Every run that gets past its Read adds the large file to the resumed session,
		// and after about 29 of them a resume would start with an automatic compaction,
		// which replaces the history the final check expects kept. So once the session
		// holds maxReads of them, the next new session is resumed instead.
		if n := bigReads(p.record(t, id)); n >= maxReads {
			before := p.sessionIDs(t)
			exited, err := runAndKill(p, args, killDelay(rng, fullRun))
			if err != nil {
				t.Fatalf("round %d (a new session to resume): %v", round, err)
			}
			if exited {
				finished++
			} else {
				killed++
			}
			if next := newSessionID(before, p.sessionIDs(t)); next != "" {
				id = next
				resumedIDs = append(resumedIDs, id)
			}
			if checkSessions(t, p, saved, fmt.Sprintf("round %d (new session)", round)) {
				savesSeen++
			}
			tornTails += logs.check(t, p, fmt.Sprintf("round %d (new session)", round))
			continue
		}
		if rng.IntN(3) > 0 {
			args = append(args, "--resume", id)
			resumed++
		}
		delay := killDelay(rng, fullRun)
		exited, err := runAndKill(p, args, delay)
		if err != nil {
			t.Fatalf("round %d (delay %v): %v", round, delay, err)
		}
		if exited {
			finished++
		} else {
			killed++
		}
		if checkSessions(t, p, saved, fmt.Sprintf("round %d (kill after %v, args %q)", round, delay, args[2:])) {
			savesSeen++
		}
		tornTails += logs.check(t, p, fmt.Sprintf("round %d (kill after %v)", round, delay))
		proven = 0
		for _, sid := range p.sessionIDs(t) {
			proven += wantCompletedRounds(t, p, sid, fmt.Sprintf("round %d (kill after %v)", round, delay))
		}
	}
	t.Logf("%d rounds: %d killed mid-run, %d finished first; %d resumed %v; %d rounds saved a record; %d torn log tails seen; "+
		"%d completed tool rounds proven by the logs, all stored",
		killRounds, killed, finished, resumed, resumedIDs, savesSeen, tornTails, proven)
	if killed < killRounds/5 {
		t.Fatalf("only %d of %d runs were killed before they finished: the test did not exercise kills", killed, killRounds)
	}

	// Every stored session is loadable by robota itself, and resumes with every completed
	// round: the record the resumed run starts from is the one checked above, and what it
	// sends the model (its first request) carries all of it.
	for _, sid := range p.sessionIDs(t) {
		before := p.record(t, sid)
		res := p.mustRun(t, append([]string{"-p", "after the kills", "--resume", sid}, base...)...)
		if got := sessionIDOf(t, res.Stdout); got != sid {
			t.Fatalf("--resume %s ran session %s", sid, got)
		}
		wantPrefix(t, "resumed after the kills: "+sid, before, p.record(t, sid))
		wantCompletedRounds(t, p, sid, "after the kills")
	}
}

// wantCompletedRounds checks that the journal of session sid holds every tool round its
// log proves complete, and returns how many. The session stores the rounds completed so
// far before it logs a provider request (session.onAgentEvent), so a logged provider
// request of round r proves that its run's prompt is stored, followed by r-1 tool rounds:
// an assistant message with tool calls and their results each.
func wantCompletedRounds(t *testing.T, p *project, sid, when string) int {
	t.Helper()
	data, err := os.ReadFile(p.logPath(sid))
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	complete, _ := splitLines(data)
	prompts, rounds := map[string]string{}, map[string]int{} // by executionId
	var order []string
	for _, line := range complete {
		var e struct {
			Event string `json:"event"`
			Data  struct {
				ExecutionID string `json:"executionId"`
				Round       int    `json:"round"`
				Message     *struct {
					Role    string `json:"role"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"message"`
			} `json:"data"`
		}
		if json.Unmarshal(line, &e) != nil || e.Data.ExecutionID == "" {
			continue
		}
		x := e.Data.ExecutionID
		switch {
		case e.Event == "history_mutation" && e.Data.Message != nil && e.Data.Message.Role == "user" && prompts[x] == "":
			if len(e.Data.Message.Content) > 0 {
				prompts[x] = e.Data.Message.Content[0].Text
				order = append(order, x)
			}
		case e.Event == "provider_request":
			rounds[x] = max(rounds[x], e.Data.Round)
		}
	}
	rec := p.record(t, sid)
	total := 0
	for _, x := range order {
		done := rounds[x] - 1
		if rounds[x] == 0 {
			continue // killed before its first request: nothing is proven
		}
		u := slices.IndexFunc(rec.Messages, func(m storedMessage) bool { return m.Role == "user" && m.text() == prompts[x] })
		if u < 0 {
			t.Fatalf("%s: session %s: the prompt %q of a run that reached the model is not stored", when, sid, prompts[x])
		}
		for k := range done {
			a, r := u+1+2*k, u+2+2*k
			if r >= len(rec.Messages) || rec.Messages[a].Role != "assistant" || !hasToolCall(rec.Messages[a]) || rec.Messages[r].Role != "tool" {
				t.Fatalf("%s: session %s: the log proves %d completed tool rounds after %q, the journal holds %d",
					when, sid, done, prompts[x], k)
			}
		}
		total += done
	}
	return total
}

func hasToolCall(m storedMessage) bool {
	for _, c := range m.Content {
		if c.ToolCall != nil && c.ToolCall.ID != "" {
			return true
		}
	}
	return false
}

// killDelay draws when to kill a run that takes about full: half of the kills fall
// anywhere in the run, half in its last fifth or just after it, where the session is
// saved, SessionEnd fires and the log is closed.
func killDelay(rng *rand.Rand, full time.Duration) time.Duration {
	if rng.IntN(2) == 0 {
		return time.Duration(rng.Int64N(int64(full)))
	}
	return full*4/5 + time.Duration(rng.Int64N(int64(full*3/10)))
}

// runAndKill starts robota, sends SIGKILL after delay, and reaps it. exited reports that
// robota ended by itself before the kill.
func runAndKill(p *project, args []string, delay time.Duration) (exited bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, args...)
	cmd.Stdout, cmd.Stderr = nil, nil // /dev/null: nothing to copy after the kill
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return true, fmt.Errorf("robota ended by itself with %v before the kill", err)
		}
		return true, nil
	case <-timer.C:
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return false, err
	}
	err = <-done
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return false, nil
		}
	}
	if err == nil {
		return true, nil // it finished between the timer and the signal
	}
	return false, fmt.Errorf("robota: %v", err)
}

// checkSessions: every record file parses with its own id; a record that existed
// before is still there, either unchanged or replaced by a complete later save that kept
// every earlier message. It reports whether a record was written since the last check.
func checkSessions(t *testing.T, p *project, saved map[string][]byte, when string) (changed bool) {
	t.Helper()
	present := map[string]bool{}
	for _, sid := range p.sessionIDs(t) {
		present[sid] = true
		data, err := os.ReadFile(p.recordPath(sid))
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		rec, err := parseRecord(data, sid)
		if err != nil {
			t.Fatalf("%s: session file %s is not loadable: %v\n%.300s", when, p.recordPath(sid), err, data)
		}
		if len(rec.Messages) == 0 || rec.Messages[0].Role != "system" {
			t.Fatalf("%s: session file %s holds no conversation (%d messages)", when, p.recordPath(sid), len(rec.Messages))
		}
		prev, ok := saved[sid]
		if ok && !bytes.Equal(prev, data) {
			before, _ := parseRecord(prev, sid)
			wantPrefix(t, when+": record "+sid, before, rec)
		}
		changed = changed || !ok || !bytes.Equal(prev, data)
		saved[sid] = data
	}
	for sid := range saved {
		if !present[sid] {
			t.Fatalf("%s: the saved session file %s disappeared", when, p.recordPath(sid))
		}
	}
	return changed
}

// logCheck remembers how much of each log was verified: complete lines are never
// rewritten (a log is append-only; only a torn tail may be cut), so later rounds check
// that the verified prefix is unchanged and parse only what was added.
type logCheck map[string][]byte // log path → verified complete lines

// check: in every log, complete lines parse as entries of that session with sequences
// 1, 2, 3 …; only a trailing line without newline may be partial; payload references on
// complete lines name payload files with the right digest. It returns how many logs end
// with a partial line.
func (verified logCheck) check(t *testing.T, p *project, when string) (torn int) {
	t.Helper()
	entries, err := os.ReadDir(p.logsDir())
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	for _, e := range entries {
		sid, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok {
			continue
		}
		path := filepath.Join(p.logsDir(), e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		prev := verified[path]
		if !bytes.HasPrefix(data, prev) {
			t.Fatalf("%s: log %s no longer starts with the complete lines it held before", when, path)
		}
		seq := int64(bytes.Count(prev, []byte{'\n'}))
		complete, partial := splitLines(data[len(prev):])
		if len(partial) > 0 {
			torn++
		}
		for _, line := range complete {
			seq++
			var entry logEntry
			if err := json.Unmarshal(line, &entry); err != nil {
				t.Fatalf("%s: log %s line %d does not parse: %v\n%.300s", when, path, seq, err, line)
			}
			if entry.SessionID != sid || entry.Sequence != seq || entry.Event == "" {
				t.Fatalf("%s: log %s line %d: sessionId %q sequence %d event %q; want %s, %d and an event",
					when, path, seq, entry.SessionID, entry.Sequence, entry.Event, sid, seq)
			}
			if err := checkPayloadRefs(p, line); err != nil {
				t.Fatalf("%s: log %s line %d: %v", when, path, seq, err)
			}
		}
		verified[path] = data[:len(data)-len(partial)]
	}
	return torn
}

// checkPayloadRefs verifies every payload reference on a log line.
func checkPayloadRefs(p *project, line []byte) error {
	var tree any
	if err := json.Unmarshal(line, &tree); err != nil {
		return err
	}
	var walk func(v any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case map[string]any:
			if x["kind"] == "external-payload" {
				rel, _ := x["relativePath"].(string)
				data, err := os.ReadFile(filepath.Join(p.logsDir(), filepath.FromSlash(rel)))
				if err != nil {
					return fmt.Errorf("payload reference: %w", err)
				}
				sum := sha256.Sum256(data)
				if hex.EncodeToString(sum[:]) != x["sha256"] || float64(len(data)) != x["byteLength"] {
					return fmt.Errorf("payload %s does not match its reference (incomplete?)", rel)
				}
				return nil
			}
			for _, c := range x {
				if err := walk(c); err != nil {
					return err
				}
			}
		case []any:
			for _, c := range x {
				if err := walk(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(tree)
}

// sessionIDOf returns the session_id of stream-json output's system/init line.
func sessionIDOf(t *testing.T, stdout string) string {
	t.Helper()
	lines := jsonLines(t, stdout)
	if len(lines) == 0 || lines[0]["type"] != "system" || lines[0]["subtype"] != "init" {
		t.Fatalf("stream-json output does not start with system/init:\n%s", stdout)
	}
	id, _ := lines[0]["session_id"].(string)
	if id == "" {
		t.Fatalf("system/init has no session_id:\n%s", stdout)
	}
	return id
}

// bigReads counts the results of the large file's Read in a stored session.
func bigReads(rec storedRecord) int {
	n := 0
	for _, m := range rec.Messages {
		if m.Role == "tool" && strings.Contains(m.text(), "line 299") {
			n++
		}
	}
	return n
}

// newSessionID is the one id in after that is not in before ("" when the run stored
// no session).
func newSessionID(before, after []string) string {
	for _, id := range after {
		if !slices.Contains(before, id) {
			return id
		}
	}
	return ""
}
