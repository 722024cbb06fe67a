// Bad input to the agent runtime gets -32602 naming the field, and never wedges a session:
// session roots (cwd / additionalDirectories) and prompts that cannot be stored.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlSessionStore, silentLogger, type AgentDefinition, type SessionStore } from '../src/index.js';
import { initParams, tempDataDir } from '../../../test/support/agent-harness.js';
import { serveRawPeer, type RawPeerPair } from '../../../test/support/in-process.js';

const echo: AgentDefinition = {
  info: { name: 'echo', version: '0' },
  async prompt(turn) {
    const text = turn.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
    await turn.send({
      sessionUpdate: 'agent_message_chunk',
      messageId: turn.session.newId('m'),
      content: { type: 'text', text: `echo ${text}` },
    });
    return 'end_turn';
  },
};

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function start(version: 1 | 2, store?: SessionStore): RawPeerPair {
  const dir = tempDataDir();
  const s = store ?? new JsonlSessionStore({ dir: join(dir, 'sessions') });
  const pair = serveRawPeer(echo, version, { store: s, logger: silentLogger });
  cleanups.push(async () => {
    await pair.close();
    if (s instanceof JsonlSessionStore) s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return pair;
}

/** Sends a prompt and waits for the end of its turn (v1 response; v2 idle after the response). */
async function turn(p: RawPeerPair, version: 1 | 2, sessionId: string, text: string): Promise<any> {
  const res = await p.client.request<any>('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  if (version === 1) return res;
  const idle = () => p.updates.some((u) => u.state === 'idle' && u.stopReason);
  while (!idle()) await new Promise((r) => setImmediate(r));
  p.updates.splice(0);
  return res;
}

describe.each([1, 2] as const)('v%i session roots', (version) => {
  const bad: Array<[string, string, RegExp]> = [
    ['NUL byte', '/tmp/a\0b', /params\.cwd: must be an absolute path without NUL bytes/],
    ['relative', 'tmp/x', /params\.cwd: must be an absolute path/],
    ['".." segment', '/tmp/../etc', /params\.cwd: must be an absolute path without "\." or "\.\." segments/],
    ['"." segment', '/tmp/./x', /params\.cwd: must be an absolute path without "\." or "\.\." segments/],
  ];

  it.each(bad)(
    'session/new refuses a cwd with a %s (-32602 naming params.cwd, never normalised)',
    async (_what, cwd, message) => {
      const p = start(version);
      await p.client.request('initialize', initParams(version));
      const e = await p.client.request('session/new', { cwd, mcpServers: [] }).then(
        () => undefined,
        (x) => x,
      );
      expect(e?.code).toBe(-32602);
      expect(e.message).toMatch(message);
      expect(e.data).toMatchObject({ path: 'params.cwd' });
    },
  );

  it('refuses the same in additionalDirectories entries and on load/resume', async () => {
    const p = start(version);
    await p.client.request('initialize', initParams(version));
    const e = await p.client
      .request('session/new', { cwd: '/tmp', additionalDirectories: ['/srv', '/srv/../etc'], mcpServers: [] })
      .catch((x) => x);
    expect(e.code).toBe(-32602);
    expect(e.message).toMatch(
      /params\.additionalDirectories\[1\]: must be an absolute path without "\." or "\.\." segments/,
    );
    const { sessionId } = await p.client.request<any>('session/new', { cwd: '/tmp', mcpServers: [] });
    const method = version === 1 ? 'session/load' : 'session/resume';
    const r = await p.client.request(method, { sessionId, cwd: '/tmp/../etc', mcpServers: [] }).catch((x) => x);
    expect(r.code).toBe(-32602);
    expect(r.message).toMatch(/params\.cwd: /);
    const nul = await p.client
      .request(method, { sessionId, cwd: '/tmp', additionalDirectories: ['/x\0'], mcpServers: [] })
      .catch((x) => x);
    expect(nul.code).toBe(-32602);
    expect(nul.message).toMatch(/params\.additionalDirectories\[0\]: must be an absolute path without NUL bytes/);
    p.tap.assertAllValid();
  });
});

/** A JSON text of a prompt whose one text block carries `_meta` nested `depth` levels deep (built as text: no recursion). */
function deepPromptLine(id: number, sessionId: string, depth: number): string {
  const meta = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  return `{"jsonrpc":"2.0","id":${id},"method":"session/prompt","params":{"sessionId":${JSON.stringify(sessionId)},"prompt":[{"type":"text","text":"deep","_meta":${meta}}]}}\n`;
}

describe.each([1, 2] as const)('v%i a bad prompt does not wedge its session', (version) => {
  it('a prompt nested ~4,500 deep gets -32602 (transport depth limit), and later prompts are answered', async () => {
    const p = start(version);
    await p.client.request('initialize', initParams(version));
    const { sessionId } = await p.client.request<any>('session/new', { cwd: '/tmp', mcpServers: [] });
    // written raw (the client peer is not the thing under test)
    p.toAgent.write(deepPromptLine(9001, sessionId, 4500));
    // a round trip after it: answered, so the deep one was answered before it
    const after = await turn(p, version, sessionId, 'one');
    const deep = p.sent.find((m) => m.id === 9001);
    expect(deep?.error?.code).toBe(-32602);
    // refused by the transport's depth limit (128) before it reaches the runtime
    expect(deep.error.message).toMatch(/nested deeper than 128 levels/);
    if (version === 1) expect(after).toEqual({ stopReason: 'end_turn' });
    else expect(after.messageId).toEqual(expect.any(String));
    const again = await turn(p, version, sessionId, 'two');
    if (version === 1) expect(again).toEqual({ stopReason: 'end_turn' });
    else expect(again.messageId).toEqual(expect.any(String));
    p.tap.assertAllValid();
  });

  it('a prompt nested between the runtime limit (64) and the transport limit (128) gets -32602 naming params.prompt', async () => {
    const p = start(version);
    await p.client.request('initialize', initParams(version));
    const { sessionId } = await p.client.request<any>('session/new', { cwd: '/tmp', mcpServers: [] });
    p.toAgent.write(deepPromptLine(9002, sessionId, 100));
    const after = await turn(p, version, sessionId, 'one');
    const deep = p.sent.find((m) => m.id === 9002);
    expect(deep?.error?.code).toBe(-32602);
    expect(deep.error.message).toMatch(
      /^Invalid params: params\.prompt\[0\]\._meta(\.a)+: nested deeper than 64 levels/,
    );
    if (version === 1) expect(after).toEqual({ stopReason: 'end_turn' });
    else expect(after.messageId).toEqual(expect.any(String));
    p.tap.assertAllValid();
  });

  it('a prompt the store refuses (disk full) gets an error answer and the session stays usable', async () => {
    const dir = tempDataDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // fault injection into a real store: the first user message hits a full disk
    class FullOnce extends JsonlSessionStore {
      failed = false;
      override append(sessionId: string, update: any): void {
        if (!this.failed && update.sessionUpdate === 'user_message') {
          this.failed = true;
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        super.append(sessionId, update);
      }
    }
    const p = start(version, new FullOnce({ dir: join(dir, 'sessions') }));
    await p.client.request('initialize', initParams(version));
    const { sessionId } = await p.client.request<any>('session/new', { cwd: '/tmp', mcpServers: [] });
    const e = await p.client
      .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'lost' }] })
      .catch((x) => x);
    expect(e.code).toBe(-32603);
    expect(e.message).toMatch(/the prompt could not be stored: Error: ENOSPC/);
    const after = await turn(p, version, sessionId, 'kept');
    if (version === 1) expect(after).toEqual({ stopReason: 'end_turn' });
    else expect(after.messageId).toEqual(expect.any(String));
  });
});
