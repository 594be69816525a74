package sessionlog

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// stdTree is what decodeTree replaces: encoding/json with UseNumber.
func stdTree(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\n\r")) > 0 {
		return nil, errTreeSyntax // one document only, as decodeTree
	}
	return v, nil
}

func checkSameTree(t *testing.T, raw []byte) {
	t.Helper()
	want, wantErr := stdTree(raw)
	got, err := decodeTree(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, encoding/json's %v", raw, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got  %#v\n want %#v", raw, got, want)
	}
}

// decodeTree decodes every document as encoding/json with UseNumber does: hand-picked
// edge cases, every line of the golden logs, and random trees of awkward strings.
func TestDecodeTreeMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`null`, `true`, `false`, `0`, `-1.5e+10`, `1E3`, `""`, `"a"`, `[]`, `{}`, ` { "a" : [ 1 , 2 ] } `,
		`{"a":1,"a":2}`, `[[[]]]`, `{"k":{"k":{"k":null}}}`,
		`"\u00e9\u2028\u2029\ufffd\u0000\u001f"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\"\\\/\b\f\n\r\t"`,
		`"\u003cscript\u003e \u0026"`, "\"h\xc3\xa9llo\"", "\"bad \xff byte\"", "\"cut \xc3\"", `"\x"`, `"a\"`,
		`{"a":}`, `{"a" 1}`, `[1,]`, `[1 2]`, `{,}`, `01`, `1.`, `-`, `tru`, `nul`, `"a" "b"`, `{} x`, `[`, `{"a":1`,
		"\"tab\there\"", `"` + strings.Repeat("y", 1000) + `"`,
	} {
		checkSameTree(t, []byte(s))
	}
	golden, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, f := range golden {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				checkSameTree(t, line)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "é", "\u2028", "\x00", "\x1f", "\"", "\\", "/", "<", ">", "&", "\xff", "\xc3", "😀", " ", "\n", "\t", "\ud7ff", "\ue000"}
	var randValue func(depth int) any
	randValue = func(depth int) any {
		switch k := r.IntN(7); {
		case k == 0 && depth < 4:
			m := map[string]any{}
			for range r.IntN(4) {
				m[randString(r, pieces)] = randValue(depth + 1)
			}
			return m
		case k == 1 && depth < 4:
			a := []any{}
			for range r.IntN(4) {
				a = append(a, randValue(depth+1))
			}
			return a
		case k == 2:
			return r.NormFloat64() * 1e6
		case k == 3:
			return r.IntN(2) == 0
		case k == 4:
			return nil
		default:
			return randString(r, pieces)
		}
	}
	for range 3000 {
		raw, err := json.Marshal(randValue(0))
		if err != nil {
			t.Fatal(err)
		}
		checkSameTree(t, raw)
		// And as lines are written: without HTML escaping.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(randValue(0))
		checkSameTree(t, bytes.TrimSpace(buf.Bytes()))
	}
}

func randString(r *rand.Rand, pieces []string) string {
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func FuzzDecodeTree(f *testing.F) {
	for _, s := range []string{`{"a":[1,"\u00e9",null,true]}`, `"\ud83d\ude00"`, "\"\xff\"", `[1e5,-0.5]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkSameTree(t, raw)
	})
}
