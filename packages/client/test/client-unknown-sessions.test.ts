// Bounded memory for updates addressed to sessions the client does not know (issue 7.17): a
// flood of made-up session ids, or of updates for one id, keeps a bounded number of updates,
// decoders and ids, reports one problem per overflow, and the session being opened keeps its
// early updates. Closed session ids are remembered up to a bound too.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type ClientConnection, type ClientProblem } from '../src/index.js';
import { UpdateRouter } from '../src/update-router.js';
import { codecFor } from '../../protocol/src/codec/index.js';
import { JsonRpcPeer, StreamTransport } from '../../protocol/src/rpc/index.js';

const cleanup: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const chunk = (text: string) => ({
  sessionUpdate: 'agent_message_chunk',
  messageId: 'm1',
  content: { type: 'text', text },
});

/** A v2 agent peer on in-memory pipes; `flood` is sent before `session/new` answers. */
async function setup(flood: (agent: JsonRpcPeer) => void) {
  const toAgent = new PassThrough();
  const toClient = new PassThrough();
  const agent = new JsonRpcPeer(new StreamTransport(toAgent, toClient));
  agent.onRequest('initialize', () => ({
    protocolVersion: 2,
    info: { name: 'flood', version: '0' },
    capabilities: { session: {} },
    authMethods: [],
  }));
  agent.onRequest('session/new', async () => {
    flood(agent);
    // the session being opened: its early update must survive the flood before it
    agent.notify('session/update', { sessionId: 'real', update: chunk('kept') });
    return { sessionId: 'real' };
  });
  const problems: ClientProblem[] = [];
  const conn: ClientConnection = await connect({
    transport: new StreamTransport(toClient, toAgent),
    onProblem: (p) => problems.push(p),
  });
  cleanup.push(() => conn.close());
  return { conn, problems, router: () => (conn as unknown as { router: UpdateRouter }).router };
}

describe('updates for unknown sessions', () => {
  // 20k: 300 times the id bound and twice the update bound (100k cost five times the CPU, proving no more)
  it('20k updates for 20k unknown session ids: bounded retention, one reported problem, the opened session keeps its early update', async () => {
    const { conn, problems, router } = await setup((agent) => {
      for (let i = 0; i < 20_000; i++)
        agent.notify('session/update', { sessionId: `ghost-${i}`, update: chunk(`ghost ${i}`) });
    });
    const session = await conn.newSession({ cwd: '/w' });
    expect(session.state.message('agent', 'm1')!.text).toBe('kept');
    const r = router().retained;
    expect(r.unknownSessions).toBeLessThanOrEqual(64);
    expect(r.decoders).toBeLessThanOrEqual(64 + 1);
    expect(r.bufferedUpdates).toBeLessThanOrEqual(64);
    const overflow = problems.filter((p) => p.kind === 'unknown-session');
    expect(overflow).toHaveLength(1);
    expect(overflow[0].message).toMatch(/exceed the limit \(64 session ids, 10000 updates\)/);
  });

  it('updates beyond the total for one unknown id are dropped with one problem; a newer session id takes precedence', async () => {
    let during = -1;
    const { conn, problems, router } = await setup((agent) => {
      for (let i = 0; i < 25_000; i++) agent.notify('session/update', { sessionId: 'ghost', update: chunk('x') });
      // read back once the client has routed the flood (the answer comes after the notifications)
      agent.notify('_probe', {});
    });
    const peer = (conn as unknown as { peer: JsonRpcPeer }).peer;
    peer.onNotification('_probe', () => void (during = router().retained.bufferedUpdates));
    const session = await conn.newSession({ cwd: '/w' });
    expect(during).toBe(10_000);
    // 'real' needed room: the older unknown buffer went, the opened session got its update
    expect(session.state.message('agent', 'm1')!.text).toBe('kept');
    expect(router().retained.bufferedUpdates).toBe(0);
    const overflow = problems.filter((p) => p.kind === 'unknown-session');
    expect(overflow.map((p) => p.message)).toEqual([
      'more than 10000 updates buffered for unknown session ghost; dropping the rest until it is opened',
    ]);
  });

  it('updates sent before the initialize answer are bounded too (one problem, the rest dropped)', async () => {
    const toAgent = new PassThrough();
    const toClient = new PassThrough();
    const agent = new JsonRpcPeer(new StreamTransport(toAgent, toClient));
    agent.onRequest('initialize', () => {
      for (let i = 0; i < 12_000; i++) agent.notify('session/update', { sessionId: 'pre', update: chunk('x') });
      return {
        protocolVersion: 2,
        info: { name: 'early', version: '0' },
        capabilities: { session: {} },
        authMethods: [],
      };
    });
    const problems: ClientProblem[] = [];
    const conn = await connect({
      transport: new StreamTransport(toClient, toAgent),
      onProblem: (p) => problems.push(p),
      maxBufferedUpdates: 5000,
    });
    cleanup.push(() => conn.close());
    // the updates are read before the answer, so they were routed by the time connect resolved
    const r = (conn as unknown as { router: UpdateRouter }).router.retained;
    expect(r.bufferedUpdates).toBe(5000);
    expect(problems.map((p) => p.message)).toEqual([
      'too many session/update notifications before the initialize response; dropping the rest',
    ]);
  });

  it('remembers at most 1024 closed session ids, the most recent ones', () => {
    const problems: ClientProblem[] = [];
    const router = new UpdateRouter(codecFor(2), (p) => problems.push(p), 10_000);
    for (let i = 0; i < 5000; i++) router.release(`closed-${i}`);
    expect(router.retained.closedIds).toBe(1024);
    router.route({ sessionId: 'closed-4999', update: chunk('late') });
    expect(problems.map((p) => p.message)).toEqual(['session/update for closed session closed-4999 ignored']);
    // the oldest was forgotten: its late update is buffered (bounded) like any unknown id's
    router.route({ sessionId: 'closed-0', update: chunk('late') });
    expect(router.retained.bufferedUpdates).toBe(1);
  });
});
