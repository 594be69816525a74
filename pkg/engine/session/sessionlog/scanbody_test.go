package sessionlog

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// checkScanBody fails when scanBody, on body alone and after prev, disagrees with
// encoding/json (the oracle): it takes a body that is a JSON object with a conversation
// array ("messages" or "input"), and then its members (names and values) and the
// array's elements are the ones encoding/json decodes; anything else it refuses.
func checkScanBody(t *testing.T, body []byte, prev *nativeMark) {
	t.Helper()
	mark, _ := scanBody(body, prev)
	var members map[string]json.RawMessage
	err := json.Unmarshal(body, &members)
	var elems []json.RawMessage
	conv := ""
	if err == nil {
		for _, k := range memberNames(body) { // the first conversation array in the body
			if v := bytes.TrimSpace(members[k]); slices.Contains(nativeArrays, k) && len(v) > 0 && v[0] == '[' {
				conv = k
				break
			}
		}
		if conv != "" {
			err = json.Unmarshal(members[conv], &elems)
		}
	}
	if mark == nil {
		// Refused: only what encoding/json does not take as such a body, or a repeated
		// member name (decoded as one by encoding/json).
		if err == nil && conv != "" && !repeatsName(t, body) {
			t.Fatalf("scanBody refused %q", body)
		}
		return
	}
	if err != nil || conv == "" {
		t.Fatalf("scanBody took %q, encoding/json: %v, conversation %q", body, err, conv)
	}
	if repeatsName(t, body) {
		return // encoding/json keeps the last of a repeated member, scanBody each
	}
	if mark.keys[mark.conv] != conv {
		t.Fatalf("scanBody(%q): conversation %q, want %q", body, mark.keys[mark.conv], conv)
	}
	if len(mark.keys) != len(members) {
		t.Fatalf("scanBody(%q): members %q, encoding/json %d", body, mark.keys, len(members))
	}
	for i, k := range mark.keys {
		got := body[mark.members[i].start:mark.members[i].end]
		if i != mark.conv && !sameText(got, members[k]) {
			t.Fatalf("scanBody(%q): member %q = %s, encoding/json %s", body, k, got, members[k])
		}
	}
	if len(mark.elems) != len(elems) {
		t.Fatalf("scanBody(%q): %d elements, encoding/json %d", body, len(mark.elems), len(elems))
	}
	for i, e := range mark.elems {
		if got := body[e.start:e.end]; !sameText(got, elems[i]) {
			t.Fatalf("scanBody(%q): element %d = %s, encoding/json %s", body, i, got, elems[i])
		}
	}
}

func sameText(a, b []byte) bool { return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) }

// memberNames is the names of body's top-level object members, in order (by
// encoding/json's tokenizer).
func memberNames(body []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return names
		}
		k, _ := tok.(string)
		names = append(names, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names
		}
	}
	return names
}

// repeatsName reports whether body's top-level object names a member twice.
func repeatsName(t *testing.T, body []byte) bool {
	names := memberNames(body)
	slices.Sort(names)
	return len(slices.Compact(names)) != len(memberNames(body))
}

var scanBodySamples = []string{
	`{"model":"m","messages":[]}`,
	`{"model":"m","messages":[{"role":"user","content":"a ] } \" ["},{"n":[1,2,{"x":"]"}]},3,-1.5e3,true,null,"s"]}`,
	` { "system" : "s" , "messages" : [ 1 , 2 ] , "tools" : [ { } ] } `,
	`{"m\u0065ssages":[1],"input":[2]}`,
	`{"input":[{"type":"message"}],"max_tokens":12}`,
	`{"messages":"not an array","input":[1]}`,
	`{"model":"m"}`, `[1,2]`, `{"messages":[1,]}`, `{"messages":[1 2]}`, `{"messages":[01]}`,
	`{"messages":[1]}x`, `{"messages":[1],}`, `{"a":tru,"messages":[]}`, `{"messages":["\x"]}`,
	`{"messages":[1],"messages":[2]}`,
}

func TestScanBodyMatchesEncodingJSON(t *testing.T) {
	for _, s := range scanBodySamples {
		checkScanBody(t, []byte(s), nil)
	}
	// A body that extends the one before it is scanned from the shared elements on.
	prev, _ := scanBody([]byte(`{"model":"m","messages":[{"a":1},{"b":"x"}],"tools":[]}`), nil)
	if prev == nil {
		t.Fatal("scanBody refused the base body")
	}
	for _, s := range []string{
		`{"model":"m","messages":[{"a":1},{"b":"x"},{"c":[3]}],"tools":[]}`,
		`{"model":"m","messages":[{"a":1},{"b":"x"} , "y" ],"tools":[],"z":0}`,
		`{"model":"m","messages":[{"a":1},{"b":"x"},],"tools":[]}`,
		`{"model":"m","messages":[{"a":1},{"b":"x"}]}`,
	} {
		checkScanBody(t, []byte(s), prev)
	}
}

// FuzzScanBody compares scanBody with encoding/json on any text, alone and after a base
// body it may share elements with.
func FuzzScanBody(f *testing.F) {
	for _, s := range scanBodySamples {
		f.Add([]byte(s))
	}
	base := []byte(`{"model":"m","messages":[{"a":1},{"b":"x"}],"tools":[]}`)
	prev, _ := scanBody(base, nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkScanBody(t, body, nil)
		checkScanBody(t, body, prev)
	})
}
