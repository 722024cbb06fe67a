// The database going away under a cluster (docs/postgres-cluster.md): two ClusterNode instances in
// this process, each with its own pool reaching the one real PostgreSQL database through a TCP relay
// of its own (test/support/cut-proxy.ts) that the test cuts and holds, each behind startAcpServer with
// real WebSockets; client A on instance 1 (the owner), client B on instance 2 (a follower).
// - Both instances lose the database for less than the lease and the store's retryForMs: the turn
//   rides it out (appends retried), nothing lost or doubled, no takeover.
// - The owner alone loses it for longer than its lease: instance 2 takes the session over and ends
//   the turn; the stalled owner's writes, retried once the database is back, fail loudly (its turn
//   ends -32011 for A, A's next prompt is refused) and none of them lands in the table after the
//   takeover: B sees the turn end once, with the takeover's reason.
// - A follower's instance cannot reach it: its client's prompt is refused -32011 naming the store.
// - The owner loses it while the session is idle and is taken over: the new owner writes nothing, so
//   only the lease tells the stalled owner's writes apart (the store is fenced by it): A's next
//   prompt is refused naming the new owner, nothing of it lands in the table, B goes on.
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { SESSION_STORE_UNAVAILABLE } from '../../agent/src/session-store.js';
import { OWNER_STOPPED } from '../src/index.js';
import {
  ownerAndFollower,
  startClusterInstance,
  type ClusterInstance,
} from '../../../test/support/cluster-instance.js';
import { startCutProxy, type CutProxy } from '../../../test/support/cut-proxy.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { connectTapped, TOKEN, type TappedClient } from '../../../test/support/remote.js';
import type { AgentControl } from '../../../test/support/shared-agent.js';

interface Instance extends ClusterInstance {
  /** the relay between this instance's pool (and LISTEN connection) and the database */
  proxy: CutProxy;
  /** what the instance and its agent logged */
  log: string[];
}

interface Row {
  seq: number;
  live: boolean;
  body: any;
}

/** A resume's idle snapshot, naming how the last turn ended (`_meta`, docs/deploy.md). */
const idleAfter = (lastTurn: object) => ({
  sessionUpdate: 'state_update',
  state: 'idle',
  _meta: { 'acp-kit/lastTurn': lastTurn },
});

const chunkTexts = (us: any[]): string[] =>
  us.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);
const turnEnds = (us: any[]): any[] =>
  us.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason);
/** A v2 replay without its primers (an empty whole message before each message's first chunk, ACP-V2-RESUME-04): the stored updates. */
const withoutPrimers = (us: any[]): any[] =>
  us.filter((u) => !(u.sessionUpdate === 'agent_message' && Array.isArray(u.content) && u.content.length === 0));
const until = async (cond: () => boolean, what: string, ms = 8000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describePostgres('a database outage with two cluster instances and a follower', () => {
  const db = usePostgres();
  const proxies: CutProxy[] = [];
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    // a test that failed with a relay held: let everything through first, so the stores flush and the pools end
    for (const p of proxies.splice(0)) p.release();
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

  async function instance(
    id: string,
    control: AgentControl,
    opts: { leaseMs: number; retryForMs: number },
  ): Promise<Instance> {
    const target = new URL(db.url);
    const proxy = await startCutProxy(Number(target.port));
    proxies.push(proxy);
    cleanups.push(() => proxy.close());
    target.port = String(proxy.port);
    const log: string[] = [];
    const started = await startClusterInstance({
      databaseUrl: target.toString(),
      id,
      control,
      leaseMs: opts.leaseMs,
      retryForMs: opts.retryForMs,
      log,
      cleanups,
    });
    return { ...started, proxy, log };
  }

  async function client(url: string): Promise<TappedClient> {
    const c = await connectTapped(url, TOKEN);
    cleanups.push(() => c.conn.close());
    return c;
  }

  /** Runs `sql` on a connection of its own, straight to the database (not through a relay). */
  async function query<T extends object>(sql: string, params: unknown[]): Promise<T[]> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<T>(sql, params)).rows;
    } finally {
      await c.end();
    }
  }

  const rowsOf = async (sessionId: string): Promise<Row[]> =>
    (
      await query<{ seq: string; live: boolean; body: unknown }>(
        'select seq, live, body from acp_updates where session_id = $1 order by seq',
        [sessionId],
      )
    ).map((r) => ({
      seq: Number(r.seq),
      live: r.live,
      body: r.body,
    }));

  /** Two instances, A on instance 1 creates the session (instance 1 owns it), B follows it through instance 2. */
  const shared = (opts: { leaseMs: number; retryForMs: number }) =>
    ownerAndFollower((id, control) => instance(id, control, opts), client);

  it('a short outage of both instances mid-turn is ridden out: the turn ends end_turn, A and B see the same updates once each, a replay equals the table', async () => {
    const { control, one, two, a, sa, b, sb } = await shared({ leaseMs: 1500, retryForMs: 5000 });
    const idleB = sb.nextIdle();
    const turn = sa.prompt('gate:g:2');
    await control.reached('g');
    // both clients have the chunks before the gate (committed: they are sent only then)
    await until(
      () => chunkTexts(a.updates).length === 2 && chunkTexts(b.updates).length === 2,
      'the chunks before the gate on A and B',
    );
    const accepted = [one.proxy.accepted, two.proxy.accepted];
    for (const p of [one.proxy, two.proxy]) {
      p.hold();
      p.cut();
    }
    control.open('g');
    // the owner's store writes the rest of the turn over a new connection (held), and the follower
    // instance reconnects (its LISTEN connection and its poll): both wait for the database
    await until(
      () => one.proxy.accepted > accepted[0] && two.proxy.accepted > accepted[1],
      'both instances trying to reconnect',
    );
    // nothing of the rest of the turn could be committed, so nothing of it was sent
    expect(chunkTexts(a.updates)).toHaveLength(2);
    for (const p of [one.proxy, two.proxy]) p.release();

    expect((await turn).stopReason).toBe('end_turn');
    expect((await idleB).stopReason).toBe('end_turn');
    // A and B: the same updates in the same order (B's first one is its resume's state snapshot), each chunk once
    expect(b.updates[0]).toEqual({ sessionUpdate: 'state_update', state: 'idle' });
    expect(b.updates.slice(1)).toEqual(a.updates);
    expect(chunkTexts(a.updates)).toEqual(['before0 ', 'before1 ', 'after0 ', 'after1 ']);
    expect(turnEnds(b.updates)).toEqual([{ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }]);

    // the table: gap-free, no takeover (the lease stayed with instance 1), the turn's rows once each
    const rows = await rowsOf(sa.sessionId);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.some((r) => r.body.error?.code === OWNER_STOPPED)).toBe(false);
    expect(await query('select owner from acp_leases where session_id = $1', [sa.sessionId])).toEqual([
      { owner: 'node-1' },
    ]);
    const history = rows.filter((r) => !r.live).map((r) => r.body);
    expect(chunkTexts(history)).toEqual(['before0 ', 'before1 ', 'after0 ', 'after1 ']);
    // what A and B were sent live is the table's rows (the prompt's stored user message is echoed by its live row)
    expect(rows.filter((r) => r.live || r.body.sessionUpdate !== 'user_message').map((r) => r.body)).toEqual(a.updates);

    // a fresh client resuming with replay through instance 2: exactly the stored history, then the state
    const c = await client(two.url);
    await c.conn.resumeSession(sa.sessionId, { cwd: '/tmp', replay: true });
    expect(withoutPrimers(c.updates)).toEqual([...history, idleAfter({ stopReason: 'end_turn' })]);
  });

  it.each([
    // the takeover appends one row (the end of the turn): a stalled write of as many rows looked like
    // its own retried, committed batch, so the stalled owner went on writing into the taken session
    ['one row', 1],
    ['two rows', 2],
  ])(
    'the owner alone loses the database for longer than its lease (stalled write of %s): instance 2 takes over and ends the turn once for B; the stalled owner fails loudly for A and writes nothing after the takeover',
    async (_what, n) => {
      const LEASE_MS = 1000;
      // the stalled owner is still retrying its writes when the database comes back after the takeover
      const { control, one, two, a, sa, b, sb } = await shared({ leaseMs: LEASE_MS, retryForMs: 6000 });
      const turn = sa.prompt(`gate:g:${n}`);
      await control.reached('g');
      await until(
        () => chunkTexts(a.updates).length === n && chunkTexts(b.updates).length === n,
        'the chunks before the gate on A and B',
      );
      const before = await rowsOf(sa.sessionId);
      const idleB = sb.nextIdle();
      const cutAt = Date.now();
      one.proxy.hold();
      one.proxy.cut();
      // the turn goes on on the stalled owner: its writes wait for the database
      control.open('g');

      // B: after the lease, instance 2 takes the session over and ends the turn, with the reason
      const endB = await idleB;
      expect(Date.now() - cutAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
      expect(endB).toEqual({
        sessionUpdate: 'state_update',
        state: 'idle',
        stopReason: 'error',
        error: {
          code: OWNER_STOPPED,
          message: 'the instance that ran the turn (node-1) stopped (lease expired)',
          data: { owner: 'node-1' },
        },
      });
      expect(await query('select owner from acp_leases where session_id = $1', [sa.sessionId])).toEqual([
        { owner: 'node-2' },
      ]);
      const takeover = await rowsOf(sa.sessionId);
      expect(takeover.slice(0, before.length)).toEqual(before);
      expect(takeover.slice(before.length).map((r) => r.body)).toEqual([endB]);

      // the database comes back for instance 1: its retried writes find the session taken over
      one.proxy.release();
      // A is told: its turn ends with the store's reason, not end_turn, and it does not hang
      const endA = await turn;
      expect(endA).toMatchObject({
        stopReason: 'error',
        error: {
          code: SESSION_STORE_UNAVAILABLE,
          message: expect.stringMatching(/is run by instance node-2 now \(instance node-1 lost its lease/),
        },
      });
      // A saw only what is stored: nothing of the stalled part of the turn
      expect(chunkTexts(a.updates)).toEqual(chunkTexts(before.filter((r) => !r.live).map((r) => r.body)));
      expect(turnEnds(a.updates)).toEqual([
        { sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: endA.error },
      ]);
      // and the stalled instance writes no more to the session: A's next prompt is refused, loudly
      await expect(sa.prompt('say:from-a')).rejects.toMatchObject({ code: SESSION_STORE_UNAVAILABLE });
      // the lease loop notices on its next renewal (every third of the lease), independently of the write
      await until(
        () => one.log.some((l) => l.includes(`lost the lease of session ${sa.sessionId}`)),
        'the stalled owner logging that it lost the lease',
      );

      // the table after all that: nothing of the stalled owner after the takeover's row
      expect(await rowsOf(sa.sessionId)).toEqual(takeover);

      // the session goes on for B, run by instance 2; B's updates are complete through its next turn's
      // end (rows are delivered in seq order): the turn ended once, nothing doubled or lost
      expect((await sb.prompt('say:next')).stopReason).toBe('end_turn');
      const rows = await rowsOf(sa.sessionId);
      expect(rows.slice(0, takeover.length)).toEqual(takeover);
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      expect(b.updates[0]).toEqual({ sessionUpdate: 'state_update', state: 'idle' });
      expect(b.updates.slice(1)).toEqual(
        rows.filter((r) => r.live || r.body.sessionUpdate !== 'user_message').map((r) => r.body),
      );
      expect(turnEnds(b.updates)).toEqual([
        endB,
        { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' },
      ]);
      expect(chunkTexts(b.updates)).toEqual([...chunkTexts(a.updates), 'next ']);

      // a replay through instance 2 (now the owner): the table's history
      const c = await client(two.url);
      await c.conn.resumeSession(sa.sessionId, { cwd: '/tmp', replay: true });
      expect(withoutPrimers(c.updates)).toEqual([
        ...rows.filter((r) => !r.live).map((r) => r.body),
        idleAfter({ stopReason: 'end_turn' }),
      ]);
    },
  );

  it('an idle session taken over while its owner had lost the database: the stalled owner writes nothing more into it (fenced by the lease), A is refused naming the new owner, B goes on', async () => {
    const { one, a: _a, sa, b, sb } = await shared({ leaseMs: 1000, retryForMs: 2000 });
    expect((await sa.prompt('say:first')).stopReason).toBe('end_turn');
    await until(() => turnEnds(b.updates).length === 1, "the first turn's end on B");
    const before = await rowsOf(sa.sessionId);
    one.proxy.hold();
    one.proxy.cut();
    // instance 2 follows the session: its poll finds the lease expired and takes the session over
    for (const deadline = Date.now() + 8000; ;) {
      const [lease] = await query<{ owner: string }>('select owner from acp_leases where session_id = $1', [
        sa.sessionId,
      ]);
      if (lease?.owner === 'node-2') break;
      if (Date.now() > deadline) throw new Error('instance 2 did not take the session over');
      await new Promise((r) => setTimeout(r, 20));
    }
    // an idle session: the takeover wrote nothing the stalled owner's next write could collide with
    expect(await rowsOf(sa.sessionId)).toEqual(before);
    one.proxy.release();

    // A prompts through the stalled instance, which still has the session open: refused, loudly
    await expect(sa.prompt('say:from-a')).rejects.toMatchObject({
      code: SESSION_STORE_UNAVAILABLE,
      message: expect.stringMatching(/is run by instance node-2 now/),
    });
    expect(await rowsOf(sa.sessionId)).toEqual(before);
    // B's session goes on, run by instance 2, with nothing of A's refused prompt
    expect((await sb.prompt('say:from-b')).stopReason).toBe('end_turn');
    const rows = await rowsOf(sa.sessionId);
    expect(rows.slice(0, before.length)).toEqual(before);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(
      rows.filter((r) => !r.live && r.body.sessionUpdate === 'user_message').map((r) => r.body.content[0].text),
    ).toEqual(['say:first', 'say:from-b']);
    expect(chunkTexts(b.updates)).toEqual(['first ', 'from-b ']);
    expect(turnEnds(b.updates).map((u) => u.stopReason)).toEqual(['end_turn', 'end_turn']);
  });

  it("an outage longer than the store retries, mid-turn, on both instances: the turn ends with the store's error; afterwards a second client resumes through the owner instance (while A is still attached) and through instance 2, both with the stored history, and prompts", async () => {
    // issue 24 item 5: the owner's failed runtime stayed registered, and every resume joining it read
    // the history 20 times and answered -32603 "kept changing while its history was read"
    const { control, one, two, a, sa, b } = await shared({ leaseMs: 30_000, retryForMs: 800 });
    const turn = sa.prompt('gate:g:2');
    await control.reached('g');
    await until(
      () => chunkTexts(a.updates).length === 2 && chunkTexts(b.updates).length === 2,
      'the chunks before the gate on A and B',
    );
    // the database is down: connections are refused at once (nothing listens where the relays point)
    for (const p of [one.proxy, two.proxy]) {
      p.retarget(1);
      p.cut();
    }
    control.open('g');
    // the owner's writes give up after retryForMs: the turn ends with the store's reason
    expect(await turn).toMatchObject({ stopReason: 'error', error: { code: SESSION_STORE_UNAVAILABLE } });
    for (const p of [one.proxy, two.proxy]) p.retarget(Number(new URL(db.url).port));
    const history = (await rowsOf(sa.sessionId)).filter((r) => !r.live).map((r) => r.body);
    expect(chunkTexts(history)).toEqual(['before0 ', 'before1 ']);

    // a second client on the owner instance, A still attached there
    const c = await client(one.url);
    const sc = await c.conn.resumeSession(sa.sessionId, { cwd: '/tmp', replay: true });
    const storeFailed = idleAfter({
      stopReason: 'error',
      error: expect.objectContaining({ code: SESSION_STORE_UNAVAILABLE }),
    });
    // the end of a turn whose store failed is stored by this resume, after it read the history: its
    // snapshot cannot name it yet (the next resume's does)
    expect(withoutPrimers(c.updates)).toEqual([...history, { sessionUpdate: 'state_update', state: 'idle' }]);
    // and one through instance 2
    const d = await client(two.url);
    await d.conn.resumeSession(sa.sessionId, { cwd: '/tmp', replay: true });
    expect(withoutPrimers(d.updates)).toEqual([...history, storeFailed]);
    // the session is usable again through the owner instance
    expect((await sc.prompt('say:again')).stopReason).toBe('end_turn');
    const rows = await rowsOf(sa.sessionId);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(chunkTexts(rows.filter((r) => !r.live).map((r) => r.body))).toEqual(['before0 ', 'before1 ', 'again ']);
    // B (following through instance 2) saw the failed turn end once (its end was stored on reopening), then the next turn
    await until(() => turnEnds(b.updates).length === 2, "both turns' ends on B");
    expect(turnEnds(b.updates).map((u) => [u.stopReason, u.error?.code])).toEqual([
      ['error', SESSION_STORE_UNAVAILABLE],
      ['end_turn', undefined],
    ]);
    // A, still on the failed runtime, is refused until it resumes; then it shares the reopened session
    await expect(sa.prompt('say:from-a')).rejects.toMatchObject({ code: SESSION_STORE_UNAVAILABLE });
    const sa2 = await a.conn.resumeSession(sa.sessionId, { cwd: '/tmp' });
    expect((await sa2.prompt('say:from-a')).stopReason).toBe('end_turn');
    await until(() => chunkTexts(c.updates).includes('from-a '), "A's turn on C");
  });

  it("a follower's instance that cannot reach the database refuses its client's prompt and a resume naming the store (-32011), not with an opaque -32603", async () => {
    const { two, sb } = await shared({ leaseMs: 1500, retryForMs: 2000 });
    // instance 2's connections now end at once: nothing listens where its relay points
    two.proxy.retarget(1);
    two.proxy.cut();
    await expect(sb.prompt('say:x')).rejects.toMatchObject({
      code: SESSION_STORE_UNAVAILABLE,
      message: expect.stringMatching(
        new RegExp(
          `the session store \\(PostgreSQL at 127\\.0\\.0\\.1:${two.proxy.port}\\) is unreachable from instance node-2: .+`,
        ),
      ),
    });
    // and a client resuming the session through it: the same, not an opaque -32603
    const c = await client(two.url);
    await expect(c.conn.resumeSession(sb.sessionId, { cwd: '/tmp' })).rejects.toMatchObject({
      code: SESSION_STORE_UNAVAILABLE,
      message: expect.stringMatching(/is unreachable from instance node-2/),
    });
    two.proxy.retarget(Number(new URL(db.url).port));
  });
});
