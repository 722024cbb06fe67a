// The database going away under a running turn (PostgresSessionStore through a TCP relay the test
// cuts and holds): a short outage is ridden out (the turn's appends are retried and nothing is lost
// or doubled); a long one ends the turn loudly with the store's reason and refuses new prompts.
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { SESSION_STORE_UNAVAILABLE } from '../../agent/src/index.js';
import { PostgresSessionStore } from '../src/store/postgres/index.js';
import { connectInProcess, type InProcessPair, type WireEntry } from '../../../test/support/in-process.js';
import { startCutProxy, type CutProxy } from '../../../test/support/cut-proxy.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { controlledAgent } from '../../../test/support/shared-agent.js';

const CWD = process.cwd();

describePostgres('PostgresSessionStore when the database is unreachable', () => {
  const db = usePostgres();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function rig(retryForMs: number): Promise<{
    proxy: CutProxy;
    store: PostgresSessionStore;
    pair: InProcessPair;
    control: ReturnType<typeof controlledAgent>;
  }> {
    const target = new URL(db.url);
    const proxy = await startCutProxy(Number(target.port));
    cleanups.push(() => proxy.close());
    target.port = String(proxy.port);
    const store = await PostgresSessionStore.open({
      url: target.toString(),
      namespace: 'outage',
      retryForMs,
      connectTimeoutMs: 500,
    });
    cleanups.push(() => store.close());
    const control = controlledAgent();
    const pair = await connectInProcess(control.definition, { version: 2, serve: { store } });
    cleanups.push(() => pair.close());
    return { proxy, store, pair, control };
  }

  /** Resolves once the relay has accepted more than `n` connections (a store retrying to connect). */
  async function connectionsBeyond(proxy: CutProxy, n: number): Promise<void> {
    while (proxy.accepted <= n) await new Promise((r) => setTimeout(r, 20));
  }

  /** Resolves once the client has received `n` chunks (the store committed them: they are sent only then). */
  async function chunksReceived(p: InProcessPair, n: number): Promise<void> {
    while (chunkTexts(updatesOf(p)).length < n) await new Promise((r) => setTimeout(r, 10));
  }

  const updatesOf = (p: InProcessPair): any[] =>
    p.wire
      .filter((e: WireEntry) => e.dir === 'in' && e.msg.method === 'session/update')
      .map((e) => e.msg.params.update);
  const chunkTexts = (us: any[]): string[] =>
    us.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);

  it('a short outage mid-turn: the appends are retried, the turn ends normally, nothing lost or doubled', async () => {
    const { proxy, store, pair, control } = await rig(30_000);
    const s = await pair.conn.newSession({ cwd: CWD });
    const turn = s.prompt('gate:g:3');
    await control.reached('g');
    await chunksReceived(pair, 3);
    const before = proxy.accepted;
    proxy.hold();
    proxy.cut();
    control.open('g');
    // the store is trying to reconnect: the database comes back
    await connectionsBeyond(proxy, before);
    proxy.release();
    expect((await turn).stopReason).toBe('end_turn');
    await pair.conn.listAllSessions();
    expect(chunkTexts(updatesOf(pair))).toEqual(['before0 ', 'before1 ', 'before2 ', 'after0 ', 'after1 ', 'after2 ']);
    expect(chunkTexts((await store.load(s.sessionId))!.updates)).toEqual([
      'before0 ',
      'before1 ',
      'before2 ',
      'after0 ',
      'after1 ',
      'after2 ',
    ]);
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    try {
      const { rows } = await check.query(`SELECT seq FROM acp_updates WHERE session_id = $1 ORDER BY seq`, [
        s.sessionId,
      ]);
      expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await check.end();
    }
  });

  it('a long outage mid-turn: the turn ends with an error naming the unreachable store, new prompts are refused, nothing unstored was sent', async () => {
    const { proxy, store, pair, control } = await rig(1_000);
    const s = await pair.conn.newSession({ cwd: CWD });
    const turn = s.prompt('gate:g:3');
    await control.reached('g');
    await chunksReceived(pair, 3);
    proxy.hold();
    proxy.cut();
    control.open('g');
    const end = await turn;
    const reason = new RegExp(`^the session store \\(PostgreSQL at 127\\.0\\.0\\.1:${proxy.port}\\) is unreachable: `);
    expect(end).toMatchObject({
      stopReason: 'error',
      error: { code: SESSION_STORE_UNAVAILABLE, message: expect.stringMatching(reason) },
    });
    await expect(s.prompt('say:again')).rejects.toMatchObject({
      code: SESSION_STORE_UNAVAILABLE,
      message: expect.stringMatching(reason),
    });
    await pair.conn.listAllSessions().catch(() => undefined);
    // what the client saw is exactly what is stored (the chunks before the outage)
    proxy.release();
    expect(chunkTexts(updatesOf(pair))).toEqual(['before0 ', 'before1 ', 'before2 ']);
    expect(chunkTexts((await store.load(s.sessionId))!.updates)).toEqual(['before0 ', 'before1 ', 'before2 ']);
  });
});
