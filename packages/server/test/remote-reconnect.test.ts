// Reconnect without loss (issue 13 item 3): a client whose connection drops (socket destroyed,
// SSE stream cut, server restarted) reconnects with bounded backoff, resumes its sessions with a
// replay, and ends with the same transcript as an uninterrupted client: no loss, no duplicate.
import { afterEach, describe, expect, it } from 'vitest';
import {
  connect,
  connectReconnecting,
  ReconnectFailedError,
  type ClientConnection,
  type ReconnectingConnection,
  type SessionState,
} from '../../client/src/index.js';
import { InMemorySessionStore } from '../../agent/src/session-store.js';
import { AcpError } from '../../protocol/src/index.js';
import { inProcessAgent, type AcpServer, type AgentHostFactory } from '../src/index.js';
// @ts-expect-error plain ESM fixture without type declarations
import { createE2EAgent } from '../../../test/fixtures/e2e-agent-definition.mjs';
import { startCutProxy, type CutProxy } from '../../../test/support/cut-proxy.js';
import { startE2EServer, TOKEN } from '../../../test/support/remote.js';
import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp.js';

let servers: AcpServer[] = [];
let proxy: CutProxy | undefined;
const clients: (ClientConnection | ReconnectingConnection)[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await proxy?.close();
  proxy = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close(1000)));
});

/** A turn of `n` chunks (messageId `m`), pausing every 10 without watching cancel: it runs on after a drop. */
function slowChunks(n: number): string {
  const actions: unknown[] = [];
  for (let i = 0; i < n; i++) {
    actions.push({
      send: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: `c${i} ` } },
    });
    if (i % 10 === 9) actions.push({ sleepIgnoringCancel: 2 });
  }
  return JSON.stringify({ actions });
}

/** What the user reads: each message's role, id and text, and each tool call, in order. */
function transcript(state: SessionState): unknown {
  // (ids are the agent's to mint: a new connection mints others for echo messages)
  return state.messageList.map((m) => ({ role: m.role, text: m.text }));
}

/** The e2e agent over a session store the test can read (and that outlives a server). */
function e2eAgentWithStore(store: InMemorySessionStore): AgentHostFactory {
  return inProcessAgent(
    () =>
      createE2EAgent({
        AcpError,
        peer: () => {
          throw new Error('no raw peer in remote tests');
        },
        log: () => undefined,
        env: {},
      }),
    { storeFor: () => store },
  );
}

/** Resolves once the store holds the last chunk of a {@link slowChunks} turn of `n` (the server keeps no stop reasons). */
async function turnEnded(store: InMemorySessionStore, sessionId: string, n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  const last = `c${n - 1} `;
  for (;;) {
    const stored = await store.load(sessionId);
    const u = stored?.updates.at(-1);
    if (u?.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text === last) return;
    if (Date.now() > deadline) throw new Error(`the turn of ${sessionId} did not end on the server within 10 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const asWs = (url: string): string => url.replace(/^http/, 'ws');

// A prompt written into a WebSocket whose far end is already gone never reaches the agent: the
// reconnecting client sends it again after the resume (it used to report the turn as ended, with
// stop reason null, and the prompt was lost). Over HTTP each POST opens its own request, so a cut
// loses no prompt there.
it('websocket: a prompt sent as the connection drops runs once after the resume', async () => {
  const store = new InMemorySessionStore();
  const server = await startE2EServer({ agent: e2eAgentWithStore(store) });
  servers.push(server);
  proxy = await startCutProxy(server.port);
  const rc = await connectReconnecting({
    url: asWs(proxy.url),
    token: TOKEN,
    reconnect: { attempts: 5, baseDelayMs: 20, maxDelayMs: 200 },
  });
  clients.push(rc);
  const s = await rc.newSession({ cwd: '/tmp' });
  expect((await s.prompt('one')).stopReason).toBe('end_turn');
  // the socket is gone before the client can notice: the prompt goes into the void
  proxy.cut();
  expect((await s.prompt('two')).stopReason).toBe('end_turn');
  // (v2 stores each prompt as one user_message with its blocks)
  const userTexts = (updates: readonly { sessionUpdate: string; content?: unknown }[]): string[] =>
    updates
      .filter((u) => u.sessionUpdate === 'user_message')
      .map((u) => (u.content as { text?: string }[]).map((b) => b.text ?? '').join(''));
  // the agent took each prompt once, in order
  expect(userTexts((await store.load(s.sessionId))!.updates)).toEqual(['one', 'two']);
  expect(s.state.messageList.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['one', 'two']);
});

// Over HTTP the transport itself resumes a cut event stream (Last-Event-ID, issue 25 item 4): the
// connection never drops, so there is no reconnect and the turn ends as it would have.
describe.each([
  ['websocket (socket destroyed)', asWs, false],
  ['http (SSE stream cut)', (u: string) => u, true],
] as const)('%s', (_name, urlOf, streamResumes) => {
  it('v2: a drop mid-turn loses nothing and duplicates nothing (listeners and state)', async () => {
    const store = new InMemorySessionStore();
    const server = await startE2EServer({ agent: e2eAgentWithStore(store) });
    servers.push(server);
    proxy = await startCutProxy(server.port);
    const rc = await connectReconnecting({
      url: urlOf(proxy.url),
      token: TOKEN,
      reconnect: { attempts: 5, baseDelayMs: 20, maxDelayMs: 200 },
    });
    clients.push(rc);
    expect(rc.connection.protocolVersion).toBe(2);
    const events: string[] = [];
    rc.on('disconnected', () => events.push('disconnected'));
    rc.on('reconnecting', (e) => events.push(`reconnecting ${e.attempt}/${e.attempts} after ${e.delayMs}ms`));
    rc.on('reconnected', (e) => events.push(`reconnected ${e.attempt}`));
    const s = await rc.newSession({ cwd: '/tmp' });
    // what a UI would render from the update stream alone
    let streamed = '';
    let cut: Promise<void> | undefined;
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'agent_message_chunk' && u.messageId === 'm' && u.content.type === 'text')
        streamed += u.content.text;
      if (!cut && streamed.length > 400) {
        // the network goes down mid-turn, and comes back once the turn has ended on the server
        // (the turn ignores the cancel the server sends when its connection closes)
        proxy!.hold();
        proxy!.cut();
        cut = turnEnded(store, s.sessionId, 400).then(() => proxy!.release());
      }
    });
    const r = await s.prompt(slowChunks(400));
    expect(cut).toBeDefined();
    await cut;
    expect(events).toEqual(streamResumes ? [] : ['disconnected', 'reconnecting 1/5 after 20ms', 'reconnected 1']);
    const full = Array.from({ length: 400 }, (_, i) => `c${i} `).join('');

    // a direct run of the same prompt on an uninterrupted connection
    const direct = await connect({ url: urlOf(server.url), token: TOKEN });
    clients.push(direct);
    const d = await direct.newSession({ cwd: '/tmp' });
    const dr = await d.prompt(slowChunks(400));
    expect(dr.stopReason).toBe('end_turn');
    expect(transcript(s.state)).toEqual(transcript(d.state));
    expect(s.state.message('agent', 'm')!.text).toBe(full);
    // the listener saw every chunk exactly once, across the drop
    expect(streamed).toBe(full);
    // the turn was over on the server when the session was resumed, and the server keeps no stop
    // reasons in its history: the prompt ends with the resumed state (idle), its stop reason unknown;
    // a resumed event stream hands over the turn's own answer
    expect(r).toEqual(streamResumes ? { stopReason: 'end_turn', userMessageId: 'user-1' } : { stopReason: null });
    expect(s.state.foreground.state).toBe('idle');
    // and the session goes on: a prompt after the reconnect works
    expect((await s.prompt('after')).stopReason).toBe('end_turn');
    expect(s.state.messageList.at(-1)!.text).toBe('echo: after');
  });

  it('v2: a drop between turns: the transcript equals an uninterrupted run of the same prompts', async () => {
    const server = await startE2EServer();
    servers.push(server);
    proxy = await startCutProxy(server.port);
    const rc = await connectReconnecting({ url: urlOf(proxy.url), token: TOKEN, reconnect: { baseDelayMs: 10 } });
    clients.push(rc);
    const s = await rc.newSession({ cwd: '/tmp' });
    let chunks = 0;
    s.onUpdate((u) => {
      if (u.sessionUpdate === 'agent_message_chunk') chunks++;
    });
    expect((await s.prompt('one')).stopReason).toBe('end_turn');
    const reconnected = new Promise((resolve) => rc.on('reconnected', resolve));
    proxy.cut();
    if (!streamResumes) await reconnected;
    expect((await s.prompt('two')).stopReason).toBe('end_turn');

    const direct = await connect({ url: urlOf(server.url), token: TOKEN });
    clients.push(direct);
    const d = await direct.newSession({ cwd: '/tmp' });
    await d.prompt('one');
    await d.prompt('two');
    expect(transcript(s.state)).toEqual(transcript(d.state));
    expect(transcript(s.state)).toHaveLength(4);
    // the replay of turn one was not delivered a second time
    expect(chunks).toBe(2);
  });
});

it('v1: the connection re-loads its sessions (session/load) and keeps one copy of each message', async () => {
  const server = await startE2EServer();
  servers.push(server);
  proxy = await startCutProxy(server.port);
  const rc = await connectReconnecting({
    url: asWs(proxy.url),
    token: TOKEN,
    protocol: 1,
    reconnect: { baseDelayMs: 10 },
  });
  clients.push(rc);
  expect(rc.connection.protocolVersion).toBe(1);
  const s = await rc.newSession({ cwd: '/tmp' });
  const seen: string[] = [];
  s.onUpdate((u) => {
    if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') seen.push(u.content.text);
  });
  await s.prompt('one');
  const reconnected = new Promise((resolve) => rc.on('reconnected', resolve));
  proxy.cut();
  await reconnected;
  await s.prompt('two');
  expect(s.state.messageList.map((m) => m.text)).toEqual(['one', 'echo: one', 'two', 'echo: two']);
  expect(seen).toEqual(['echo: one', 'echo: two']);
});

it('a server restarted on the same port: the sessions resume from its store', async () => {
  // a store that outlives the server (as `acp-kit serve` keeps sessions on disk)
  const agent = e2eAgentWithStore(new InMemorySessionStore());
  // two tokens: who owns a session must outlive the server too, or its sessions are nobody's
  const ownersFile = join(tempDir('acp-reconnect-owners-'), 'owners.json');
  const a = await startE2EServer({ agent, ownersFile });
  servers.push(a);
  const rc = await connectReconnecting({
    url: asWs(a.url),
    token: TOKEN,
    reconnect: { attempts: 8, baseDelayMs: 20, maxDelayMs: 100 },
  });
  clients.push(rc);
  const s = await rc.newSession({ cwd: '/tmp' });
  await s.prompt('before');
  const reconnected = new Promise((resolve) => rc.on('reconnected', resolve));
  await a.close(1000);
  servers = [];
  const b = await startE2EServer({ agent, port: a.port, ownersFile });
  servers.push(b);
  await reconnected;
  expect((await s.prompt('after')).stopReason).toBe('end_turn');
  expect(s.state.messageList.map((m) => m.text)).toEqual(['before', 'echo: before', 'after', 'echo: after']);
});

it('a server that never comes back: bounded attempts with backoff, then a clear error', async () => {
  const server = await startE2EServer();
  servers.push(server);
  proxy = await startCutProxy(server.port);
  const rc = await connectReconnecting({
    url: asWs(proxy.url),
    token: TOKEN,
    reconnect: { attempts: 3, baseDelayMs: 10, maxDelayMs: 25 },
  });
  clients.push(rc);
  const s = await rc.newSession({ cwd: '/tmp' });
  const delays: number[] = [];
  rc.on('reconnecting', (e) => delays.push(e.delayMs));
  const failed = new Promise<ReconnectFailedError>((resolve) => rc.on('failed', resolve));
  // the server goes away for good: nothing listens behind the relay any more
  await server.close(1000);
  servers = [];
  proxy.cut();
  const err = await failed;
  expect(delays).toEqual([10, 20, 25]);
  expect(err).toBeInstanceOf(ReconnectFailedError);
  expect(err.message).toMatch(
    /could not reconnect in 3 attempts \(last error: .+\): check that the server is running and reachable, then connect again/,
  );
  expect(s.closed).toBe(true);
  await expect(s.prompt('hello')).rejects.toBe(err);
  await expect(rc.newSession({ cwd: '/tmp' })).rejects.toBe(err);
});

it('a server restarted without the session: the session is reported lost and its prompt rejects', async () => {
  const a = await startE2EServer();
  servers.push(a);
  const rc = await connectReconnecting({
    url: asWs(a.url),
    token: TOKEN,
    reconnect: { attempts: 8, baseDelayMs: 20, maxDelayMs: 100 },
  });
  clients.push(rc);
  const s = await rc.newSession({ cwd: '/tmp' });
  await s.prompt('before');
  const lost = new Promise<{ sessionId: string; error: Error }>((resolve) => rc.on('sessionLost', resolve));
  const reconnected = new Promise((resolve) => rc.on('reconnected', resolve));
  await a.close(1000);
  servers = [];
  // a new server on the same port, with a new (empty) store
  const b = await startE2EServer({ port: a.port });
  servers.push(b);
  const { sessionId, error } = await lost;
  await reconnected;
  expect(sessionId).toBe(s.sessionId);
  expect(error.message).toMatch(/not found|unknown/i);
  expect(s.closed).toBe(true);
  expect(rc.sessions.size).toBe(0);
  await expect(s.prompt('after')).rejects.toBe(error);
  // the connection itself is fine: a new session works
  const fresh = await rc.newSession({ cwd: '/tmp' });
  expect((await fresh.prompt('hi')).stopReason).toBe('end_turn');
});
