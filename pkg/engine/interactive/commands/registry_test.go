package commands

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func run(msg string) Handler {
	return func(_ context.Context, args string) Result { return Result{Message: msg + "|" + args, Success: true} }
}

func testRegistry() *Registry {
	return NewRegistry(
		Static{SourceName: "builtin", List: []Command{{Name: "help", UserInvocable: true, Run: run("b-help")}, {Name: "clear", UserInvocable: true, Run: run("b-clear")},
			{Name: "memory", UserInvocable: true, ModelInvocable: true, Run: run("b-memory")}}},
		Static{SourceName: "plugin", List: []Command{{Name: "help", Plugin: "p", UserInvocable: true, Run: run("p-help")}, {Name: "deploy", Plugin: "p", UserInvocable: true, ModelInvocable: true, Run: run("p-deploy")},
			{Name: "hidden", Plugin: "p", ModelInvocable: true, Run: run("p-hidden")}}},
	)
}

func names(cs []Command) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.QualifiedName())
	}
	return out
}

func TestList(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"clear", "help", "memory", "p:deploy", "p:help"}}, // p:hidden is the model's only
		{"/he", []string{"help", "p:help"}},
		{"p:", []string{"p:deploy", "p:help"}},
		{"dep", []string{"p:deploy"}},
		{"zz", nil},
	} {
		if got := names(r.List(tc.prefix)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("List(%q) = %v, want %v", tc.prefix, got, tc.want)
		}
	}
}

func TestExecute(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct{ name, args, want string }{
		{"help", "", "b-help|"},        // builtin wins the bare name
		{"/p:help", " x ", "p-help|x"}, // qualified reaches the plugin's
		{"deploy", "prod", "p-deploy|prod"},
	} {
		res, err := r.Execute(context.Background(), tc.name, tc.args)
		if err != nil || res.Message != tc.want || !res.Success {
			t.Errorf("Execute(%q) = %+v, %v; want %q", tc.name, res, err, tc.want)
		}
	}
	if _, err := r.Execute(context.Background(), "nope", ""); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("unknown: err = %v", err)
	}
	if _, err := r.Execute(context.Background(), "hidden", ""); !errors.Is(err, ErrUnknownCommand) || !strings.Contains(err.Error(), "only the model") {
		t.Errorf("a command hidden from the user: err = %v", err)
	}
	if got := names(r.ModelCommands()); !reflect.DeepEqual(got, []string{"memory", "p:deploy", "p:hidden"}) {
		t.Errorf("ModelCommands = %v", got)
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in, name, args string
		ok             bool
	}{
		{"/compact keep the tests", "compact", "keep the tests", true},
		{"  /help  ", "help", "", true},
		{"/", "", "", false},
		{"//x", "", "", false},
		{"hello", "", "", false},
	} {
		n, a, ok := Split(tc.in)
		if n != tc.name || a != tc.args || ok != tc.ok {
			t.Errorf("Split(%q) = %q %q %v", tc.in, n, a, ok)
		}
	}
}
