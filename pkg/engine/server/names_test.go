package server

import (
	"testing"

	"google.golang.org/grpc/codes"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// A session renamed with /rename shows its name in ListSessions and GetSession, live and
// after a restart, and CreateSession resumes it by that name.
func TestSessionNamesOverGRPC(t *testing.T) {
	state := t.TempDir()
	dir := project(t, helloScript)
	first := startEngine(t, state, nil)
	ctx := testCtx(t)
	id := first.create(dir, nil).GetSessionId()
	if res, err := first.client.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: id, Name: "rename", Args: "api work"}); err != nil || !res.GetSuccess() {
		t.Fatalf("rename %v, %v", res, err)
	}
	list, err := first.client.ListSessions(ctx, &robotav1.ListSessionsRequest{Cwd: dir})
	if err != nil || len(list.GetSessions()) != 1 || list.GetSessions()[0].GetName() != "api work" {
		t.Fatalf("live ListSessions %v, %v", list, err)
	}
	first.mgr.Shutdown(ctx)

	e := startEngine(t, state, nil)
	list, err = e.client.ListSessions(ctx, &robotav1.ListSessionsRequest{Cwd: dir})
	if err != nil || len(list.GetSessions()) != 1 || list.GetSessions()[0].GetName() != "api work" || list.GetSessions()[0].GetLive() {
		t.Fatalf("stored ListSessions %v, %v", list, err)
	}
	resumed := e.create(dir, func(r *robotav1.CreateSessionRequest) { r.ResumeSessionId = "api work" })
	if resumed.GetSessionId() != id || resumed.GetName() != "api work" || !resumed.GetLive() {
		t.Fatalf("resumed by name %+v", resumed)
	}
	_, err = e.client.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: dir, ResumeSessionId: "no such name"})
	wantCode(t, "resume of an unknown name", err, codes.NotFound, "no such name")
}
