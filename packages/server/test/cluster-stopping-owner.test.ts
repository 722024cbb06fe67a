// A follower's prompt that reaches a session's owner while the owner stops cleanly (a rolling
// restart: serve's SIGTERM calls ClusterNode.beginStop, closes its server, then gives its leases
// back). The stopping owner turns it away instead of starting a turn its own stop would cancel; the
// follower's instance waits for the lease and runs it as the next owner. Two ClusterNode instances in
// this process on a real PostgreSQL database, each behind startAcpServer with real WebSockets.
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import {
  ownerAndFollower,
  startClusterInstance,
  type ClusterInstance,
} from '../../../test/support/cluster-instance.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { connectTapped, TOKEN, type TappedClient } from '../../../test/support/remote.js';
import type { AgentControl } from '../../../test/support/shared-agent.js';

const turnEnds = (us: any[]): string[] =>
  us.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason).map((u) => u.stopReason);

describePostgres('a follower prompting while the owner stops cleanly', () => {
  const db = usePostgres();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  });

  const instance = (id: string, control: AgentControl): Promise<ClusterInstance> =>
    startClusterInstance({ databaseUrl: db.url, id, control, leaseMs: 3000, cleanups });

  async function client(url: string): Promise<TappedClient> {
    const c = await connectTapped(url, TOKEN);
    cleanups.push(() => c.conn.close());
    return c;
  }

  /** Two instances, A on node 1 creates the session (node 1 owns it), B follows it through node 2. */
  const shared = () => ownerAndFollower(instance, client);

  it('the stopping owner turns the prompt away; the follower runs it as the next owner, and the stop does not wait for it', async () => {
    const { control, one, a: _a, sa, b, sb } = await shared();
    // A's turn takes 1.5 s to stop once cancelled: the owner's stop is under way for that long
    const turnA = sa.prompt('gate:g:1:1500');
    await control.reached('g');
    const firstEnd = sb.nextIdle();
    one.node.beginStop();
    let stopped = false;
    const stopping = one.server
      .close(5000)
      .then(() => one.node.stop())
      .then(() => (stopped = true));

    // B prompts during the stop: a turn that waits at gate h until the test opens it
    const turnB = sb.prompt('gate:h:1');
    await control.reached('h');
    // the owner stopped without waiting for B's turn: B's turn runs on node 2, which took the session
    await stopping;
    expect(stopped).toBe(true);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      expect((await c.query('select owner from acp_leases where session_id = $1', [sa.sessionId])).rows).toEqual([
        { owner: 'node-2' },
      ]);
    } finally {
      await c.end();
    }
    control.open('h');
    expect((await turnB).stopReason).toBe('end_turn');
    // A's turn ended cancelled by the stop (and A was told); B saw that end, then its own turn's
    expect((await turnA).stopReason).toBe('cancelled');
    expect((await firstEnd).stopReason).toBe('cancelled');
    expect(turnEnds(b.updates)).toEqual(['cancelled', 'end_turn']);
  });

  it("a turn the owner runs only for a follower (its own client left) ends cancelled for it when the owner stops cleanly, and the session goes on through the follower's instance", async () => {
    const { control, one, a, sa: _sa, b, sb } = await shared();
    // A leaves: node 1 runs the session only for B now (through its link for other instances)
    await a.conn.close();
    // an agent that takes 300 ms to stop once cancelled: its turn's end comes well after the cancel
    const turn = sb.prompt('gate:g:1:300');
    await control.reached('g');
    await one.stopLikeServe();
    // B is told: its turn ended cancelled (written before the lease was given back), not left running
    let timer: NodeJS.Timeout | undefined;
    const end = await Promise.race([
      turn,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("B's turn never ended")), 10_000))),
    ]);
    clearTimeout(timer);
    expect(end.stopReason).toBe('cancelled');
    expect((await sb.prompt('say:next')).stopReason).toBe('end_turn');
    expect(turnEnds(b.updates)).toEqual(['cancelled', 'end_turn']);
  });
});
