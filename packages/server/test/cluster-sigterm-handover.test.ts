// The clean-stop path of docs/postgres-cluster.md with real processes: "Clean stop (SIGTERM):
// running turns end `cancelled`, then the instance gives its leases back so other instances take the
// sessions at once. A crash: after --lease-ms." (the crash path: cluster-failover.test.ts). Two
// `acp-kit serve --store postgres://…` instances (bin/acp-kit.js, from dist/) on one real
// PostgreSQL database, the owner's client and a follower on the other instance, SIGTERM to the owner
// in the middle of a turn. The lease is long (30 s): a handover that waited for it to expire would
// blow the time budget instead of passing slowly. (A follower's request that went to the stopped
// owner's inbox used to wait for the next poll, lease/4, and then fail NOT_OWNER: see toOwner in
// src/server/cluster/node.ts.)
import pg from 'pg';
import { expect, it } from 'vitest';
import { transcript, useClusterServes } from '../../../test/support/cluster-serve.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';

const TOKEN = 'cluster-sigterm-token';
const LEASE_MS = 30_000;
/** SIGTERM to the end of the follower's next turn: far below the lease (measured: about 1.2 s). */
const HANDOVER_BUDGET_MS = 10_000;

const chunks = (us: any[]): any[] => us.filter((u) => u.sessionUpdate === 'agent_message_chunk');
const chunkTexts = (us: any[]): string[] => chunks(us).map((u) => u.content.text);
/** The ends of turns a client saw (`idle` with a stop reason). */
const turnEnds = (us: any[]): any[] =>
  us.filter((u) => u.sessionUpdate === 'state_update' && u.state === 'idle' && u.stopReason);

describePostgres('clean SIGTERM handover between acp-kit serve instances with a follower attached', () => {
  const db = usePostgres();
  const { clusterDir, startServe, client } = useClusterServes({
    databaseUrl: () => db.url,
    token: TOKEN,
    leaseMs: LEASE_MS,
  });

  it('the running turn ends cancelled once for the follower, the other instance takes the session at once, and nothing is lost or doubled', async () => {
    const dir = clusterDir();
    const [one, two] = await Promise.all(['inst-1', 'inst-2'].map((id) => startServe(dir, id)));

    // A on instance 1 creates the session (instance 1 owns it); B on instance 2 follows it
    const a = await client(one.ws);
    const sa = await a.conn.newSession({ cwd: dir });
    const b = await client(two.ws);
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: dir, replay: true });

    // a long turn; stop its instance once the follower has seen some of it
    const turnA = sa.prompt('tell me a story').catch((e: unknown) => e);
    await new Promise<void>((resolve) => {
      const off = sb.onUpdate(() => {
        if (chunks(b.updates).length >= 5) {
          off();
          resolve();
        }
      });
    });
    const idleB = sb.nextIdle();
    const aClosed = a.conn.closed;
    const exited = new Promise<number | null>((r) => one.proc.once('exit', (code) => r(code)));
    const stoppedAt = Date.now();
    one.proc.kill('SIGTERM');

    // the follower: the running turn ends `cancelled`, as the docs promise for a clean stop
    const end = await idleB;
    expect(end.stopReason).toBe('cancelled');
    // the owner stops cleanly and A's connection closes
    expect(await exited).toBe(0);
    expect(one.stderr()).toMatch(/SIGTERM: stopping/);
    expect(one.stderr()).toMatch(/acp-kit serve: stopped/);
    await aClosed;
    // A, the owner's own client, is told too: its prompt ends `cancelled` before its socket closed
    // (the shutdown waits for the v2 turn's end, not only for open requests)
    expect(await turnA).toMatchObject({ stopReason: 'cancelled' });

    // the session goes on through instance 2 at once: it took the lease given back (not waited for it to expire)
    const bBefore = b.updates.length;
    const next = await sb.prompt('list files');
    const handoverMs = Date.now() - stoppedAt;
    expect(next.stopReason).toBe('end_turn');
    expect(handoverMs).toBeLessThan(HANDOVER_BUDGET_MS);
    expect(chunks(b.updates.slice(bBefore)).length).toBeGreaterThan(0);

    // B saw the end of the stopped turn exactly once, then its own turn's end
    expect(turnEnds(b.updates).map((u) => u.stopReason)).toEqual(['cancelled', 'end_turn']);

    // a fresh client resuming with replay through instance 2: the same transcript
    const c = await client(two.ws);
    await c.conn.resumeSession(sa.sessionId, { cwd: dir, replay: true });
    await c.conn.listAllSessions();

    // the table: what was persisted (history rows), in seq order
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let rows: { live: boolean; body: any }[];
    let leases: { owner: string }[];
    try {
      rows = (
        await admin.query('select live, body from acp_updates where session_id = $1 order by seq', [sa.sessionId])
      ).rows;
      leases = (await admin.query('select owner from acp_leases where session_id = $1', [sa.sessionId])).rows;
    } finally {
      await admin.end();
    }
    const stored = rows.filter((r) => !r.live).map((r) => r.body);
    // instance 2 runs the session now (instance 1 gave the lease back)
    expect(leases).toEqual([{ owner: 'inst-2' }]);

    // nothing lost or doubled: B's chunks = C's replayed chunks = the history rows
    expect(chunkTexts(b.updates).length).toBeGreaterThan(5);
    expect(chunkTexts(c.updates)).toEqual(chunkTexts(b.updates));
    expect(chunkTexts(stored)).toEqual(chunkTexts(b.updates));
    expect(transcript(c.updates)).toEqual(transcript(b.updates));
    // the stopped turn (prompt, the answer up to the stop), then B's turn (its prompt first)
    const seen = transcript(b.updates);
    expect(seen.slice(0, 3).map((m) => m.kind)).toEqual(['user_message', 'agent_message', 'user_message']);
    expect(seen.filter((m) => m.kind === 'user_message').map((m) => m.text)).toEqual(['tell me a story', 'list files']);
    expect(seen.at(-1)!.kind).toBe('agent_message');
    // the stop landed mid-turn: the story is cut short (the demo's help text ends with this)
    expect(seen[1].text).not.toMatch(/real model/);
    // the table has the one end of the stopped turn, cancelled (not an OWNER_STOPPED failover end)
    const ends = rows.filter(
      (r) => r.live && r.body.sessionUpdate === 'state_update' && r.body.state === 'idle' && r.body.stopReason,
    );
    expect(ends.map((r) => r.body.stopReason)).toEqual(['cancelled', 'end_turn']);
  }, 60_000);
});
