// A reconnecting client whose connection drops in the middle of a turn, resuming after the turn
// ended while it was away (issue 24 item 10, a rolling restart in the middle of a turn). The
// turn's end is a live update, not history: a replay does not carry it, and the v2 snapshot says
// only `idle`. The cluster puts the stored end of the last turn in the snapshot's
// `_meta["acp-kit/lastTurn"]`; the reconnecting client resolves the waiting prompt with it and
// hands its listeners the turn's end once (before: `stopReason: null`, and no end at all).
// Real ClusterNode instances in this process on a real PostgreSQL, real WebSockets through a
// loopback relay the test cuts.
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { connectReconnecting, type ReconnectingConnection } from '../../client/src/index.js';
import type { AnySessionUpdate } from '../../protocol/src/index.js';
import { startClusterInstance, type ClusterInstance } from '../../../test/support/cluster-instance.js';
import { startCutProxy, type CutProxy } from '../../../test/support/cut-proxy.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { connectTapped, TOKEN, type TappedClient } from '../../../test/support/remote.js';
import { controlledAgent, type AgentControl } from '../../../test/support/shared-agent.js';

const turnEnds = (us: AnySessionUpdate[]): unknown[] =>
  us.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason).map((u) => u.stopReason);

const chunks = (us: AnySessionUpdate[]): string[] =>
  us.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []));

describePostgres('a reconnecting client resumes after its turn ended while it was away', () => {
  const db = usePostgres();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

  const instance = (id: string, control: AgentControl): Promise<ClusterInstance> =>
    startClusterInstance({ databaseUrl: db.url, id, control, leaseMs: 3000, cleanups });

  async function relay(target: ClusterInstance): Promise<CutProxy> {
    const proxy = await startCutProxy(target.server.port);
    cleanups.push(() => proxy.close());
    return proxy;
  }

  async function reconnecting(proxy: CutProxy): Promise<ReconnectingConnection> {
    const rc = await connectReconnecting({
      url: proxy.url.replace(/^http/, 'ws'),
      token: TOKEN,
      protocol: 2,
      reconnect: { attempts: 20, baseDelayMs: 20, maxDelayMs: 200 },
    });
    cleanups.push(() => rc.close());
    return rc;
  }

  async function client(url: string): Promise<TappedClient> {
    const c = await connectTapped(url, TOKEN);
    cleanups.push(() => c.conn.close());
    return c;
  }

  /** Resolves once the session's turn end `stopReason` is stored (a live row): the turn is over on the server. */
  async function stored(sessionId: string, stopReason: string): Promise<void> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const r = await c.query(
          `select 1 from acp_updates where session_id = $1 and live and body->>'sessionUpdate' = 'state_update' and body->>'stopReason' = $2`,
          [sessionId, stopReason],
        );
        if (r.rowCount) return;
        if (Date.now() > deadline) throw new Error(`no ${stopReason} end of ${sessionId} stored within 10 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await c.end();
    }
  }

  it('run here: the connection ends the turn `cancelled`; the resumed prompt resolves `cancelled` and the end is seen once', async () => {
    const control = controlledAgent();
    const one = await instance('node-1', control);
    const proxy = await relay(one);
    const rc = await reconnecting(proxy);
    const s = await rc.newSession({ cwd: '/tmp' });
    const updates: AnySessionUpdate[] = [];
    let sawChunks: () => void = () => undefined;
    const seen = new Promise<void>((r) => (sawChunks = r));
    s.onUpdate((u) => {
      updates.push(u);
      if (chunks(updates).length === 2) sawChunks();
    });
    const turn = s.prompt('gate:g:2');
    await control.reached('g');
    // the client holds part of the turn (running, two chunks), as a client streaming it does
    await seen;
    // the network goes down in the middle of the turn and comes back once the server ended it
    proxy.hold();
    proxy.cut();
    await stored(s.sessionId, 'cancelled');
    proxy.release();

    const r = await turn;
    expect(r.stopReason).toBe('cancelled');
    expect(turnEnds(updates)).toEqual(['cancelled']);
    expect(chunks(updates)).toEqual(['before0 ', 'before1 ']);
    // the session goes on, and the end is not delivered a second time
    expect((await s.prompt('say:again')).stopReason).toBe('end_turn');
    expect(turnEnds(updates)).toEqual(['cancelled', 'end_turn']);
    expect(s.state.messageList.at(-1)?.text).toBe('again ');
  });

  it('followed from another instance: the turn ended on the owner meanwhile; the follower snapshot names its end', async () => {
    const control = controlledAgent();
    const one = await instance('node-1', control);
    const two = await instance('node-2', control);
    const a = await client(one.url);
    const sa = await a.conn.newSession({ cwd: '/tmp' });
    const proxy = await relay(two);
    const rc = await reconnecting(proxy);
    const s = await rc.resumeSession(sa.sessionId, { cwd: '/tmp' });
    const updates: AnySessionUpdate[] = [];
    s.onUpdate((u) => void updates.push(u));
    const turn = s.prompt('gate:g:2');
    await control.reached('g');
    proxy.hold();
    proxy.cut();
    // the owner's client cancels the turn while the follower's client is away
    sa.cancel();
    await stored(sa.sessionId, 'cancelled');
    proxy.release();

    const r = await turn;
    expect(r.stopReason).toBe('cancelled');
    expect(turnEnds(updates)).toEqual(['cancelled']);
    expect((await s.prompt('say:again')).stopReason).toBe('end_turn');
    expect(turnEnds(updates)).toEqual(['cancelled', 'end_turn']);
  });
});
