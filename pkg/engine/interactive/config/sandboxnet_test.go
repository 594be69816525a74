package config

import (
	"reflect"
	"strings"
	"testing"
)

// sandbox.network: the lists merge across files (as Claude Code merges them from every
// source), the key's presence turns the restriction on, and the keys robota does not act
// on are warnings naming the file and the key.
func TestSandboxNetwork(t *testing.T) {
	for _, tc := range []struct {
		name     string
		files    map[string]string
		want     SandboxNetwork
		warnings []string
	}{
		{name: "absent", files: map[string]string{".claude/settings.json": `{"sandbox":{"enabled":true}}`}},
		{name: "empty allow-list restricts",
			files: map[string]string{".claude/settings.json": `{"sandbox":{"network":{"allowedDomains":[]}}}`},
			want:  SandboxNetwork{Restricted: true}},
		{name: "merged across files",
			files: map[string]string{
				"~/.claude/settings.json":     `{"sandbox":{"network":{"allowedDomains":["github.com","*.npmjs.org"],"deniedDomains":["evil.com"]}}}`,
				".claude/settings.json":       `{"sandbox":{"network":{"allowedDomains":["proxy.golang.org","github.com"]}}}`,
				".claude/settings.local.json": `{"sandbox":{"network":{"deniedDomains":["gist.github.com"],"allowLocalBinding":true}}}`,
			},
			want: SandboxNetwork{Restricted: true, Allowed: []string{"github.com", "*.npmjs.org", "proxy.golang.org"},
				Denied: []string{"evil.com", "gist.github.com"}}},
		{name: "proxy ports restrict",
			files: map[string]string{".claude/settings.json": `{"sandbox":{"network":{"httpProxyPort":8888,"socksProxyPort":1081}}}`},
			want:  SandboxNetwork{Restricted: true, HTTPProxyPort: 8888, SOCKSProxyPort: 1081}},
		{name: "no-effect keys warn",
			files: map[string]string{".claude/settings.json": `{"sandbox":{"network":{"allowedDomains":["a.com"],"allowUnixSockets":["/x"],"allowManagedDomainsOnly":true,"allowAllUnixSockets":true}}}`},
			want:  SandboxNetwork{Restricted: true, Allowed: []string{"a.com"}},
			warnings: []string{
				"warning .claude/settings.json: sandbox.network.allowManagedDomainsOnly: accepted, has no effect in robota: " + NoEffectPaths()["sandbox.network.allowManagedDomainsOnly"],
				"warning .claude/settings.json: sandbox.network.allowUnixSockets: accepted, has no effect in robota: " + NoEffectPaths()["sandbox.network.allowUnixSockets"],
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for path, body := range tc.files {
				f.write(t, path, body)
			}
			s := f.load(t)
			if got := s.SandboxNetwork(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SandboxNetwork() = %+v, want %+v", got, tc.want)
			}
			if got := issueStrings(s.Warnings); !reflect.DeepEqual(got, tc.warnings) && !(len(got) == 0 && len(tc.warnings) == 0) {
				t.Errorf("warnings:\n got %q\nwant %q", got, tc.warnings)
			}
		})
	}
}

// A port out of range is a settings error naming the key.
func TestSandboxNetworkBadPort(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".claude/settings.json", `{"sandbox":{"network":{"httpProxyPort":70000}}}`)
	ve := f.loadErr(t)
	if got := strings.Join(issueStrings(ve.Issues), "\n"); !strings.Contains(got, "sandbox.network.httpProxyPort") {
		t.Errorf("issues = %s", got)
	}
}

// Every no-effect path is one the schema accepts.
func TestNoEffectPathsAreInTheSchema(t *testing.T) {
	for path := range NoEffectPaths() {
		n := settingsSchema.Get()
		for _, seg := range strings.Split(path, ".") {
			if n = n.fields[seg]; n == nil {
				t.Errorf("NoEffectPaths names %q, which the schema does not accept", path)
				break
			}
		}
	}
}
