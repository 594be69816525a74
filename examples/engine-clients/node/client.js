#!/usr/bin/env node
// Drive a robota-engine session from Node.js over gRPC.
//
//   node client.js SOCKET PROJECT_DIR
//
// SOCKET is the engine's unix socket (robota-engine --socket ...), PROJECT_DIR an
// absolute directory the session works in. The script provider stands in for the
// model, so this runs offline: its script asks to Write PROJECT_DIR/hello.txt.
//
// What it shows: CreateSession, Submit (a stream of event batches until the prompt ends),
// a permission_request answered with RespondPermission(ALLOW), and a second client
// on its own connection that joins with Watch(after_sequence) and sees the same
// events. The stubs come from proto/robota/v1/*.proto at run time (no generated
// code to keep in sync). Exit status 0 when the prompt completed with the tool
// approved and run, 1 otherwise.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_DIR = process.env.ROBOTA_PROTO_DIR || path.resolve(__dirname, '../../../proto');
const CONTENT = 'hello from Node.js';

function usage() {
  console.error('usage: node client.js SOCKET PROJECT_DIR');
  process.exit(2);
}

function loadService() {
  const def = protoLoader.loadSync(
    ['engine.proto', 'events.proto', 'types.proto'].map((f) => path.join(PROTO_DIR, 'robota/v1', f)),
    // keepCase: the fields keep their proto names (session_id), as in every other language.
    // oneofs: each message names its set oneof member (event.event === 'tool_end').
    { includeDirs: [PROTO_DIR], keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true },
  );
  return grpc.loadPackageDefinition(def).robota.v1.EngineService;
}

// One line per event: who saw it, its sequence number, its kind and a detail.
function describe(ev) {
  const body = ev[ev.event] || {};
  switch (ev.event) {
    case 'text_delta':
      return JSON.stringify(body.text);
    case 'tool_start':
    case 'tool_end':
      return `${body.tool.tool_name} ${body.tool.first_arg}${ev.event === 'tool_end' ? ` ${body.tool.outcome}` : ''}`;
    case 'permission_request':
      return `${body.tool_name} request=${body.request_id} reason=${JSON.stringify(body.reason)}`;
    case 'permission_resolved':
      return `request=${body.request_id} ${body.outcome} ${body.answer}`;
    case 'complete':
      return JSON.stringify(body.result ? body.result.response : '');
    case 'error':
      return `${body.code} ${body.message}`;
    default:
      return '';
  }
}

function show(who, ev) {
  console.log(`${who.padEnd(7)} #${ev.sequence} ${ev.event} ${describe(ev)}`.trimEnd());
}

// eventsOf reads a Submit or a Watch message alike: the events that were ready
// together, in sequence order (engine.proto, SubmitResponse).
function eventsOf(resp) {
  return resp.events || [];
}

function unary(client, method, req) {
  return new Promise((resolve, reject) => {
    client[method](req, { deadline: Date.now() + 10_000 }, (err, resp) => (err ? reject(err) : resolve(resp)));
  });
}

// watch is the second client: its own connection, joining the session's event stream
// after afterSequence (the buffer replays what it missed), until the prompt ends.
function watch(Service, address, sessionId, afterSequence, onEvent) {
  // A distinct channel option gives the watcher its own connection, not a shared one.
  const client = new Service(address, grpc.credentials.createInsecure(), { 'grpc.primary_user_agent': 'robota-example-watcher' });
  const call = client.Watch({ session_id: sessionId, after_sequence: afterSequence, batched: true });
  const done = new Promise((resolve, reject) => {
    call.on('data', (resp) => {
      for (const ev of eventsOf(resp)) {
        show('watch', ev);
        onEvent(ev);
        if (ev.event === 'complete' || ev.event === 'error' || ev.event === 'interrupted') {
          call.cancel();
          resolve();
          return;
        }
      }
    });
    call.on('error', (err) => (err.code === grpc.status.CANCELLED ? resolve() : reject(err)));
    call.on('end', resolve);
  });
  return done.finally(() => client.close());
}

async function main() {
  const [socket, project] = process.argv.slice(2);
  if (!socket || !project || !path.isAbsolute(project)) usage();
  const Service = loadService();
  const address = `unix://${path.resolve(socket)}`;
  const client = new Service(address, grpc.credentials.createInsecure());

  // The scripted "model": ask to Write hello.txt, then say it is done.
  const target = path.join(project, 'hello.txt');
  const script = path.join(project, 'node-client.script.yaml');
  fs.writeFileSync(script, `turns:
  - when: {lastUserContains: "write"}
    toolCalls: [{id: w1, name: Write, input: {file_path: ${JSON.stringify(target)}, content: ${JSON.stringify(CONTENT)}}}]
  - when: {lastUserContains: "write"}
    text: "Written."
`);

  const created = await unary(client, 'CreateSession', { cwd: project, provider: 'script', script });
  const id = created.session.session_id;
  console.log(`client  CreateSession -> ${id} in ${project} (provider ${created.session.provider})`);

  let approved = false;
  let toolEnd = '';
  let completed = false;
  let watcher = Promise.resolve();
  let watcherSaw = () => {};
  const stream = client.Submit({ session_id: id, prompt: 'write hello.txt' });
  await new Promise((resolve, reject) => {
    // The first message carries the acceptance; each message carries the events
    // that were ready together, in order.
    stream.on('data', async (resp) => {
      if (resp.accepted) {
        console.log(`submit  accepted prompt ${resp.accepted.prompt_id} (queued: ${resp.accepted.queued})`);
      }
      for (const ev of eventsOf(resp)) {
        show('submit', ev);
        if (ev.event === 'tool_end') toolEnd = ev.tool_end.tool.outcome;
        if (ev.event === 'complete') completed = true;
        if (ev.event !== 'permission_request') continue;
        // The session waits for an answer. Let the second client join first, replaying
        // from just before the request, so it sees the question and everything after.
        const req = ev.permission_request;
        const joined = new Promise((r) => { watcherSaw = (w) => { if (w.event === 'permission_request') r(); }; });
        watcher = watch(Service, address, id, ev.sequence - 1, (w) => watcherSaw(w));
        watcher.catch(reject);
        await joined;
        try {
          await unary(client, 'RespondPermission', { session_id: id, request_id: req.request_id, answer: 'PERMISSION_ANSWER_ALLOW' });
          approved = true;
          console.log(`client  RespondPermission(${req.request_id}, ALLOW) -> ok`);
        } catch (err) {
          reject(err);
        }
      }
    });
    stream.on('error', reject);
    stream.on('end', resolve);
  });
  await watcher;
  client.close();

  const onDisk = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '(missing)';
  console.log(`client  ${target} on disk: ${JSON.stringify(onDisk)}`);
  const ok = approved && toolEnd === 'TOOL_OUTCOME_SUCCESS' && completed && onDisk === CONTENT;
  console.log(`client  ${ok ? 'OK' : 'FAILED'}: approved=${approved} tool_end=${toolEnd || 'none'} complete=${completed}`);
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error(`client  error: ${err.message}`);
  process.exit(1);
});
