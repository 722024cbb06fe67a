// Leases and the inbox of the cluster against a real PostgreSQL server (test/support/postgres.ts):
// one owner per session even when instances race for it, takeover only after expiry, and an inbox
// request that still arrives when the LISTEN connection was dropped (the poll delivers it).
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Inbox, type InboxRequest } from '../src/cluster/inbox.js';
import { Leases } from '../src/cluster/leases.js';
import { migrate } from '../src/store/postgres/migrations.js';
import { Wakeups } from '../src/cluster/wakeups.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';

describePostgres('cluster leases and inbox (PostgreSQL)', () => {
  const db = usePostgres();
  let pool: pg.Pool;
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeEach(async () => {
    pool = new pg.Pool({ connectionString: db.url, max: 8 });
    // as createPostgresPool's pools: a connection the server ends (terminated, database dropped) while
    // it idles or is being closed must not become an unhandled error of the test worker
    pool.on('error', () => undefined);
    await migrate(pool);
    await pool.query('truncate acp_leases, acp_inbox');
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await pool.end();
  });

  const leasesOf = (id: string, ms: number): Leases => {
    const l = new Leases(pool, id, ms, () => undefined);
    cleanups.push(() => l.stop(false));
    return l;
  };

  it('exactly one of several instances racing for a free session gets its lease', async () => {
    const racers = ['a', 'b', 'c', 'd', 'e'].map((id) => leasesOf(id, 5000));
    const claims = await Promise.all(racers.map((l) => l.claim('ns', 'sess_1')));
    const winners = claims.filter((c) => c.mine);
    expect(winners).toHaveLength(1);
    const winner = racers[claims.indexOf(winners[0])].instanceId;
    for (const c of claims) if (!c.mine) expect(c.owner).toBe(winner);
  });

  it('a live lease is not taken; an expired one is, by exactly one racer, naming the dead owner', async () => {
    const dead = leasesOf('dead', 300);
    expect(await dead.claim('ns', 's')).toEqual({ mine: true });
    await dead.stop(false); // no more renewals: it is as good as killed
    const early = await leasesOf('early', 300).claim('ns', 's');
    expect(early).toEqual({ mine: false, owner: 'dead' });
    // wait for the database's clock to pass lease_until (round trips, no local clock)
    for (;;) {
      const r = await pool.query('select lease_until < now() as expired from acp_leases');
      if (r.rows[0].expired) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const racers = ['x', 'y', 'z'].map((id) => leasesOf(id, 5000));
    const claims = await Promise.all(racers.map((l) => l.claim('ns', 's')));
    const winners = claims.filter((c) => c.mine);
    expect(winners).toEqual([{ mine: true, takenFrom: 'dead' }]);
  });

  it('a renewed lease outlives its first term', async () => {
    const owner = leasesOf('owner', 400);
    await owner.claim('ns', 's');
    const until0 = (await pool.query('select lease_until from acp_leases')).rows[0].lease_until as Date;
    // wait until a renewal moved lease_until (renewed every lease/3)
    for (;;) {
      const until = (await pool.query('select lease_until from acp_leases')).rows[0].lease_until as Date;
      if (until.getTime() > until0.getTime()) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(await leasesOf('other', 400).claim('ns', 's')).toEqual({ mine: false, owner: 'owner' });
  });

  it('an inbox request reaches its owner and its answer the sender; with the LISTEN connection dropped, by the poll', async () => {
    const got: InboxRequest[] = [];
    let owner!: Inbox;
    owner = new Inbox(
      pool,
      'owner',
      (r) => {
        got.push(r);
        void owner.answer(r, { result: { echoed: r.payload } });
      },
      () => undefined,
    );
    const sender = new Inbox(
      pool,
      'sender',
      () => undefined,
      () => undefined,
    );
    cleanups.push(
      () => owner.stop(),
      () => sender.stop(),
    );
    const connect = async (): Promise<pg.Client> => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      return c;
    };
    const lines: string[] = [];
    const wake = (inbox: Inbox, id: string): Wakeups =>
      new Wakeups(
        connect,
        id,
        {
          updates: () => undefined,
          inbox: (k) => void (k === 'to' ? inbox.readRequests() : inbox.readAnswers()),
          resumed: () => undefined,
          log: (l) => lines.push(l),
        },
        60_000,
      );
    const ownerWake = wake(owner, 'owner');
    const senderWake = wake(sender, 'sender');
    cleanups.push(
      () => ownerWake.stop(),
      () => senderWake.stop(),
    );
    await ownerWake.start();
    await senderWake.start();

    // with NOTIFY: nothing polls, yet the answer arrives
    expect(await sender.send('ns', 's', 'owner', 'request', { n: 1 })).toEqual({ echoed: { n: 1 } });

    // the owner's LISTEN connection is killed by the server (its retry is a minute away)
    await pool.query('select pg_terminate_backend($1)', [ownerWake.pid]);
    while (ownerWake.pid !== undefined) await new Promise((res) => setTimeout(res, 20));
    const answer = sender.send('ns', 's', 'owner', 'request', { n: 2 });
    // the notification went nowhere; the row waits in the table until the owner polls
    let row;
    do row = (await pool.query("select kind from acp_inbox where to_owner = 'owner' and done_at is null")).rows[0];
    while (!row);
    expect(got).toHaveLength(1);
    await owner.readRequests();
    expect(await answer).toEqual({ echoed: { n: 2 } });
    expect(got.map((r) => r.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(lines.join('\n')).toMatch(/LISTEN connection lost/);
  });

  it("an answer whose wake-up overtakes the sender's own insert reply is still read at once, not at the next poll", async () => {
    const owner: Inbox = new Inbox(
      pool,
      'owner',
      (r) => void owner.answer(r, { result: { echoed: r.payload } }),
      () => undefined,
    );
    // the sender's pool as the network can order it: its insert's reply comes back only after the
    // owner has read the request, answered it, and the answer's NOTIFY has woken the sender
    let sender!: Inbox;
    const slowReplies = {
      query: async (...args: Parameters<pg.Pool['query']>) => {
        const result = await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
        if (String(args[0]).includes('insert into acp_inbox')) {
          await owner.readRequests();
          while ((await pool.query('select 1 from acp_inbox where done_at is not null')).rows.length === 0)
            await new Promise((r) => setTimeout(r, 10));
          await sender.readAnswers();
        }
        return result;
      },
    } as unknown as pg.Pool;
    sender = new Inbox(
      slowReplies,
      'sender',
      () => undefined,
      () => undefined,
    );
    cleanups.push(
      () => owner.stop(),
      () => sender.stop(),
    );
    // nothing polls and no other wake-up comes: without the re-read the answer would wait forever
    let timer: NodeJS.Timeout | undefined;
    const answer = await Promise.race([
      sender.send('ns', 's', 'owner', 'request', { n: 1 }),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the answer was not read')), 5000))),
    ]);
    clearTimeout(timer);
    expect(answer).toEqual({ echoed: { n: 1 } });
  });
});
