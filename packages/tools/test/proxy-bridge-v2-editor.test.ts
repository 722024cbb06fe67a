// The bridge with a v2 editor (acp-kit's client forced to v2) in front of a v1-only agent written
// with the official SDK, spawned for real: the v2 prompt lifecycle over v1 turns, fs/* served by the
// bridge inside the session's roots, cancel, resume with replay, and the schema of every message on
// both sides (ACP-V2-LIFE-10, ACP-V1-CANCEL-03, ACP-ALL-SESS-04).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../../client/src/index.js';
import { approveAll, interactive } from '../../client/src/services/permission-policy.js';
import { startBridge, type BridgeHandle } from '../src/proxy/index.js';
import { StreamTransport } from '../../protocol/src/rpc/stream-transport.js';
import { createSchemaTap, type SchemaTap } from '../../../test/support/schema-tap.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));

const dirs: string[] = [];
const conns: ClientConnection[] = [];
const bridges: BridgeHandle[] = [];
afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  await Promise.all(bridges.splice(0).map((b) => b.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'acp-bridge-')));
  dirs.push(d);
  return d;
}

async function start(options: { permissions?: Parameters<typeof connect>[0]['permissionPolicy'] } = {}): Promise<{
  conn: ClientConnection;
  bridge: BridgeHandle;
  editorTap: SchemaTap;
  agentTap: SchemaTap;
  log: string[];
  editorGot: unknown[];
}> {
  const toBridge = new PassThrough();
  const fromBridge = new PassThrough();
  const editorTap = createSchemaTap(2);
  const agentTap = createSchemaTap(1);
  const log: string[] = [];
  const bridge = startBridge({
    mode: 2,
    command: process.execPath,
    args: [fixture('bridge-v1-fs-agent.mjs')],
    editorIn: toBridge,
    editorOut: fromBridge,
    agentStderr: new PassThrough().resume(),
    log: (l) => log.push(l),
    tap: { agent: agentTap.clientSide },
  });
  bridges.push(bridge);
  const editorGot: unknown[] = [];
  const tap = {
    sent: (m: object) => editorTap.clientSide.sent(m),
    received: (m: unknown) => (editorGot.push(m), editorTap.clientSide.received(m)),
  };
  const conn = await connect({
    transport: new StreamTransport(fromBridge, toBridge),
    protocol: 2,
    tap,
    permissionPolicy: options.permissions ?? approveAll(),
  });
  conns.push(conn);
  return { conn, bridge, editorTap, agentTap, log, editorGot };
}

const agentText = (s: { state: { messageList: Array<{ role: string; text: string }> } }) =>
  s.state.messageList.filter((m) => m.role === 'agent').map((m) => m.text);

describe('proxy --bridge 2: v2 editor, v1 agent', () => {
  it('translates: the v2 lifecycle over a v1 turn (messageId at once, echo, running, idle), schema-valid on both sides', async () => {
    const { conn, bridge, editorTap, agentTap } = await start();
    expect(conn.protocolVersion).toBe(2);
    await expect(bridge.route).resolves.toEqual({ kind: 'translate', editorVersion: 2, agentVersion: 1 });
    const d = tmp();
    const s = await conn.newSession({ cwd: d });
    const states: string[] = [];
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'state_update') states.push((u as { state: string }).state);
    });
    const r = await s.prompt('hello');
    expect(r.stopReason).toBe('end_turn');
    expect(r.userMessageId).toMatch(/^bridge-user-/);
    expect(states).toEqual(['running', 'idle']);
    expect(agentText(s)).toEqual(['echo:hello']);
    expect(s.state.messageList.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['hello']);
    // the v1 agent was offered fs and terminals (the bridge serves them)
    const init = await conn.extRequest<{
      params: { protocolVersion: number; clientCapabilities: { fs?: unknown; terminal?: unknown } };
    }>('_fixture/initParams', {});
    expect(init.params.protocolVersion).toBe(1);
    expect(init.params.clientCapabilities).toMatchObject({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
    });
    editorTap.assertAllValid();
    agentTap.assertAllValid();
    expect(editorTap.checked).toBeGreaterThan(6);
    expect(agentTap.checked).toBeGreaterThan(6);
  });

  it("serves the v1 agent's fs/* inside the session's cwd and additional directories, and refuses outside", async () => {
    const { conn, editorTap, agentTap } = await start();
    const root = tmp();
    const cwd = join(root, 'work');
    const extra = join(root, 'extra');
    mkdirSync(cwd);
    mkdirSync(extra);
    writeFileSync(join(cwd, 'in.txt'), 'inside');
    writeFileSync(join(extra, 'more.txt'), 'extra dir');
    writeFileSync(join(root, 'secret.txt'), 'outside');
    const s = await conn.newSession({ cwd, additionalDirectories: [extra] });
    await s.prompt(`read ${join(cwd, 'in.txt')}`);
    await s.prompt(`read ${join(extra, 'more.txt')}`);
    await s.prompt(`write ${join(cwd, 'out.txt')} new content`);
    await s.prompt(`read ${join(root, 'secret.txt')}`);
    await s.prompt(`write ${join(root, 'evil.txt')} nope`);
    const texts = agentText(s);
    expect(texts.slice(0, 3)).toEqual(['read:inside', 'read:extra dir', 'written']);
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('new content');
    expect(texts[3]).toMatch(/^error:-32602:.*outside/i);
    expect(texts[4]).toMatch(/^error:-32602:.*outside/i);
    expect(() => readFileSync(join(root, 'evil.txt'))).toThrow();
    editorTap.assertAllValid();
    agentTap.assertAllValid();
  });

  it('cancel while a permission request is pending: withdrawn from the editor, answered cancelled to the agent, the turn ends cancelled', async () => {
    let asked!: () => void;
    const askedP = new Promise<void>((r) => (asked = r));
    const { conn, editorTap, agentTap, editorGot } = await start({
      permissions: interactive(async (_req, ctx) => {
        asked();
        // never answers: only the withdrawal ends it
        await new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }),
        );
        return { outcome: 'cancelled' };
      }),
    });
    const s = await conn.newSession({ cwd: tmp() });
    const states: string[] = [];
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'state_update') states.push((u as { state: string }).state);
    });
    const ac = new AbortController();
    const p = s.prompt('permission', { signal: ac.signal });
    await askedP;
    expect(states).toEqual(['running', 'requires_action']);
    ac.abort();
    const r = await p;
    expect(r.stopReason).toBe('cancelled');
    expect(r.error).toBeUndefined();
    expect(agentText(s)).toEqual(['outcome:{"outcome":"cancelled"}']);
    // the bridge withdrew the question from the v2 editor itself (a v1 agent sends no $/cancel_request)
    const question = editorGot.find((m) => (m as { method?: string }).method === 'session/request_permission') as {
      id: number;
    };
    expect(editorGot).toContainEqual({
      jsonrpc: '2.0',
      method: '$/cancel_request',
      params: { requestId: question.id },
    });
    // the withdrawn question puts the turn back to running until the agent ends it cancelled
    expect(states).toEqual(['running', 'requires_action', 'running', 'idle']);
    editorTap.assertAllValid();
    agentTap.assertAllValid();
  });

  it('a prompt sent while a v1 turn runs is held: inserted (answered) only after the turn ends, then runs; cancel ends the running turn cancelled', async () => {
    const { conn, editorTap, agentTap } = await start();
    const s = await conn.newSession({ cwd: tmp() });
    const seen: string[] = [];
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'state_update') seen.push(`state:${(u as { state: string }).state}`);
      if (u.sessionUpdate === 'user_message') seen.push(`user:${(u as { messageId: string }).messageId}`);
    });
    const first = s.prompt('slow');
    await new Promise<void>((resolve) => s.onUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && resolve()));
    const second = s.prompt('after');
    second.catch(() => undefined); // asserted below
    // a round trip through the bridge and the agent: the held prompt is still not inserted
    await conn.extRequest('_fixture/initParams', {});
    expect(seen).toEqual(['user:bridge-user-1', 'state:running']);
    s.cancel();
    const r1 = await first;
    expect(r1.stopReason).toBe('cancelled');
    // cancel withdraws held prompts (-32800) as a v2 agent does
    await expect(second).rejects.toMatchObject({ code: -32800 });
    const third = await s.prompt('again');
    expect(third.stopReason).toBe('end_turn');
    expect(agentText(s).at(-1)).toBe('echo:again');
    editorTap.assertAllValid();
    agentTap.assertAllValid();
  });

  it('held prompt without cancel: inserted after the running turn ends, in order', async () => {
    const { conn, editorTap } = await start();
    const s = await conn.newSession({ cwd: tmp() });
    const [a, b] = await Promise.all([s.prompt('one'), s.prompt('two')]);
    expect([a.stopReason, b.stopReason]).toEqual(['end_turn', 'end_turn']);
    expect(agentText(s)).toEqual(['echo:one', 'echo:two']);
    expect(b.userMessageId).toBe('bridge-user-2');
    editorTap.assertAllValid();
  });

  it('session/resume with replayFrom is served by v1 session/load (replay, then the state snapshot)', async () => {
    const { conn, editorTap, agentTap } = await start();
    const s = await conn.resumeSession('fs-s9', { cwd: tmp(), replay: true });
    expect(s.state.messageList.map((m) => [m.role, m.text])).toEqual([
      ['user', 'earlier'],
      ['agent', 'answer'],
    ]);
    expect(s.state.foreground.state).toBe('idle');
    editorTap.assertAllValid();
    agentTap.assertAllValid();
  });

  it("agent death mid-turn: the pending request fails, the bridge exits with the agent's code", async () => {
    const { conn, bridge } = await start();
    const s = await conn.newSession({ cwd: tmp() });
    const p = s.prompt('die');
    const r = await bridge.done;
    expect(r.exitCode).toBe(3);
    // the v2 prompt was acknowledged; its idle never comes: the connection ends (as a direct one would)
    await conn.close();
    await expect(p).rejects.toBeTruthy();
  });
});
