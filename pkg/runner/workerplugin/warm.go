package workerplugin

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// warmMessages sets up, once per process, the protobuf coders of every message that
// RunnerService and HostService carry, and of the messages inside them. protobuf-go
// builds a message type's coder on its first marshal or unmarshal: ~0.15 ms each for
// StartRequest and StartResponse (with their events), which a pooled worker's first
// job would otherwise pay on its way to the started event. Prepare calls it.
func warmMessages() { warmOnce.Do(warm) }

var warmOnce sync.Once

func warm() {
	seen := map[protoreflect.FullName]bool{}
	var walk func(md protoreflect.MessageDescriptor)
	walk = func(md protoreflect.MessageDescriptor) {
		if seen[md.FullName()] {
			return
		}
		seen[md.FullName()] = true
		// Map entries have no Go type of their own; their parent's coder covers them.
		if mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName()); err == nil {
			m := mt.New().Interface()
			b, _ := proto.Marshal(m)
			_ = proto.Unmarshal(b, m)
		}
		fields := md.Fields()
		for i := range fields.Len() {
			if sub := fields.Get(i).Message(); sub != nil {
				walk(sub)
			}
		}
	}
	for _, svc := range []protoreflect.ServiceDescriptor{
		robotav1.File_robota_v1_runner_proto.Services().ByName("RunnerService"),
		robotav1.File_robota_v1_host_proto.Services().ByName("HostService"),
	} {
		methods := svc.Methods()
		for i := range methods.Len() {
			walk(methods.Get(i).Input())
			walk(methods.Get(i).Output())
		}
	}
}
