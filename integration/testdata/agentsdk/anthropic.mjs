// Drives bin/robota through the TypeScript Agent SDK (pathToClaudeCodeExecutable) with
// robota's real Anthropic provider, pointed (ANTHROPIC_BASE_URL in the environment) at the
// test's fake Messages API server. Usage: node anthropic.mjs ROBOTA PROJECT_DIR
// Prints "ok NAME" or "FAIL NAME: why" for each scenario; exits 1 when one failed.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [robota, dir] = process.argv.slice(2);
const base = { pathToClaudeCodeExecutable: robota, cwd: dir, extraArgs: { provider: 'anthropic' },
  stderr: (s) => process.stderr.write(s) };

async function collect(q, onMessage) {
  const out = [];
  for await (const m of q) {
    out.push(m);
    if (onMessage) await onMessage(m);
  }
  return out;
}
const results = (ms) => ms.filter((m) => m.type === 'result');

// A prompt stream that yields the given texts, then stays open until close().
function promptStream(texts) {
  let release;
  const closed = new Promise((r) => { release = r; });
  async function* gen() {
    for (const t of texts) yield { type: 'user', message: { role: 'user', content: t }, parent_tool_use_id: null, session_id: '' };
    await closed;
  }
  return { iterable: gen(), close: () => release() };
}

const scenarios = {
  async plain() {
    const ms = await collect(query({ prompt: 'a plain question', options: base }));
    const r = results(ms);
    if (r.length !== 1 || r[0].result !== 'plain answer' || r[0].is_error) throw new Error(JSON.stringify(r));
    if (!ms.some((m) => m.type === 'system' && m.subtype === 'init')) throw new Error('no system/init');
    return r[0].session_id;
  },
  async writeInAcceptEdits() {
    const ms = await collect(query({ prompt: 'write a file', options: { ...base, permissionMode: 'acceptEdits' } }));
    const r = results(ms);
    if (r.length !== 1 || r[0].result !== 'write done' || r[0].permission_denials.length) throw new Error(JSON.stringify(r));
    if (readFileSync(join(dir, 'written.txt'), 'utf8') !== 'from the fake api') throw new Error('written.txt');
  },
  async canUseToolBashAndHooks() {
    const asked = [];
    const seen = { pre: 0, post: 0 };
    const hook = (kind) => async (input) => { seen[kind]++; if (input.tool_name !== 'Bash' || input.tool_input.command !== 'touch bash-ran.txt') throw new Error('hook input ' + JSON.stringify(input)); return { continue: true }; };
    const ms = await collect(query({ prompt: 'run bash please', options: { ...base,
      canUseTool: async (name, input) => { asked.push(name + ':' + input.command); return { behavior: 'allow', updatedInput: input }; },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook('pre')] }], PostToolUse: [{ matcher: 'Bash', hooks: [hook('post')] }] } } }));
    const r = results(ms);
    if (r.length !== 1 || r[0].result !== 'bash done') throw new Error(JSON.stringify(r));
    if (asked.join() !== 'Bash:touch bash-ran.txt' || seen.pre !== 1 || seen.post !== 1) throw new Error(JSON.stringify({ asked, seen }));
    if (!existsSync(join(dir, 'bash-ran.txt'))) throw new Error('the approved Bash did not run');
  },
  async partialMessages() {
    const ms = await collect(query({ prompt: 'stream it', options: { ...base, includePartialMessages: true } }));
    const deltas = ms.filter((m) => m.type === 'stream_event' && m.event.type === 'content_block_delta' && m.event.delta.type === 'text_delta');
    if (deltas.length < 2 || deltas.map((d) => d.event.delta.text).join('') !== 'streamed in several pieces') throw new Error(JSON.stringify(deltas));
    const r = results(ms);
    if (r.length !== 1 || r[0].result !== 'streamed in several pieces') throw new Error(JSON.stringify(r));
  },
  async twoPromptsOneSession() {
    const p = promptStream(['first of two', 'second of two']);
    const got = [];
    await collect(query({ prompt: p.iterable, options: base }), (m) => {
      if (m.type === 'result') { got.push(m); if (got.length === 2) p.close(); }
    });
    if (got.length !== 2 || got[0].result !== 'answer one' || got[1].result !== 'answer two' || got[0].session_id !== got[1].session_id) throw new Error(JSON.stringify(got));
  },
  async interrupt() {
    const p = promptStream(['run forever']);
    let interrupted = false;
    const q = query({ prompt: p.iterable, options: { ...base, includePartialMessages: true } });
    const ms = await collect(q, async (m) => {
      if (!interrupted && m.type === 'stream_event' && m.event.type === 'content_block_delta') { interrupted = true; await q.interrupt(); }
      if (m.type === 'result') p.close();
    });
    const r = results(ms);
    if (!interrupted || r.length !== 1 || !r[0].is_error) throw new Error(JSON.stringify(r));
  },
};

let failed = false;
let sessionID;
for (const [name, run] of Object.entries(scenarios)) {
  try {
    const v = await run();
    if (name === 'plain') sessionID = v;
    console.log('ok ' + name);
  } catch (e) {
    failed = true;
    console.log('FAIL ' + name + ': ' + (e && e.stack || e));
  }
}
// Resume continues the plain scenario's session: the server checks that its history came along.
try {
  const ms = await collect(query({ prompt: 'resume it', options: { ...base, resume: sessionID } }));
  const r = results(ms);
  if (r.length !== 1 || r[0].result !== 'resumed answer' || r[0].session_id !== sessionID) throw new Error(JSON.stringify(r));
  console.log('ok resume');
} catch (e) {
  failed = true;
  console.log('FAIL resume: ' + (e && e.stack || e));
}
process.exit(failed ? 1 : 0);
