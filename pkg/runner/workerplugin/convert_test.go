package workerplugin

import (
	"reflect"
	"testing"

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
