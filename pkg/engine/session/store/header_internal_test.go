package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// header.equal and header.clone must know every field: a field they miss would let a
// changed header go unwritten. Each field is changed in turn, by reflection, so a field
// added later is covered without editing this test.
func TestHeaderEqualSeesEveryField(t *testing.T) {
	base := header{ID: "s", CreatedAt: time.Unix(1, 0).UTC(), ToolSchemas: []llm.ToolSchema{{Name: "T", InputSchema: json.RawMessage(`{}`)}}}
	v := reflect.ValueOf(&base).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		changed := base.clone()
		fv := reflect.ValueOf(&changed).Elem().Field(i)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(fv.String() + "x")
		case reflect.Slice:
			fv.Set(reflect.Append(fv, reflect.Zero(fv.Type().Elem())))
		case reflect.Map:
			m := reflect.MakeMap(fv.Type())
			m.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf(json.RawMessage(`1`)))
			fv.Set(m)
		case reflect.Struct:
			if f.Type != reflect.TypeOf(time.Time{}) {
				t.Fatalf("field %s: a struct this test does not know how to change", f.Name)
			}
			fv.Set(reflect.ValueOf(base.CreatedAt.Add(time.Second)))
		default:
			t.Fatalf("field %s: kind %s this test does not know how to change", f.Name, fv.Kind())
		}
		if base.equal(&changed) || changed.equal(&base) {
			t.Errorf("header.equal does not see a change of %s", f.Name)
		}
		if c := changed.clone(); !c.equal(&changed) {
			t.Errorf("header.clone loses %s", f.Name)
		}
	}
	if c := base.clone(); !c.equal(&base) {
		t.Error("a clone differs from its header")
	}
}
