package sessionlog

import (
	"bytes"
	"encoding/json"
	"testing"
)

// arrayElements and objectMembers find the same values encoding/json does, and refuse
// what they do not follow.
func TestJSONScan(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{`[]`, true},
		{` [ 1 , "a\"]b" , {"k":[1,{"x":"}"}]}, null, true, -1.5e3 ] `, true},
		{`[{"t":"back\\\\"},"\\"]`, true},
		{`[1,`, false},
		{`[1 2]`, false},
		{`{"a":1}`, false},
		{`["unterminated]`, false},
	} {
		got, ok := arrayElements([]byte(tt.in))
		if ok != tt.ok {
			t.Errorf("arrayElements(%s) ok = %v", tt.in, ok)
			continue
		}
		if !ok {
			continue
		}
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("arrayElements(%s) = %d elements, want %d", tt.in, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("element %d of %s = %s, want %s", i, tt.in, got[i], want[i])
			}
		}
	}
	members, ok := objectMembers([]byte(` {"a\"b" : [1,2], "c":{"d":"e"} ,"f":null}`))
	if !ok || len(members) != 3 || members[0].key != `a"b` || string(members[0].value) != `[1,2]` ||
		string(members[1].value) != `{"d":"e"}` || string(members[2].value) != `null` {
		t.Errorf("objectMembers = %+v, %v", members, ok)
	}
	for _, bad := range []string{`[]`, `{"a" 1}`, `{"a":1,}`, `{"a":1} x`, `{a:1}`} {
		if _, ok := objectMembers([]byte(bad)); ok {
			t.Errorf("objectMembers(%s) accepted", bad)
		}
	}
}

// On any valid array, arrayElements agrees with encoding/json.
func FuzzArrayElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"a",{"b":[true,null]}]`, `["\"",  "\\" ]`, `[{"x":"]"}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []json.RawMessage
		if json.Unmarshal([]byte(s), &want) != nil || want == nil {
			return
		}
		got, ok := arrayElements([]byte(s))
		if !ok || len(got) != len(want) {
			t.Fatalf("arrayElements(%q) = %d elements (ok %v), want %d", s, len(got), ok, len(want))
		}
		for i := range want {
			var a, b any
			if json.Unmarshal(got[i], &a) != nil || json.Unmarshal(want[i], &b) != nil {
				t.Fatalf("element %d of %q: %q vs %q", i, s, got[i], want[i])
			}
		}
	})
}
