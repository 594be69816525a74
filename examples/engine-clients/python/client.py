#!/usr/bin/python3
"""Drive a robota-engine session from Python over gRPC.

    /usr/bin/python3 client.py SOCKET PROJECT_DIR

SOCKET is the engine's unix socket, PROJECT_DIR an absolute directory the session
works in. The script provider stands in for the model, so this runs offline: its
script asks to Write PROJECT_DIR/hello.txt.

What it shows: CreateSession, Submit (a stream of event batches until the prompt ends), a
permission_request answered with RespondPermission(ALLOW), and a second client on its
own connection that joins with Watch(after_sequence) and sees the same events.

The stubs are generated at run time from proto/robota/v1/*.proto with
grpc_tools.protoc into a temporary directory, so there is no generated code to keep
in sync. Needs grpcio and grpcio-tools; on Debian: apt-get install python3-grpcio
python3-grpc-tools (run with /usr/bin/python3 when another python3 is first on PATH).
Exit status 0 when the prompt completed with the tool approved and run, 1 otherwise.
"""

import importlib
import json
import os
import sys
import tempfile
import threading

import grpc
import grpc_tools
from grpc_tools import protoc

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.environ.get("ROBOTA_PROTO_DIR") or os.path.normpath(os.path.join(HERE, "../../../proto"))
CONTENT = "hello from Python"
TIMEOUT = 30  # seconds for each RPC and stream
EVENTS = None  # the robota.v1.events_pb2 module, once generated


def load_stubs(out_dir):
    """Generate the robota.v1 modules into out_dir and import them."""
    wkt = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")  # google/protobuf/*.proto
    files = [os.path.join(PROTO_DIR, "robota/v1", f) for f in ("types.proto", "events.proto", "engine.proto")]
    args = ["protoc", "-I" + PROTO_DIR, "-I" + wkt, "--python_out=" + out_dir, "--grpc_python_out=" + out_dir] + files
    if protoc.main(args) != 0:
        raise RuntimeError("grpc_tools.protoc failed on " + PROTO_DIR)
    for d in ("robota", "robota/v1"):  # old protoc versions do not write packages' __init__.py
        open(os.path.join(out_dir, d, "__init__.py"), "a").close()
    sys.path.insert(0, out_dir)
    global EVENTS
    EVENTS = importlib.import_module("robota.v1.events_pb2")
    return importlib.import_module("robota.v1.engine_pb2"), importlib.import_module("robota.v1.engine_pb2_grpc")


def describe(ev):
    """One detail string for an event, by the oneof member it carries."""
    kind = ev.WhichOneof("event")
    body = getattr(ev, kind) if kind else None
    if kind == "text_delta":
        return json.dumps(body.text)
    if kind == "tool_start":
        return "%s %s" % (body.tool.tool_name, body.tool.first_arg)
    if kind == "tool_end":
        return "%s %s %s" % (body.tool.tool_name, body.tool.first_arg, outcome_name(body.tool.outcome))
    if kind == "permission_request":
        return "%s request=%s reason=%s" % (body.tool_name, body.request_id, json.dumps(body.reason))
    if kind == "permission_resolved":
        return "request=%s %s %s" % (body.request_id, EVENTS.PermissionOutcome.Name(body.outcome),
                                     EVENTS.PermissionAnswer.Name(body.answer))
    if kind == "complete":
        return json.dumps(body.result.response)
    if kind == "error":
        return "%s %s" % (body.code, body.message)
    return ""


def outcome_name(value):
    return EVENTS.ToolOutcome.Name(value)


PRINT_LOCK = threading.Lock()  # the two clients print from two threads: whole lines only


def say(line):
    with PRINT_LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def show(who, ev):
    say(("%-7s #%d %s %s" % (who, ev.sequence, ev.WhichOneof("event"), describe(ev))).rstrip())


def events_of(resp):
    """A Submit or a Watch message alike: the events that were ready together, in order."""
    return resp.events


class Watcher(threading.Thread):
    """The second client: its own channel, Watch from after_sequence until the prompt ends."""

    def __init__(self, pb, pb_grpc, address, session_id, after_sequence):
        super().__init__(daemon=True)
        self.channel = grpc.insecure_channel(address, options=[("grpc.primary_user_agent", "robota-example-watcher")])
        self.stub = pb_grpc.EngineServiceStub(self.channel)
        self.request = pb.WatchRequest(session_id=session_id, after_sequence=after_sequence, batched=True)
        self.saw_request = threading.Event()
        self.error = None

    def run(self):
        try:
            for ev in (ev for resp in self.stub.Watch(self.request, timeout=TIMEOUT) for ev in events_of(resp)):
                show("watch", ev)
                kind = ev.WhichOneof("event")
                if kind == "permission_request":
                    self.saw_request.set()
                if kind in ("complete", "error", "interrupted"):
                    break
        except grpc.RpcError as err:  # a deadline or a lost engine
            self.error = err
        finally:
            self.saw_request.set()
            self.channel.close()


def main():
    if len(sys.argv) != 3 or not os.path.isabs(sys.argv[2]):
        sys.exit("usage: client.py SOCKET PROJECT_DIR")
    socket, project = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="robota-stubs-") as stubs:
        pb, pb_grpc = load_stubs(stubs)
        return run(pb, pb_grpc, "unix://" + socket, project)


def run(pb, pb_grpc, address, project):
    # The scripted "model": ask to Write hello.txt, then say it is done.
    target = os.path.join(project, "hello.txt")
    script = os.path.join(project, "python-client.script.yaml")
    with open(script, "w") as f:
        f.write('turns:\n'
                '  - when: {lastUserContains: "write"}\n'
                '    toolCalls: [{id: w1, name: Write, input: {file_path: %s, content: %s}}]\n'
                '  - when: {lastUserContains: "write"}\n'
                '    text: "Written."\n' % (json.dumps(target), json.dumps(CONTENT)))

    channel = grpc.insecure_channel(address)
    stub = pb_grpc.EngineServiceStub(channel)
    created = stub.CreateSession(pb.CreateSessionRequest(cwd=project, provider="script", script=script), timeout=TIMEOUT)
    sid = created.session.session_id
    say("client  CreateSession -> %s in %s (provider %s)" % (sid, project, created.session.provider))

    approved, tool_end, completed, watcher = False, "", False, None
    # The first message carries the acceptance; each message carries the events that
    # were ready together, in order.
    for resp in stub.Submit(pb.SubmitRequest(session_id=sid, prompt="write hello.txt"), timeout=TIMEOUT):
        if resp.HasField("accepted"):
            say("submit  accepted prompt %s (queued: %s)" % (resp.accepted.prompt_id, str(resp.accepted.queued).lower()))
        for ev in events_of(resp):
            show("submit", ev)
            kind = ev.WhichOneof("event")
            if kind == "tool_end":
                tool_end = outcome_name(ev.tool_end.tool.outcome)
            elif kind == "complete":
                completed = True
            elif kind == "permission_request":
                # The session waits for an answer. Let the second client join first, replaying
                # from just before the request, so it sees the question and everything after.
                watcher = Watcher(pb, pb_grpc, address, sid, ev.sequence - 1)
                watcher.start()
                watcher.saw_request.wait(TIMEOUT)
                req = ev.permission_request
                stub.RespondPermission(pb.RespondPermissionRequest(
                    session_id=sid, request_id=req.request_id, answer=EVENTS.PERMISSION_ANSWER_ALLOW), timeout=TIMEOUT)
                approved = True
                say("client  RespondPermission(%s, ALLOW) -> ok" % req.request_id)
    if watcher:
        watcher.join(TIMEOUT)
        if watcher.error is not None:
            say("client  watcher: %s" % watcher.error)
    channel.close()

    on_disk = open(target).read() if os.path.exists(target) else "(missing)"
    say("client  %s on disk: %s" % (target, json.dumps(on_disk)))
    ok = approved and tool_end == "TOOL_OUTCOME_SUCCESS" and completed and on_disk == CONTENT
    say("client  %s: approved=%s tool_end=%s complete=%s" % (
        "OK" if ok else "FAILED", str(approved).lower(), tool_end or "none", str(completed).lower()))
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except grpc.RpcError as err:
        print("client  error: %s: %s" % (err.code().name, err.details()), file=sys.stderr)
        sys.exit(1)
