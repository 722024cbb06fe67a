import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { connect, type ClientConnection, type ClientProblem } from '../src/index.js';
import { approveAll, interactive, type PermissionContext } from '../src/services/permission-policy.js';
import type { PermissionRequest } from '../../protocol/src/model/session.js';
import { ConnectionClosedError } from '../../protocol/src/rpc/peer.js';
import { AcpError } from '../../protocol/src/errors.js';
import { StreamTransport } from '../../protocol/src/rpc/stream-transport.js';
import { tempDir } from '../../../test/support/temp.js';
// @ts-expect-error plain ESM fixture without type declarations
import { rawAgent } from '../../../test/fixtures/client-raw-agent.mjs';
import { readFileSync } from 'node:fs';

/** the package's own version: the client's default info follows package.json */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const RAW = fileURLToPath(new URL('../../../test/fixtures/client-raw-agent.mjs', import.meta.url));
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

type ConnectOptions = Parameters<typeof connect>[0] extends infer O ? Partial<O> : never;

/**
 * The raw agent served in this process over in-memory pipes (the client runtime's protocol logic is
 * what these tests check; a process start per test only cost time). See {@link startProcess}.
 */
async function start(args: string[] = [], opts: ConnectOptions = {}) {
  const problems: ClientProblem[] = [];
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  rawAgent(['node', RAW, ...args], {
    stdin: toAgent,
    stdout: fromAgent,
    stderr: new PassThrough().resume(),
    exit: () => fromAgent.end(),
  });
  const conn = await connect({
    transport: new StreamTransport(fromAgent, toAgent),
    onProblem: (p) => problems.push(p),
    ...(opts as object),
  });
  open.push(conn);
  return { conn, problems };
}

/** The raw agent as a real process on stdio: for what is about the process (exit code, stderr, kill). */
async function startProcess(args: string[] = [], opts: ConnectOptions = {}) {
  const problems: ClientProblem[] = [];
  const conn = await connect({
    command: process.execPath,
    args: [RAW, ...args],
    onProblem: (p) => problems.push(p),
    ...(opts as object),
  });
  open.push(conn);
  return { conn, problems };
}

describe('initialize', () => {
  it('auto: one initialize carries v2 and v1 fields; a v2 agent answers 2', async () => {
    const { conn } = await start(['--versions=1,2']);
    expect(conn.protocolVersion).toBe(2);
    const { params } = (await conn.extRequest('_fixture/initParams', {})) as { params: Record<string, unknown> };
    expect(params.protocolVersion).toBe(2);
    expect(params.info).toEqual({ name: 'acp-kit', version: PACKAGE_VERSION });
    expect(params.clientInfo).toEqual({ name: 'acp-kit', version: PACKAGE_VERSION });
    expect(params).toHaveProperty('capabilities');
    expect(params).toHaveProperty('clientCapabilities');
    expect(conn.agentInfo).toEqual({ name: 'raw-agent', version: '2' });
    expect(conn.authMethods.map((m) => m.methodId)).toEqual(['token']);
  });

  it('auto: a v1-only agent answers 1 and the connection speaks v1 (ACP-V2-INIT-03)', async () => {
    const { conn } = await start(['--versions=1'], { fileSystem: true });
    expect(conn.protocolVersion).toBe(1);
    const { params } = (await conn.extRequest('_fixture/initParams', {})) as {
      params: { clientCapabilities: { fs: unknown } };
    };
    expect(params.clientCapabilities.fs).toEqual({ readTextFile: true, writeTextFile: true });
    expect(conn.agentCapabilities.loadSession).toBe(true);
  });

  it('protocol: 1 sends protocolVersion 1 with only v1 fields', async () => {
    const { conn } = await start(['--versions=1,2'], { protocol: 1 });
    expect(conn.protocolVersion).toBe(1);
    const { params } = (await conn.extRequest('_fixture/initParams', {})) as { params: Record<string, unknown> };
    expect(params.protocolVersion).toBe(1);
    expect(params).not.toHaveProperty('info');
    expect(params).toHaveProperty('clientCapabilities');
  });

  it('protocol: 2 sends only v2 fields and refuses a v1 answer', async () => {
    const { conn } = await start(['--versions=1,2'], { protocol: 2 });
    const { params } = (await conn.extRequest('_fixture/initParams', {})) as { params: Record<string, unknown> };
    expect(params.protocolVersion).toBe(2);
    expect(params).not.toHaveProperty('clientCapabilities');
    await expect(start(['--versions=1'], { protocol: 2 })).rejects.toThrow(/protocolVersion 1.*speaks 2/);
  });

  it('disconnects with a clear error when the agent answers an unsupported version (ACP-ALL-INIT-04)', async () => {
    await expect(start(['--answer=3'])).rejects.toThrow(/protocolVersion 3.*speaks 1 or 2/);
    await expect(
      start(['--versions=1,2'], { protocol: 1 }).then(() => start(['--answer=2'], { protocol: 1 })),
    ).rejects.toThrow(/protocolVersion 2/);
  });

  it('auto: an agent that rejects v2 with -32022 {supported: [1]} is retried with v1', async () => {
    const { conn } = await start(['--versions=1', '--reject-newer']);
    expect(conn.protocolVersion).toBe(1);
    const { params } = (await conn.extRequest('_fixture/initParams', {})) as { params: Record<string, unknown> };
    expect(params.protocolVersion).toBe(1);
    await expect(start(['--versions=2', '--reject-newer'], { protocol: 1 })).rejects.toThrow(
      /unsupported protocol version/,
    );
  });

  it('connects over a given transport', async () => {
    const { spawnAgent } = await import('../../protocol/src/rpc/child.js');
    const agent = spawnAgent(process.execPath, [RAW]);
    const conn = await connect({ transport: agent.transport });
    open.push(conn);
    expect(conn.protocolVersion).toBe(2);
    expect((await (await conn.newSession({ cwd: '/w' })).prompt('hello')).stopReason).toBe('end_turn');
    await conn.close();
    await agent.exited;
  });

  it('auth: terminal methods are refused locally, agent methods sent; logout gated', async () => {
    const { conn } = await start(['--versions=1']);
    await expect(conn.authenticate('tty')).rejects.toThrow(/terminal login/);
    await expect(conn.authenticate('token')).resolves.toBeUndefined();
    await expect(conn.logout()).resolves.toBeUndefined();
  });
});

describe.each([1, 2] as const)('sessions over v%i', (v) => {
  const args = [`--versions=${v}`];

  it('keeps updates sent before the session/new response, in order; junk stdout lines are reported', async () => {
    const { conn, problems } = await start(args);
    const s = await conn.newSession({ cwd: '/work' });
    expect(s.state.message('agent', 'early')!.text).toBe('before response');
    expect(s.state.toolCalls.get('early-tool')!.status).toBe('in_progress');
    expect(s.state.timeline.map((e) => e.kind)).toEqual(['message', 'tool_call']);
    expect(s.state.configOptions.map((o) => [o.configId, o.currentValue])).toEqual([['mode', 'ask']]);
    expect(problems.some((p) => p.kind === 'parse')).toBe(true);
  });

  it('prompt resolves with the stop reason and the state looks the same in both versions', async () => {
    const { conn } = await start(args);
    const s = await conn.newSession({ cwd: '/work' });
    const states: string[] = [];
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'state_update') states.push((u as { state: string }).state);
    });
    const r = await s.prompt('hello');
    expect(r.stopReason).toBe('end_turn');
    if (v === 2) expect(r.userMessageId).toBe('u1');
    else expect(r.userMessageId).toBeUndefined();
    expect(states[0]).toBe('running');
    expect(states[states.length - 1]).toBe('idle');
    expect(s.state.foreground).toMatchObject({ state: 'idle', lastStopReason: 'end_turn' });
    const msgs = s.state.messageList.map((m) => [m.role, m.text]);
    expect(msgs).toContainEqual(['user', 'hello']);
    expect(msgs).toContainEqual(['agent', 'Hello world']);
    expect([...s.state.plans.values()][0].plan).toMatchObject({ type: 'items', entries: [{ content: 'x' }] });
  });

  it('an agent that finishes the turn before answering the prompt still resolves', async () => {
    const { conn } = await start(args);
    const s = await conn.newSession({ cwd: '/work' });
    const r = await s.prompt('late');
    expect(r.stopReason).toBe('max_tokens');
  });

  it('an error stop (v2) / error response (v1)', async () => {
    const { conn } = await start(args);
    const s = await conn.newSession({ cwd: '/work' });
    // one outcome for both versions (v1: the JSON-RPC error answer)
    await expect(s.prompt('error')).resolves.toMatchObject({ stopReason: 'error', error: { message: 'model failed' } });
    expect(s.state.foreground).toMatchObject({ state: 'idle', lastStopReason: 'error' });
  });

  it('cancel with a pending permission: answered cancelled, tool calls marked, later updates applied', async () => {
    let asked!: () => void;
    const askedP = new Promise<void>((r) => (asked = r));
    const { conn } = await start(args, {
      permissionPolicy: interactive(() => (asked(), new Promise<never>(() => undefined))),
    });
    const s = await conn.newSession({ cwd: '/work' });
    const done = s.prompt('permission');
    await askedP;
    expect(s.pendingPermissionCount).toBe(1);
    const statuses: string[] = [];
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'tool_call_update' && (u as { toolCallId: string }).toolCallId === 'perm-tool')
        statuses.push(String((u as { status?: string }).status));
    });
    s.cancel();
    expect(s.pendingPermissionCount).toBe(0);
    expect(statuses[0]).toBe('cancelled');
    const r = await done;
    expect(r.stopReason).toBe('cancelled');
    const agentText = s.state.messageList
      .filter((m) => m.role === 'agent')
      .map((m) => m.text)
      .join('|');
    expect(agentText).toContain('outcome:{"outcome":"cancelled"}');
    // the agent's late update still applied (ACP-V1-CANCEL-08)
    expect(s.state.toolCalls.get('other-tool')!.status).toBe('failed');
  });

  it('permission policy answers and the tool call from the request is applied first', async () => {
    const titles: string[] = [];
    const { conn } = await start(args, {
      permissionPolicy: (req: PermissionRequest, ctx: PermissionContext) => (
        titles.push(req.title),
        approveAll()(req, ctx)
      ),
    });
    const s = await conn.newSession({ cwd: '/work' });
    expect((await s.prompt('permission')).stopReason).toBe('end_turn');
    // v2: the request's own title; v1: the request's tool call patch has only an id, so the title
    // is the one of the tool call it refers to (not a placeholder)
    expect(titles).toEqual([v === 2 ? 'Edit the file?' : 'Edit file']);
    const agentText = s.state.messageList
      .filter((m) => m.role === 'agent')
      .map((m) => m.text)
      .join('|');
    expect(agentText).toContain('outcome:{"outcome":"selected","optionId":"ok"}');
    expect(s.state.toolCalls.get('perm-tool')!.title).toBe('Edit file');
  });

  it('$/cancel_request from the agent answers the pending permission request cancelled', async () => {
    const { conn } = await start(args, { permissionPolicy: interactive(() => new Promise<never>(() => undefined)) });
    const s = await conn.newSession({ cwd: '/work' });
    const r = await s.prompt('permission-agent-cancel');
    expect(r.stopReason).toBe('cancelled');
    expect(s.state.messageList.map((m) => m.text).join('|')).toContain('outcome:{"outcome":"cancelled"}');
  });

  it('prompt({signal}) abort sends session/cancel', async () => {
    const { conn } = await start(args);
    const s = await conn.newSession({ cwd: '/work' });
    const ac = new AbortController();
    const p = s.prompt('slow', { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect((await p).stopReason).toBe('cancelled');
  });

  it('junk stdout lines and invalid updates are reported, never fatal', async () => {
    const { conn, problems } = await start(args);
    const s = await conn.newSession({ cwd: '/work' });
    expect((await s.prompt('junk')).stopReason).toBe('end_turn');
    expect(problems.filter((p) => p.kind === 'parse').length).toBeGreaterThanOrEqual(3);
    expect((await s.prompt('invalid')).stopReason).toBe('end_turn');
    const bad = problems.find((p) => p.kind === 'invalid-update');
    expect(bad?.sessionId).toBe(s.sessionId);
    expect(bad?.message).toMatch(/toolCallId/);
    expect(s.state.messageList.map((m) => m.text)).toContain('after invalid');
  });

  it('crash: pending prompt rejects with the exit code and the stderr tail', async () => {
    const { conn } = await startProcess(args);
    const s = await conn.newSession({ cwd: '/work' });
    const err = await s.prompt('crash').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectionClosedError);
    const e = err as ConnectionClosedError;
    expect(e.info.exitCode).toBe(3);
    expect(e.message).toContain('exited with code 3');
    expect(e.message).toContain('fatal: the model exploded');
    expect(conn.isClosed).toBe(true);
    await expect(conn.newSession({ cwd: '/w' })).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('list follows cursors, close, delete, config options and modes', async () => {
    const { conn } = await start(args);
    expect((await conn.listAllSessions({ cwd: '/w' })).map((x) => x.sessionId)).toEqual(['old-1', 'old-2', 'old-3']);
    const s = await conn.newSession({ cwd: '/work' });
    await expect(s.setConfigOption('mode', 'nope')).rejects.toThrow(/must be one of "ask", "code"/);
    await s.setMode('code');
    expect(s.state.configOptions[0].currentValue).toBe('code');
    await s.close();
    expect(s.closed).toBe(true);
    expect(conn.session(s.sessionId)).toBeUndefined();
    if (v === 2) await expect(conn.closeSession('gone')).resolves.toBeUndefined();
    await expect(conn.deleteSession('old-1')).resolves.toBeUndefined();
  });

  it('load / resume with replay fill a fresh state', async () => {
    const { conn } = await start(args);
    const s = await conn.resumeSession('old-1', { cwd: '/w', replay: true });
    expect(s.state.messageList.map((m) => [m.role, m.text])).toEqual([
      ['user', 'old question'],
      ['agent', 'old answer'],
    ]);
    const r = await conn.resumeSession('old-2', { cwd: '/w' });
    expect(r.state.messageList).toEqual([]);
    if (v === 1) await expect(conn.loadSession('old-3', { cwd: '/w' })).resolves.toBeDefined();
    else await expect(conn.loadSession('old-3', { cwd: '/w' })).rejects.toThrow(/does not exist in ACP v2/);
  });

  it('rejects content the agent did not advertise, and empty prompts', async () => {
    const { conn } = await start(args);
    const s = await conn.newSession({ cwd: '/work' });
    await expect(s.prompt([{ type: 'image', data: 'AAAA', mimeType: 'image/png' }])).rejects.toThrow(
      /params.prompt\[0\].*image/,
    );
    await expect(s.prompt([])).rejects.toBeInstanceOf(AcpError);
    await expect(conn.newSession({ cwd: 'relative/dir' })).rejects.toThrow(/params.cwd must be an absolute path/);
    await expect(conn.newSession({ cwd: '/w', additionalDirectories: ['/x'] })).rejects.toThrow(
      /additionalDirectories/,
    );
  });
});

describe('process lifecycle', () => {
  it('a missing agent command rejects connect with a clear reason', async () => {
    await expect(connect({ command: '/nonexistent/agent-binary' })).rejects.toThrow(
      /agent command not found: \/nonexistent\/agent-binary/,
    );
  });

  it('stderr is streamed as events', async () => {
    const chunks: string[] = [];
    const { conn } = await startProcess(['--versions=2'], { onStderr: (t: string) => chunks.push(t) });
    const s = await conn.newSession({ cwd: '/w' });
    await s.prompt('crash').catch(() => undefined);
    expect(chunks.join('')).toContain('fatal: the model exploded');
  });

  it('close() kills the agent process', async () => {
    const { conn } = await startProcess();
    const pid = conn.agentProcess!.process.pid!;
    const closes: string[] = [];
    conn.on('close', (info) => closes.push(info.reason));
    await conn.close();
    expect(closes).toEqual(['closed locally']);
    expect(() => process.kill(pid, 0)).toThrow();
    const info = await conn.closed;
    expect(info.reason).toBe('closed locally');
  });
});

describe('v1 client services wiring', () => {
  it('fs/* goes to a sandbox confined to the session roots, only when advertised', async () => {
    const { writeFileSync, readFileSync, realpathSync } = await import('node:fs');
    const dir = realpathSync(tempDir('acp-client-fs-'));
    writeFileSync(`${dir}/a.txt`, 'abc');
    const { conn } = await start(['--versions=1'], { fileSystem: true });
    const s = await conn.newSession({ cwd: dir });
    await s.prompt(`fs ${dir}/a.txt`);
    expect(s.state.messageList.map((m) => m.text)).toContain('read:abc');
    expect(readFileSync(`${dir}/a.txt.out`, 'utf8')).toBe('ABC');
    await s.prompt('fs /etc/hostname');
    expect(s.state.messageList.map((m) => m.text).join('|')).toMatch(/fs-error:-32/);

    const plain = await start(['--versions=1']);
    const s2 = await plain.conn.newSession({ cwd: dir });
    await s2.prompt(`fs ${dir}/a.txt`);
    expect(s2.state.messageList.map((m) => m.text)).toContain('fs-error:-32601:Method not found: fs/read_text_file');
  });

  it('terminal/* runs real commands when advertised', async () => {
    const { conn } = await start(['--versions=1'], { terminals: true });
    const s = await conn.newSession({ cwd: process.cwd() });
    await s.prompt('term');
    expect(s.state.messageList.map((m) => m.text)).toContain('term:0:from terminal');
  });
});

describe('out-of-turn updates (v2)', () => {
  it('a stale idle snapshot before insertion does not end the prompt (ACP-V2-LIFE-10/15)', async () => {
    const { conn } = await start(['--versions=2']);
    const s = await conn.newSession({ cwd: '/work' });
    expect(await s.prompt('stale-idle')).toEqual({ stopReason: 'max_turn_requests', userMessageId: 'u1' });
  });

  it('updates after idle land in the same state', async () => {
    const { conn } = await start(['--versions=2']);
    const s = await conn.newSession({ cwd: '/work' });
    const seen = new Promise<void>((resolve) =>
      s.onUpdate((u) => (u as { toolCallId?: string }).toolCallId === 'bg-tool' && resolve()),
    );
    expect((await s.prompt('background')).stopReason).toBe('end_turn');
    await seen;
    expect(s.state.toolCalls.get('bg-tool')!.status).toBe('in_progress');
    expect(s.state.foreground.state).toBe('idle');
  });
});
