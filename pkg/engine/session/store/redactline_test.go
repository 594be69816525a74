package store

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// fragments are pieces of text around redact's triggers: secret names in many spellings,
// key-shaped tokens, separators, quotes, escapes and look-alikes that are not secrets.
var fragments = []string{
	"apiKey", "api_key", "x-api-key", "API.KEY", "Api Key", "token", "TOKEN", "to-ken", "tok_en",
	"accessToken", "inputTokens", "tokens", "secret", "pass_word", "passwd", "PassPhrase",
	"private.key", "cookie", "Set-Cookie", "credentials", "Authorization", "authoriz",
	"\u212aey", "api\u212aey", "cook\u0130e", "sk-ant-api03-abcdefghijklmnop", "sk-proj-4f9Kd83LmQp0Zx7Vb2Nw6Ty1Hs5Rj",
	"sk-learn", "ghp_ABCDEFGHIJKLMNOPQRSTUV12", "github_pat_ABCDEFGHIJKLMNOPQRSTUVWX", "xoxb-1234567890ab",
	"AIzaSyA1234567890abcdefghijklmnopqrstu", "Bearer abcdefgh12345", "bearer", "BEARER xyz12345678",
	"=", ":", "\"", "\\", "\\\"", " ", "-", "_", ".", "\n", "\t", "{", "}", "[", "]", ",", "<", ">", "&",
	"value", "hunter2", "12345", "null", "true", "key", "monkey", "name", "the", "é", "日本",
	"Ä", "tökén", "\u017f", "Ω", "\u212b", "AP\u0130", "\ufffd", "\xff", "\xe2\x84", "\xc4",
	`{"password":"p4ss"}`, `{\"token\":\"abc\"}`, `KEY=abc`, `DB_PASSWORD=x1`, `?api_key=abc&x=1`,
}

func randomText(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(6) {
		b.WriteString(fragments[rng.IntN(len(fragments))])
	}
	return b.String()
}

func encodeNoEscape(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// TestMayHoldSecretCoversRedact: whenever the scan says a value cannot hold a secret,
// redact.JSON leaves it unchanged, so skipping the walk loses no redaction. Values are
// built from fragments around every trigger: as member names, as string values, as JSON
// embedded in strings, nested.
func TestMayHoldSecretCoversRedact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	skipped := 0
	for i := range 100000 {
		a, b, c := randomText(rng), randomText(rng), randomText(rng)
		var v any
		switch i % 5 {
		case 0:
			v = map[string]any{a: b}
		case 1:
			v = map[string]any{"content": []any{map[string]any{"text": a + b}}, c: 1}
		case 2:
			inner := string(encodeNoEscape(t, map[string]any{a: b}))
			v = map[string]any{"input": inner, "x": c}
		case 3:
			v = []any{a, map[string]any{b: map[string]any{c: a}}}
		default:
			v = map[string]any{"text": a + "=" + b + " \"" + c + "\": \"" + a + "\""}
		}
		line := encodeNoEscape(t, v)
		if mayHoldSecret(line) {
			continue
		}
		skipped++
		out, err := redact.JSON(line)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, line) {
			t.Fatalf("the scan skipped a value redact changes:\n in %s\nout %s", line, out)
		}
	}
	if skipped < 2000 {
		t.Errorf("only %d of 100000 values skipped the walk: the test exercises too little", skipped)
	}
	t.Logf("%d of 100000 values skipped the walk", skipped)
}

// TestMayHoldSecretSkipsOrdinaryContent: conversation content without secret names takes
// the fast path; usage counters (inputTokens) are not secret names.
func TestMayHoldSecretSkipsOrdinaryContent(t *testing.T) {
	for _, s := range []string{
		`{"id":"m1","role":"assistant","content":[{"type":"text","text":"if a < b && c > d { return x }"}],"usage":{"inputTokens":10,"outputTokens":5}}`,
		`{"id":"m2","role":"tool","content":[{"type":"tool_result","toolResult":{"toolCallId":"c1","toolName":"Read","content":"line 1\nline 2"}}]}`,
	} {
		if mayHoldSecret([]byte(s)) {
			t.Errorf("mayHoldSecret(%s) = true", s)
		}
	}
	for _, s := range []string{`{"apiKey":"x"}`, `{"t":"API_KEY=x"}`, `{"t":"sk-ant-x"}`, `{"t":"\u0041"}`, `{"t":"{\"Token\":\"x\"}"}`} {
		if !mayHoldSecret([]byte(s)) {
			t.Errorf("mayHoldSecret(%s) = false", s)
		}
	}
}

// TestLowersToASCIIIsComplete: the runes whose lower case is ASCII are exactly
// lowersToASCII, so text without them needs no lower-cased second pass.
func TestLowersToASCIIIsComplete(t *testing.T) {
	var got []string
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if lower := strings.ToLower(string(r)); strings.IndexFunc(lower, func(c rune) bool { return c < 0x80 }) >= 0 {
			got = append(got, string(r))
		}
	}
	if !slices.Equal(got, lowersToASCII) {
		t.Fatalf("runes lower-cased to ASCII: %q, lowersToASCII: %q", got, lowersToASCII)
	}
}

// TestByteTablesMatchTheirSources: the written-out byte tables are what secretKeyEnds,
// lowersToASCII and the token markers give.
func TestByteTablesMatchTheirSources(t *testing.T) {
	var trigger, last, endName [256]bool
	for _, c := range []byte("-_xIbB\\\"=") {
		trigger[c] = true
	}
	for _, r := range lowersToASCII {
		trigger[r[0]] = true
	}
	for _, w := range secretKeyEnds {
		last[w[len(w)-1]] = true
	}
	for c := range last {
		if last[c] {
			endName[c], endName[c-('a'-'A')] = true, true
		}
	}
	for _, c := range []byte("-_. ") {
		endName[c] = true
	}
	for _, tc := range []struct {
		name      string
		got, want *[256]bool
	}{
		{"scanTrigger", &scanTrigger, &trigger},
		{"secretLast", &secretLast, &last},
		{"mayEndName", &mayEndName, &endName},
	} {
		if *tc.got != *tc.want {
			t.Errorf("%s differs from what its sources give", tc.name)
		}
	}
}

// FuzzMayHoldSecret: for any text put in a JSON value (as a string, as a member name, as
// JSON embedded in a string), a value the scan lets through is one redact.JSON leaves
// unchanged.
func FuzzMayHoldSecret(f *testing.F) {
	for _, s := range fragments {
		f.Add(s, "x")
	}
	f.Add("AP\u0130_KEY", "v")
	f.Add("to\u212aen", "v")
	f.Add("tökén=1", "ÄPI_KEY")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, v := range []any{
			map[string]any{a: b},
			map[string]any{"text": a + "=" + b},
			map[string]any{"input": string(encodeNoEscape(t, map[string]any{a: b}))},
		} {
			line := encodeNoEscape(t, v)
			if mayHoldSecret(line) {
				continue
			}
			out, err := redact.JSON(line)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, line) {
				t.Fatalf("the scan skipped a value redact changes:\n in %s\nout %s", line, out)
			}
		}
	})
}
