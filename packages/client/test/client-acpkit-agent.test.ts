// Our client against acp-kit's own agent runtime (test/fixtures/agent-scripted.mjs over dist/), v1 and v2.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { connect, type ClientConnection, type ClientProblem } from '../src/index.js';
import { approveAll, interactive, type PermissionPolicy } from '../src/services/permission-policy.js';

const AGENT = fileURLToPath(new URL('../../../test/fixtures/agent-scripted.mjs', import.meta.url));
// One agent process per protocol version for the whole file (a process costs more CPU than a
// test's turns): each test opens its own sessions, and sets the policy the connection's permission
// requests go to for its part; the problems a test checks are the ones reported during it.
let policy: PermissionPolicy = approveAll();
const conns = new Map<1 | 2, Promise<{ conn: ClientConnection; all: ClientProblem[] }>>();
afterEach(() => {
  policy = approveAll();
});
afterAll(async () => {
  const all = await Promise.all([...conns.values()].map((c) => c.catch(() => undefined)));
  conns.clear();
  await Promise.all(all.map((c) => c?.conn.close()));
});
async function start(protocol: 1 | 2) {
  let c = conns.get(protocol);
  if (!c) {
    const all: ClientProblem[] = [];
    c = connect({
      command: process.execPath,
      args: [AGENT],
      protocol: protocol === 2 ? 'auto' : 1,
      onProblem: (p) => all.push(p),
      env: { ...process.env, AGENT_STORE: 'memory' },
      permissionPolicy: (request, ctx) => policy(request, ctx),
    }).then((conn) => ({ conn, all }));
    conns.set(protocol, c);
  }
  const { conn, all } = await c;
  const from = all.length;
  return {
    conn,
    get problems() {
      return all.slice(from);
    },
  };
}

describe.each([1, 2] as const)('acp-kit agent runtime over v%i', (v) => {
  it('hello: same state in both versions; setup results and commands applied', async () => {
    const { conn, problems } = await start(v);
    expect(conn.protocolVersion).toBe(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    expect(s.state.configOptions.map((o) => o.configId)).toEqual(['mode', 'fast']);
    const r = await s.prompt('hello');
    expect(r.stopReason).toBe('end_turn');
    expect(s.state.messageList.filter((m) => m.role === 'agent').map((m) => m.text)).toEqual(['Hello, world']);
    expect(s.state.messageList.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['hello']);
    expect(s.state.foreground).toMatchObject({ state: 'idle', lastStopReason: 'end_turn' });
    await s.setConfigOption('fast', true);
    expect(s.state.configOptions.find((o) => o.configId === 'fast')!.currentValue).toBe(true);
    await s.setMode('code');
    expect(s.state.configOptions.find((o) => o.configId === 'mode')!.currentValue).toBe('code');
    expect(problems).toEqual([]);
  });

  it('permission: approve, and cancel while pending', async () => {
    policy = approveAll();
    const a = await start(v);
    const s = await a.conn.newSession({ cwd: '/tmp' });
    await s.prompt('permission');
    expect(s.state.messageList.map((m) => m.text)).toContain('permission: allow');

    let asked!: () => void;
    const askedP = new Promise<void>((r) => (asked = r));
    policy = interactive(() => (asked(), new Promise<never>(() => undefined)));
    const b = await start(v);
    const s2 = await b.conn.newSession({ cwd: '/tmp' });
    const done = s2.prompt('permission');
    await askedP;
    s2.cancel();
    expect((await done).stopReason).toBe('cancelled');
  });

  it('an author error ends the turn (v2: error stop; v1: error response)', async () => {
    const { conn } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    expect(await s.prompt('fail')).toMatchObject({
      stopReason: 'error',
      error: { message: expect.stringContaining('disk on fire') },
    });
    expect(s.state.foreground.lastStopReason).toBe('error');
  });

  it('resume with replay rebuilds the conversation; list finds the session', async () => {
    const { conn } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    await s.prompt('hello');
    expect((await conn.listAllSessions()).map((x) => x.sessionId)).toContain(s.sessionId);
    const again = await conn.resumeSession(s.sessionId, { cwd: '/tmp', replay: true });
    expect(again.state.messageList.map((m) => [m.role, m.text])).toEqual([
      ['user', 'hello'],
      ['agent', 'Hello, world'],
    ]);
  });
});

describe('acp-kit agent runtime, v2 only', () => {
  it('tool_call/cancel while the call advertises capabilities.cancel', async () => {
    const { conn } = await start(2);
    const s = await conn.newSession({ cwd: '/tmp' });
    const ready = new Promise<string>((resolve) =>
      s.onUpdate((u) => {
        const tc = u as { sessionUpdate: string; toolCallId?: string; capabilities?: unknown };
        if (tc.sessionUpdate === 'tool_call_update' && tc.capabilities) resolve(tc.toolCallId!);
      }),
    );
    const done = s.prompt('toolcancel');
    const id = await ready;
    await s.cancelToolCall(id);
    expect((await done).stopReason).toBe('end_turn');
    expect(s.state.toolCalls.get(id)!.status).toBe('cancelled');
    await expect(s.cancelToolCall(id)).rejects.toThrow(/capabilities.cancel/);
  });
});
