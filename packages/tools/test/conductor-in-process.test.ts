// In-process components (conductor links over memory transport pairs) in front of real agent processes:
// the examples loaded as modules (loadComponentModule) before `acp-kit agent`, v1 and v2, driven by the
// client library over a memory pair; a mixed chain (in-process + command component) traced and read back;
// a throwing handler answered with an error naming the component; a component that closes stops the chain.
// Every memory pair deep-freezes what it hands over (`freeze`), so any code on either side that changed a
// received message in place would throw and fail these tests (the last test shows it does).
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, approveAll, type ClientConnection } from '@acp-kit/client';
import { AcpError, type AnySessionUpdate } from '@acp-kit/protocol';
import { createMemoryTransportPair, JsonRpcPeer } from '@acp-kit/protocol/rpc';
import {
  defineComponent,
  loadComponentModule,
  readCapture,
  startConductor,
  type ChainComponent,
  type ConductorHandle,
} from '../src/proxy/index.js';
import { BIN, cliEnv, tempDir } from '../../../test/fixtures/cli-helpers.js';
import { cancelHeldRequest } from '../../../test/support/chain-cancel.js';
import { alive, waitUntil } from '../../../test/support/process.js';
import { fixture } from '../../../test/support/raw-child.js';

const SECRET = 'sk-abcdefghijk';
const AGENT = { command: process.execPath, args: [BIN, 'agent', '--model', 'demo'], env: cliEnv() };
/** An example's default export; `instance` > 0 is a fresh copy of the module (its own module-level state). */
const example = (name: string, instance = 0) => loadComponentModule(resolve('examples', name), { instance });
const chains: ConductorHandle[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  await Promise.all(chains.splice(0).map((c) => c.stop()));
});

/** A conductor over `components` before `agent`, its editor side a memory pair; every pair freezes messages. */
function chain(components: ChainComponent[], agent = AGENT, trace?: string) {
  const [editorSide, conductorSide] = createMemoryTransportPair({ freeze: true, rawPayload: [false, true] });
  const log: string[] = [];
  const handle = startConductor({
    components,
    agent,
    client: conductorSide,
    trace,
    onStderr: () => undefined,
    log: (l) => log.push(l),
    memoryTransport: { freeze: true },
  });
  chains.push(handle);
  return { handle, editorSide, log };
}

/** The editor: the client library over the chain, a prompt turn, the updates in arrival order. */
async function turn(editorSide: Parameters<typeof connect>[0]['transport'], v: 1 | 2, prompt: string) {
  const conn = await connect({ transport: editorSide, protocol: v, permissionPolicy: approveAll() });
  conns.push(conn);
  const session = await conn.newSession({ cwd: tempDir('inproc') });
  const updates: AnySessionUpdate[] = [];
  session.onUpdate((u) => void updates.push(u));
  const { stopReason } = await session.prompt(prompt);
  const text = session.state.messageList
    .filter((m) => m.role === 'agent')
    .map((m) => m.text)
    .join('');
  return { conn, stopReason, updates, text };
}

describe.each([1, 2] as const)('in-process components before acp-kit agent (v%i)', (v) => {
  it('redactor and system note loaded from their modules: the note reaches the agent, the secret never the editor, updates in order', async () => {
    const note = await example('system-note-component.mjs');
    const redact = await example('redact-secrets-component.mjs');
    const { handle, editorSide } = chain([
      { component: redact, name: 'redact' },
      { component: note, name: 'note' },
    ]);
    expect(handle.nodes.map((n) => [n.name, n.inProcess, n.pid === undefined])).toEqual([
      ['Proxy(0)', true, true],
      ['Proxy(1)', true, true],
      ['Agent', false, false],
    ]);
    expect(handle.pids).toHaveLength(1);
    const r = await turn(editorSide, v, `say ${SECRET} please`);
    expect(r.conn.protocolVersion).toBe(v);
    expect(r.stopReason).toBe('end_turn');
    // the demo agent quotes its prompt: the note is in it, the secret redacted on the way back
    expect(r.text).toContain('System note: answer briefly.');
    expect(r.text).toContain('say [REDACTED] please');
    // (v1: the client shows the user's own prompt as a local user_message)
    expect(JSON.stringify(r.updates.filter((u) => u.sessionUpdate !== 'user_message'))).not.toContain(SECRET);
    // the chunks of the answer arrived in order: joined, they are the quoted prompt word for word
    const chunks = r.updates.flatMap((u) =>
      u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [],
    );
    expect(chunks.join('')).toBe(r.text);
  });

  it('a component that changes the prompt, and the MCP injector: the agent calls the injected tool in process', async () => {
    // its own copy per version: the module keeps the prompts it saw
    const mcp = await example('mcp-tool-component.mjs', v);
    const upper = defineComponent({
      onPrompt: (req, next) =>
        next({
          ...req,
          prompt: req.prompt.map((b) => (b.type === 'text' ? { ...b, text: b.text.replace('NOTES', 'notes') } : b)),
        }),
    });
    const { editorSide } = chain([{ component: upper }, { component: mcp, name: 'mcp' }]);
    const r = await turn(editorSide, v, 'mcp NOTES session_notes {}');
    expect(r.stopReason).toBe('end_turn');
    const done = r.updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(JSON.stringify(done)).toContain('notes: 1 prompt(s): mcp notes session_notes {}');
  });
});

it('a mixed chain (in-process, command, in-process) is traced per hop and reads back', async () => {
  const d = tempDir('inproc-trace');
  const trace = join(d, 'chain.jsons');
  const note = await example('system-note-component.mjs');
  const pass = await loadComponentModule(resolve('bench/pass-component.mjs'));
  const { handle, editorSide } = chain(
    [
      { component: pass },
      { command: process.execPath, args: [resolve('examples/redact-secrets-component.mjs')] },
      { component: note },
    ],
    AGENT,
    trace,
  );
  expect(handle.nodes.map((n) => n.inProcess)).toEqual([true, false, true, false]);
  expect(handle.pids).toHaveLength(2);
  const r = await turn(editorSide, 2, `say ${SECRET} please`);
  expect(r.text).toContain('System note: answer briefly.');
  expect(r.text).toContain('say [REDACTED] please');
  await handle.stop();
  const c = await readCapture(trace);
  expect(c.skipped).toEqual([]);
  const prompts = c.frames.filter((f) => f.method === 'session/prompt' && f.kind === 'request');
  expect(prompts.map((f) => f.hop)).toEqual([
    'Client-Proxy(0)',
    'Proxy(0)-Proxy(1)',
    'Proxy(1)-Proxy(2)',
    'Proxy(2)-Agent',
  ]);
  expect(prompts.map((f) => JSON.stringify(JSON.parse(f.raw).params.prompt).includes('System note'))).toEqual([
    false,
    false,
    false,
    true,
  ]);
  const secretOn = (hop: string) =>
    c.frames.some((f) => f.hop === hop && f.method === 'session/update' && f.raw.includes(SECRET));
  expect(secretOn('Proxy(1)-Proxy(2)')).toBe(true);
  expect(secretOn('Proxy(0)-Proxy(1)')).toBe(false);
});

it("a cancel from the editor crosses two in-process components to the agent; the agent's -32800 comes back", async () => {
  const pass = await loadComponentModule(resolve('bench/pass-component.mjs'));
  const hold = { command: process.execPath, args: [fixture('conduct-hold-agent.mjs')], env: cliEnv() };
  const { editorSide } = chain([{ component: pass }, { component: pass }], hold);
  const e = await cancelHeldRequest(new JsonRpcPeer(editorSide));
  expect(e).toMatchObject({ code: -32800, data: { cancelledBy: 'agent' } });
});

it.each([1, 2] as const)(
  'v%i: the MCP injector in process before an agent without MCP over ACP: the conductor bridges its server and the editor is told',
  async (v) => {
    const mcp = await example('mcp-tool-component.mjs', 2 + v);
    const echo = { command: process.execPath, args: [resolve('examples/echo-agent.mjs')], env: cliEnv() };
    const { editorSide } = chain([{ component: mcp, name: 'mcp' }], echo);
    const conn = await connect({ transport: editorSide, protocol: v });
    conns.push(conn);
    expect(conn.agentCapabilities.mcp?.acp).toBeDefined();
    const session = await conn.newSession({ cwd: tempDir('inproc-bridge') });
    await session.prompt('mcp notes session_notes {}');
    const results = JSON.stringify([...session.state.toolCalls.values()].map((t) => t.content));
    expect(results).toContain('notes: 1 prompt(s): mcp notes session_notes {}');
  },
);

describe('failures of an in-process component', () => {
  /** The echo agent fixture behind `components`, and a raw editor peer that has initialized the chain. */
  async function rawChain(components: ChainComponent[]) {
    const c = chain(components, {
      command: process.execPath,
      args: [fixture('conduct-echo-agent.mjs')],
      env: cliEnv(),
    });
    const editor = new JsonRpcPeer(c.editorSide);
    await editor.request('initialize', { protocolVersion: 2, clientCapabilities: {} });
    return { ...c, editor };
  }

  it('a handler that throws is answered -32603 naming the component; an AcpError it throws is answered as it is; the chain goes on', async () => {
    const { editor, log } = await rawChain([
      {
        name: 'flaky',
        component: defineComponent({
          toAgent: {
            '_test/throw': () => {
              throw new TypeError('handler bug');
            },
            '_test/reject': () => Promise.reject(new Error('async bug')),
            '_test/refuse': () => {
              throw AcpError.invalidParams('no thanks');
            },
            '_test/note': () => {
              throw new Error('notification bug');
            },
          },
        }),
      },
    ]);
    const failed = (m: string) =>
      editor.request(m, {}).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(await failed('_test/throw')).toMatchObject({
      code: -32603,
      message: 'Internal error: component flaky (Proxy(0)) failed in _test/throw: handler bug',
      data: { component: 'flaky (Proxy(0))', method: '_test/throw' },
    });
    expect(await failed('_test/reject')).toMatchObject({
      code: -32603,
      message: /flaky \(Proxy\(0\)\) failed in _test\/reject: async bug$/,
    });
    expect(await failed('_test/refuse')).toMatchObject({ code: -32602, message: 'Invalid params: no thanks' });
    editor.notify('_test/note', {});
    // the agent's own answer to an unknown method still comes back through the component: nothing crashed
    expect(await failed('_test/unknown')).toMatchObject({ code: -32601 });
    expect(log).toContainEqual(
      expect.stringMatching(/^flaky \(Proxy\(0\)\): handler for notification _test\/note threw: /),
    );
  });

  it('a component that closes its connection stops the chain: the agent process is stopped, the editor connection closes', async () => {
    const { handle, editor } = await rawChain([
      { component: defineComponent({ toAgent: { '_test/close': (_p, _next, ctx) => ctx.close('asked to close') } }) },
    ]);
    const [agent] = handle.pids;
    expect(agent !== undefined && alive(agent)).toBe(true);
    editor.notify('_test/close', {});
    expect((await handle.done).reason).toBe('Proxy(0) ended: asked to close');
    await waitUntil(() => !alive(agent ?? 0), 10_000, 'the agent is gone');
    expect((await editor.closed).reason).toBe('Proxy(0) ended: asked to close');
  });

  it('a component that changes a received message in place throws (frozen): the request fails, naming it', async () => {
    const { editor } = await rawChain([
      {
        name: 'mutator',
        component: defineComponent({
          toAgent: {
            '_test/mutate': (params, next) => {
              (params as { touched?: boolean }).touched = true;
              return next(params);
            },
          },
        }),
      },
    ]);
    const e = await editor.request('_test/mutate', { a: 1 }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toMatchObject({
      code: -32603,
      message: /component mutator \(Proxy\(0\)\) failed in _test\/mutate: .*read only|not extensible/,
    });
  });
});
