// Interop of the unstable session methods with the official SDK 2.4.0 (its `unstable` APIs, which
// validate what they receive): the SDK's v1 and v2 clients drive acp-kit's built-in agent (a real
// process) through session/fork, set_title, status, archive/unarchive and the list filter; and
// acp-kit's client drives an agent written with the SDK's v1 and v2 unstable agent APIs.
// ACP-V1-FORK-01.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as v1 from '@agentclientprotocol/sdk/unstable';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../packages/client/src/index.js';
import { StreamTransport } from '../packages/protocol/src/rpc/stream-transport.js';
import { tempDir } from './support/temp.js';

const bin = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const children: ChildProcess[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(conns.splice(0).map((c) => c.close()));
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function builtInAgent(): { output: WritableStream<Uint8Array>; input: ReadableStream<Uint8Array> } {
  const child = spawn(process.execPath, [bin, 'agent', '--model', 'demo'], {
    env: { ...process.env, ACP_KIT_DATA_DIR: tempDir('sdk-unstable-'), ACP_KIT_DEMO_DELAY_MS: '0' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  return {
    output: Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    input: Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  };
}

describe('official SDK unstable clients -> acp-kit built-in agent', () => {
  it('v1: fork, set_title, status, archive, list with the archive filter', async () => {
    const { output, input } = builtInAgent();
    const cwd = tempDir('sdk-unstable-cwd-');
    const out = await v1.client({ name: 'sdk-v1-unstable' }).connectWith(v1.ndJsonStream(output, input), async (cx) => {
      const init = await cx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await cx.request('session/new', { cwd, mcpServers: [] });
      const title = await cx.request('session/set_title', { sessionId, title: ' From the SDK ' });
      const fork = await cx.request('session/fork', { sessionId, cwd });
      const status = await cx.request('session/status', { sessionId: fork.sessionId });
      await cx.request('session/archive', { sessionId });
      const hidden = await cx.request('session/list', { cwd });
      const all = await cx.request('session/list', { cwd, archived: 'include' });
      await cx.request('session/unarchive', { sessionId });
      return { init, sessionId, title, fork, status, hidden, all };
    });
    expect(out.init.agentCapabilities?.sessionCapabilities).toMatchObject({
      fork: {},
      archive: {},
      status: {},
      title: {},
    });
    expect(out.title).toEqual({ title: 'From the SDK' });
    expect(out.fork.sessionId).not.toBe(out.sessionId);
    expect(out.status.status).toBe('open');
    expect(out.hidden.sessions.map((s) => s.sessionId)).toEqual([out.fork.sessionId]);
    expect(out.all.sessions.find((s) => s.sessionId === out.sessionId)).toMatchObject({
      archived: true,
      title: 'From the SDK',
    });
  });

  it('v2: fork, status with the foreground state, set_title, archive', async () => {
    const { output, input } = builtInAgent();
    const cwd = tempDir('sdk-unstable-cwd-');
    const stream = v2.ndJsonStream(output, input);
    const client = v2.client({ name: 'sdk-v2-unstable' });
    const out = await client.connectWith(stream as unknown as Parameters<typeof client.connectWith>[0], async (cx) => {
      const init = await cx.request('initialize', {
        protocolVersion: 2,
        info: { name: 'sdk', version: '2' },
        capabilities: {},
      });
      const { sessionId } = await cx.request('session/new', { cwd });
      const fork = await cx.request('session/fork', { sessionId, cwd });
      const status = await cx.request('session/status', { sessionId });
      const title = await cx.request('session/set_title', { sessionId: fork.sessionId, title: 'Fork' });
      await cx.request('session/archive', { sessionId });
      const only = await cx.request('session/list', { archived: 'only' });
      return { init, sessionId, fork, status, title, only };
    });
    expect(out.init.capabilities?.session).toMatchObject({ fork: {}, archive: {}, status: {}, title: {} });
    expect(out.status).toEqual({ status: 'open', state: { state: 'idle' } });
    expect(out.title).toEqual({ title: 'Fork' });
    expect(out.only.sessions.map((s) => s.sessionId)).toEqual([out.sessionId]);
  });
});

describe('acp-kit client -> agents written with the SDK unstable agent APIs', () => {
  /** An SDK agent keeping titles and archive flags in memory, on the in-process streams given. */
  function sdkAgentV1(toAgent: PassThrough, fromAgent: PassThrough): void {
    const titles = new Map<string, string>();
    const archived = new Set<string>();
    let n = 0;
    v1.agent({ name: 'sdk-agent-v1' })
      .onRequest('initialize', () => ({
        protocolVersion: 1,
        agentCapabilities: { sessionCapabilities: { fork: {}, archive: {}, status: {}, title: {}, list: {} } },
        authMethods: [],
      }))
      .onRequest('session/new', () => ({ sessionId: `s${++n}` }))
      .onRequest('session/fork', ({ params }) => ({ sessionId: `${params.sessionId}-fork${++n}` }))
      .onRequest('session/set_title', ({ params }) => {
        titles.set(params.sessionId, params.title.toUpperCase());
        return { title: params.title.toUpperCase() };
      })
      .onRequest('session/status', () => ({ status: 'open' }))
      .onRequest('session/archive', ({ params }) => void archived.add(params.sessionId))
      .onRequest('session/unarchive', ({ params }) => void archived.delete(params.sessionId))
      .onRequest('session/list', ({ params }) => ({
        sessions: [...titles]
          .map(([sessionId, title]) => ({ sessionId, cwd: '/tmp', title, archived: archived.has(sessionId) }))
          .filter((s) => params.archived === 'include' || !s.archived),
      }))
      .onRequest('session/prompt', () => ({ stopReason: 'end_turn' }))
      .connect(
        v1.ndJsonStream(
          Writable.toWeb(fromAgent) as WritableStream<Uint8Array>,
          Readable.toWeb(toAgent) as ReadableStream<Uint8Array>,
        ),
      );
  }

  it('v1: the client methods send what the SDK agent accepts and read what it answers', async () => {
    const toAgent = new PassThrough();
    const fromAgent = new PassThrough();
    sdkAgentV1(toAgent, fromAgent);
    const conn = await connect({ transport: new StreamTransport(fromAgent, toAgent), protocol: 1 });
    conns.push(conn);
    const s = await conn.newSession({ cwd: '/tmp' });
    expect(await s.setTitle('shout')).toBe('SHOUT');
    const fork = await s.fork();
    expect(fork.sessionId).toMatch(new RegExp(`^${s.sessionId}-fork`));
    expect(await fork.status()).toEqual({ status: 'open' });
    await s.archive();
    expect(await conn.listAllSessions()).toEqual([]);
    expect((await conn.listAllSessions({ archived: 'include' }))[0]).toMatchObject({
      sessionId: s.sessionId,
      archived: true,
    });
    await conn.unarchiveSession(s.sessionId);
    expect((await conn.listAllSessions())[0]).toMatchObject({ sessionId: s.sessionId, archived: false });
  });
});
