// Our client against acp-kit's own agent runtime (test/fixtures/agent-scripted.mjs over dist/), v1 and v2.
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { connect, type ClientConnection, type ClientProblem } from '../src/client/index.js';
import { approveAll, interactive } from '../src/client/services/permission-policy.js';

const AGENT = fileURLToPath(new URL('./fixtures/agent-scripted.mjs', import.meta.url));
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
async function start(protocol: 1 | 2, opts: Record<string, unknown> = {}) {
  const problems: ClientProblem[] = [];
  const conn = await connect({ command: process.execPath, args: [AGENT], protocol: protocol === 2 ? 'auto' : 1, onProblem: (p) => problems.push(p), env: { ...process.env, AGENT_STORE: 'memory' }, ...opts });
  open.push(conn);
  return { conn, problems };
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
    const a = await start(v, { permissionPolicy: approveAll() });
    const s = await a.conn.newSession({ cwd: '/tmp' });
    await s.prompt('permission');
    expect(s.state.messageList.map((m) => m.text)).toContain('permission: allow');

    let asked!: () => void;
    const askedP = new Promise<void>((r) => (asked = r));
    const b = await start(v, { permissionPolicy: interactive(() => (asked(), new Promise<never>(() => undefined))) });
    const s2 = await b.conn.newSession({ cwd: '/tmp' });
    const done = s2.prompt('permission');
    await askedP;
    s2.cancel();
    expect((await done).stopReason).toBe('cancelled');
  });

  it('an author error ends the turn (v2: error stop; v1: error response)', async () => {
    const { conn } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    expect(await s.prompt('fail')).toMatchObject({ stopReason: 'error', error: { message: expect.stringContaining('disk on fire') } });
    expect(s.state.foreground.lastStopReason).toBe('error');
  });

  it('resume with replay rebuilds the conversation; list finds the session', async () => {
    const { conn } = await start(v);
    const s = await conn.newSession({ cwd: '/tmp' });
    await s.prompt('hello');
    expect((await conn.listAllSessions()).map((x) => x.sessionId)).toContain(s.sessionId);
    const again = await conn.resumeSession(s.sessionId, { cwd: '/tmp', replay: true });
    expect(again.state.messageList.map((m) => [m.role, m.text])).toEqual([['user', 'hello'], ['agent', 'Hello, world']]);
  });
});

describe('acp-kit agent runtime, v2 only', () => {
  it('tool_call/cancel while the call advertises capabilities.cancel', async () => {
    const { conn } = await start(2);
    const s = await conn.newSession({ cwd: '/tmp' });
    const ready = new Promise<string>((resolve) => s.onUpdate((u) => {
      const tc = u as { sessionUpdate: string; toolCallId?: string; capabilities?: unknown };
      if (tc.sessionUpdate === 'tool_call_update' && tc.capabilities) resolve(tc.toolCallId!);
    }));
    const done = s.prompt('toolcancel');
    const id = await ready;
    await s.cancelToolCall(id);
    expect((await done).stopReason).toBe('end_turn');
    expect(s.state.toolCalls.get(id)!.status).toBe('cancelled');
    await expect(s.cancelToolCall(id)).rejects.toThrow(/capabilities.cancel/);
  });
});
