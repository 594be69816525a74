package workerplugin

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// A job's command sandbox reaches the worker whole: its paths, excluded commands and
// network allow-list (without which the worker's commands would have the network open).
func TestSandboxSurvivesTheWire(t *testing.T) {
	for _, sb := range []*runnerapi.Sandbox{
		nil,
		{Hide: []string{"/p/secret"}, ReadOnly: []string{"/p/.git/hooks"}, ExcludedCommands: []string{"docker"}},
		{Hide: []string{"/p/secret"}, Network: &runnerapi.SandboxNetwork{Allow: []string{"github.com", "*.npmjs.org"},
			Deny: []string{"gist.github.com"}, HTTPProxyPort: 8888, SOCKSProxyPort: 1081}},
	} {
		job := runnerapi.Job{ID: "j1", Process: &runnerapi.ProcessJob{Command: "true"}, Sandbox: sb}
		req, err := jobToProto(job)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jobFromProto(req)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Sandbox, sb) {
			t.Errorf("sandbox %+v came back as %+v", sb, got.Sandbox)
		}
	}
}

// A call's command sandbox crosses with the execute step whole, through the encoded
// message; an execute step without one (an older engine) comes back as none, so the
// worker keeps the job's.
func TestCallSandboxSurvivesTheExecuteStep(t *testing.T) {
	for _, sb := range []*runnerapi.Sandbox{
		nil,
		{Hide: []string{"/p/secret.txt"}, ReadOnly: []string{"/p/.git/hooks", "/home/u/.bashrc"}, ExcludedCommands: []string{"docker *"}},
		{Hide: []string{"/p/secret"}, Network: &runnerapi.SandboxNetwork{Allow: []string{"github.com"}, HTTPProxyPort: 8888}},
	} {
		step := &robotav1.RunToolResponse{Step: &robotav1.RunToolResponse_ExecuteInputJson{ExecuteInputJson: []byte(`{"command":"ls"}`)},
			ExecuteSandbox: sandboxToProto(sb)}
		b, err := proto.Marshal(step)
		if err != nil {
			t.Fatal(err)
		}
		var got robotav1.RunToolResponse
		if err := proto.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if back := sandboxFromProto(got.GetExecuteSandbox()); !reflect.DeepEqual(back, sb) {
			t.Errorf("call sandbox %+v came back as %+v", sb, back)
		}
		if string(got.GetExecuteInputJson()) != `{"command":"ls"}` {
			t.Errorf("the input came back as %q", got.GetExecuteInputJson())
		}
	}
}
