// Interop: our client against agents written with the official SDK (@agentclientprotocol/sdk
// 2.4.0), over real stdio.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { connect, type ClientConnection, type ClientProblem } from '../src/index.js';
import { approveAll, interactive, type PermissionPolicy } from '../src/services/permission-policy.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function start(file: string, extra: string[] = [], opts: Record<string, unknown> = {}) {
  const problems: ClientProblem[] = [];
  const conn = await connect({
    command: process.execPath,
    args: [fixture(file), ...extra],
    onProblem: (p) => problems.push(p),
    ...opts,
  });
  open.push(conn);
  return { conn, problems };
}
// One connection per plain v1/v2 fixture for the whole file (the official SDK costs ~0.6 s of CPU
// to load per process): each test opens its own session, and sets the policy the connection's
// permission requests go to for that test.
let policy: PermissionPolicy = approveAll();
const sharedConns = new Map<string, Promise<{ conn: ClientConnection; problems: ClientProblem[] }>>();
function shared(file: 'client-sdk-agent-v1.mjs' | 'client-sdk-agent-v2.mjs') {
  let c = sharedConns.get(file);
  if (!c) {
    const problems: ClientProblem[] = [];
    c = connect({
      command: process.execPath,
      args: [fixture(file)],
      onProblem: (p) => problems.push(p),
      // v1: our fs capability is part of what the v1 test checks; the permission tests do not touch files
      ...(file === 'client-sdk-agent-v1.mjs' ? { fileSystem: true } : {}),
      permissionPolicy: (request, ctx) => policy(request, ctx),
    }).then((conn) => ({ conn, problems }));
    sharedConns.set(file, c);
  }
  return c;
}
afterEach(() => {
  policy = approveAll();
});
afterAll(async () => {
  const conns = await Promise.all([...sharedConns.values()].map((c) => c.catch(() => undefined)));
  sharedConns.clear();
  await Promise.all(conns.map((c) => c?.conn.close()));
});
const initParams = async (conn: ClientConnection) =>
  ((await conn.extRequest('_fixture/initParams', {})) as { params: Record<string, unknown> }).params;

describe('official SDK agents', () => {
  it('v2 agent: the combined initialize passes its zod validation; prompt resolves at idle after insertion', async () => {
    const { conn, problems } = await shared('client-sdk-agent-v2.mjs');
    expect(conn.protocolVersion).toBe(2);
    expect(conn.agentInfo?.name).toBe('sdk-v2-agent');
    // the SDK strips the v1 fields it does not know (z.object strips unknown keys)
    const p = await initParams(conn);
    expect(p.info).toEqual({ name: 'acp-kit', version: '0.1.0' });
    expect(p).not.toHaveProperty('clientInfo');
    const s = await conn.newSession({ cwd: '/tmp' });
    // sent before the session/new response
    expect(s.state.availableCommands.map((c) => c.name)).toEqual(['early']);
    const r = await s.prompt('hi');
    expect(r).toEqual({ stopReason: 'end_turn', userMessageId: 'u1' });
    expect(s.state.message('user', 'u1')!.text).toBe('hi');
    expect(s.state.message('agent', 'a1')!.text).toBe('Hello from v2 (hi)');
    await s.setMode('code');
    expect(s.state.configOptions[0].currentValue).toBe('code');
    expect(problems).toEqual([]);
  });

  it('v1 agent (no router): answers 1 and sees our v1 fields, including fs', async () => {
    const { conn, problems } = await shared('client-sdk-agent-v1.mjs');
    expect(conn.protocolVersion).toBe(1);
    const p = await initParams(conn);
    expect(p.protocolVersion).toBe(2);
    expect(p.clientInfo).toEqual({ name: 'acp-kit', version: '0.1.0' });
    expect((p.clientCapabilities as { fs: unknown }).fs).toEqual({ readTextFile: true, writeTextFile: true });
    const s = await conn.newSession({ cwd: '/tmp' });
    const r = await s.prompt('hi');
    expect(r).toEqual({ stopReason: 'end_turn' });
    expect(s.state.message('agent', 'a1')!.text).toBe('Hello from v1 (hi)');
    expect(s.state.plans.get('main')).toBeDefined();
    expect(s.state.foreground).toMatchObject({ state: 'idle', lastStopReason: 'end_turn' });
    expect(problems).toEqual([]);
  });

  it('router with v1 + v2 picks v2 for auto, v1 for protocol: 1', async () => {
    const a = await start('client-sdk-agent-router.mjs');
    expect(a.conn.protocolVersion).toBe(2);
    expect(a.conn.agentInfo?.name).toBe('sdk-v2-agent');
    expect((await (await a.conn.newSession({ cwd: '/tmp' })).prompt('x')).stopReason).toBe('end_turn');
    const b = await start('client-sdk-agent-router.mjs', [], { protocol: 1, fileSystem: true });
    expect(b.conn.protocolVersion).toBe(1);
    expect(b.conn.agentInfo?.name).toBe('sdk-v1-agent');
    expect(((await initParams(b.conn)).clientCapabilities as { fs: unknown }).fs).toEqual({
      readTextFile: true,
      writeTextFile: true,
    });
    expect((await (await b.conn.newSession({ cwd: '/tmp' })).prompt('x')).stopReason).toBe('end_turn');
  });

  it('v1-only router: auto lands on v1, but the router rebuilds v1 params from the v2 fields (fs/terminal are lost)', async () => {
    const { conn } = await start('client-sdk-agent-router.mjs', ['v1-only'], { fileSystem: true });
    expect(conn.protocolVersion).toBe(1);
    const p = await initParams(conn);
    // documented limitation: use protocol: 1 to offer fs/terminal to such an agent
    expect(p.protocolVersion).toBe(1);
    expect((p.clientCapabilities as { fs: unknown }).fs).toEqual({ readTextFile: false, writeTextFile: false });
    expect(p.clientInfo).toEqual({ name: 'acp-kit', version: '0.1.0' });
    expect((await (await conn.newSession({ cwd: '/tmp' })).prompt('x')).stopReason).toBe('end_turn');
  });

  it.each([
    ['client-sdk-agent-v1.mjs', 1],
    ['client-sdk-agent-v2.mjs', 2],
  ] as const)('%s: cancel with a pending permission ends cancelled', async (file, version) => {
    let asked!: () => void;
    const askedP = new Promise<void>((r) => (asked = r));
    policy = interactive(() => (asked(), new Promise<never>(() => undefined)));
    const { conn } = await shared(file);
    expect(conn.protocolVersion).toBe(version);
    const s = await conn.newSession({ cwd: '/tmp' });
    const done = s.prompt('permission');
    await askedP;
    s.cancel();
    const r = await done;
    expect(r.stopReason).toBe('cancelled');
    expect(s.state.toolCalls.get('t1')!.status).toBe('cancelled');
    expect(s.state.messageList.map((m) => m.text).join('|')).toContain('outcome:{"outcome":"cancelled"}');
  });

  it.each(['client-sdk-agent-v1.mjs', 'client-sdk-agent-v2.mjs'] as const)('%s: a policy approves', async (file) => {
    policy = approveAll();
    const { conn } = await shared(file);
    const s = await conn.newSession({ cwd: '/tmp' });
    expect((await s.prompt('permission')).stopReason).toBe('end_turn');
    expect(s.state.messageList.map((m) => m.text).join('|')).toMatch(
      /outcome:\{("outcome":"selected","optionId":"yes"|"optionId":"yes","outcome":"selected")\}/,
    );
  });
});
