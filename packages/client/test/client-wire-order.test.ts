/**
 * The client runtime against agents that put several messages in one write (goose, codex-acp,
 * cursor): every applied update is observable in wire order, one prompt outcome for v1 and v2,
 * lenient v2 session surface and a time limit on session set-up. Real agent process, real pipes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { AcpError } from '../../protocol/src/errors.js';
import { connect, RequestTimeoutError, type ClientConnection, type ClientOptions } from '../src/index.js';
import type { AnySessionUpdate } from '../../protocol/src/model/update.js';

const AGENT = fileURLToPath(new URL('../../../test/fixtures/client-order-agent.mjs', import.meta.url));
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function start(args: string[], options: ClientOptions = {}): Promise<ClientConnection> {
  const conn = await connect({ command: process.execPath, args: [AGENT, ...args], ...options });
  open.push(conn);
  return conn;
}

/** `available_commands_update` -> `commands:a,b`, other kinds by name (state_update with its state). */
function label(u: AnySessionUpdate): string {
  if (u.sessionUpdate === 'available_commands_update')
    return `commands:${(u as { availableCommands: Array<{ name: string }> }).availableCommands.map((c) => c.name).join(',')}`;
  if (u.sessionUpdate === 'state_update') return `state:${(u as { state: string }).state}`;
  return u.sessionUpdate;
}

describe('no invisible updates: onUpdate on every session-opening call', () => {
  for (const v of [1, 2] as const) {
    it(`v${v} newSession: updates before the response and in the same read after it reach onUpdate, in wire order, before it resolves`, async () => {
      const conn = await start([`--version=${v}`]);
      const seen: string[] = [];
      const s = await conn.newSession({ cwd: '/w', onUpdate: (u) => seen.push(label(u)) });
      expect(seen).toEqual(['commands:before', 'commands:before,after']);
      expect(s.state.availableCommands.map((c) => c.name)).toEqual(['before', 'after']);
      // a listener attached when the call resolves misses nothing that came later
      const later: string[] = [];
      s.onUpdate((u) => later.push(label(u)));
      if (v === 1) {
        await s.prompt('hi');
        expect(later[0]).toBe('user_message');
      }
    });
  }

  it('v1 loadSession: the replay and an update read together with the response, in wire order', async () => {
    const conn = await start(['--version=1']);
    const seen: string[] = [];
    await conn.loadSession('old', { cwd: '/w', onUpdate: (u) => seen.push(label(u)) });
    expect(seen).toEqual(['agent_message_chunk', 'commands:loaded']);
  });
});

describe('v1 turn: wire order and one prompt outcome', () => {
  it('an update sent after the prompt response (same read) is reported after the synthesized idle', async () => {
    const conn = await start(['--version=1']);
    const s = await conn.newSession({ cwd: '/w' });
    const seen: string[] = [];
    s.onUpdate((u) => seen.push(label(u)));
    const res = await s.prompt('hello');
    expect(res).toEqual({ stopReason: 'end_turn' });
    expect(seen).toEqual(['user_message', 'state:running', 'agent_message_chunk', 'state:idle', 'session_info_update']);
    expect(s.state.info.title).toBe('Titled after the turn');
  });

  it('a JSON-RPC error answer to session/prompt resolves {stopReason: "error", error} like v2, and the state is idle with it', async () => {
    const conn = await start(['--version=1']);
    const s = await conn.newSession({ cwd: '/w' });
    const res = await s.prompt('error');
    const error = { code: -32603, message: 'Internal error: model unavailable', data: { retryAfter: 5 } };
    expect(res).toEqual({ stopReason: 'error', error });
    expect(s.state.foreground).toMatchObject({ state: 'idle', lastStopReason: 'error', lastError: error });
    // the session stays usable
    expect(await s.prompt('again')).toEqual({ stopReason: 'end_turn' });
  });
});

describe('v1 message grouping across turns', () => {
  it('each prompt starts a new agent message although id-less chunks of the same role follow a non-content update', async () => {
    const conn = await start(['--version=1']);
    const s = await conn.newSession({ cwd: '/w' });
    await s.prompt('one');
    await s.prompt('two');
    // the turn ends with a session_info_update, which no longer ends a message by itself
    expect(s.state.messageList.map((m) => `${m.role}:${m.text}`)).toEqual([
      'user:one',
      'agent:answer',
      'user:two',
      'agent:answer',
    ]);
  });
});

describe('v2 session surface without the capability marker', () => {
  it('an agent answering capabilities: {} still gets session/new (the official SDK v2 agents do)', async () => {
    const conn = await start(['--version=2', '--no-session-marker']);
    expect(conn.agentCapabilities.session).toBeUndefined();
    const s = await conn.newSession({ cwd: '/w' });
    expect(s.sessionId).toBe('s1');
  });

  it('the official SDK v2 agent with capabilities: {}: session/new and a whole turn work', async () => {
    const SDK = fileURLToPath(new URL('../../../test/fixtures/client-sdk-agent-v2-bare.mjs', import.meta.url));
    const conn = await connect({ command: process.execPath, args: [SDK] });
    open.push(conn);
    expect(conn.agentCapabilities).toEqual({});
    const s = await conn.newSession({ cwd: '/w' });
    expect((await s.prompt('hi')).stopReason).toBe('end_turn');
    expect(s.state.message('agent', 'a1')!.text).toBe('Hello from v2 (hi)');
  });

  it('only a -32601 answer reports it unsupported, naming the method', async () => {
    const conn = await start(['--version=2', '--no-session-marker', '--no-session-new']);
    const e = await conn.newSession({ cwd: '/w' }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AcpError);
    expect((e as AcpError).code).toBe(-32601);
    expect((e as AcpError).message).toBe(
      'the agent does not support session/new (it answered -32601: Method not found: session/new)',
    );
  });
});

describe('session set-up time limit', () => {
  it('session/new that is never answered rejects with RequestTimeoutError after sessionSetupTimeoutMs; the connection stays usable', async () => {
    const conn = await start(['--version=1', '--mute-new'], { sessionSetupTimeoutMs: 300 });
    const e = await conn.newSession({ cwd: '/w' }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(RequestTimeoutError);
    expect((e as RequestTimeoutError).message).toBe('the agent did not answer session/new within 0.3 s');
    expect((e as RequestTimeoutError).method).toBe('session/new');
    expect(conn.isClosed).toBe(false);
    // load is a set-up request too, and answered: it still works on the same connection
    await expect(conn.loadSession('old', { cwd: '/w' })).resolves.toBeDefined();
  });

  it('aborting the signal of newSession gives up at once with -32800 (no time limit set); the connection stays usable', async () => {
    const conn = await start(['--version=1', '--mute-new']);
    const abort = new AbortController();
    const pending = conn.newSession({ cwd: '/w', signal: abort.signal }).then(
      () => undefined,
      (x: unknown) => x,
    );
    // round trip: the load is answered after session/new was written, so that one is pending now
    await expect(conn.loadSession('old', { cwd: '/w' })).resolves.toBeDefined();
    abort.abort();
    expect(await pending).toMatchObject({ code: -32800 });
    expect(conn.isClosed).toBe(false);
  });

  it('a replay that streams longer than the limit is progress: each replayed update restarts it', async () => {
    const conn = await start(['--version=1', '--slow-load'], { sessionSetupTimeoutMs: 600 });
    const started = Date.now();
    const s = await conn.loadSession('old', { cwd: '/w' });
    expect(Date.now() - started).toBeGreaterThan(600);
    expect(s.state.messageList.map((m) => m.text)).toEqual(['0;1;2;3;4;5;6;7;']);
  });

  it('refuses a bad limit with a clear TypeError', async () => {
    const e = await connect({ command: process.execPath, args: [AGENT], sessionSetupTimeoutMs: -1 }).then(
      (c) => {
        open.push(c); // closed by afterEach when the limit is (wrongly) accepted
        return undefined;
      },
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TypeError);
    expect((e as TypeError).message).toBe(
      'sessionSetupTimeoutMs must be a positive number of milliseconds up to 2^31-1 (got -1)',
    );
  });
});
