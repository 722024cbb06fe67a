// PostgresSessionStore against a real PostgreSQL server (test/support/postgres.ts): schema and
// migrations, batched writes with gap-free sequence numbers, load/list/delete, namespaces, and the
// agent runtime on it (updates sent only once committed, replays equal to the live transcript).
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { SESSION_STORE_UNAVAILABLE } from '../../agent/src/index.js';
import { MIGRATIONS, migrate, PostgresSessionStore, prune } from '../src/store/postgres/index.js';
import type { AnySessionUpdate } from '../../protocol/src/model/update.js';
import { connectInProcess, type InProcessPair, type WireEntry } from '../../../test/support/in-process.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { controlledAgent } from '../../../test/support/shared-agent.js';

const CWD = process.cwd();
const chunk = (text: string, messageId = 'msg-1'): AnySessionUpdate => ({
  sessionUpdate: 'agent_message_chunk',
  messageId,
  content: { type: 'text', text },
});
const meta = (sessionId: string) => ({
  sessionId,
  cwd: CWD,
  additionalDirectories: ['/tmp/extra'],
  createdAt: '2026-01-02T03:04:05.000Z',
  title: null,
});

describePostgres('PostgresSessionStore', () => {
  const db = usePostgres();
  let pool: pg.Pool;
  const stores: PostgresSessionStore[] = [];
  const pairs: InProcessPair[] = [];
  const open = async (
    namespace = 'owner-a',
    extra: Partial<ConstructorParameters<typeof PostgresSessionStore>[0]> = {},
  ) => {
    const s = await PostgresSessionStore.open({ url: db.url, namespace, ...extra });
    stores.push(s);
    return s;
  };
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    // as createPostgresPool's pools: a connection the server ends (terminated, database dropped) while
    // it idles or is being closed must not become an unhandled error of the test worker
    pool.on('error', () => undefined);
  });
  afterEach(async () => {
    await Promise.all(pairs.splice(0).map((p) => p.close().catch(() => undefined)));
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await pool.end();
  });

  it('creates the schema once: migrate is idempotent and records its versions', async () => {
    await open();
    const again = await migrate(pool);
    expect(again).toEqual({ applied: [], version: MIGRATIONS.at(-1)!.version });
    const { rows } = await pool.query('SELECT version, name FROM acp_schema_migrations ORDER BY version');
    expect(rows).toEqual([
      { version: 1, name: 'sessions and updates' },
      { version: 2, name: 'cluster: session leases and the inbox between instances' },
    ]);
    const cols = await pool.query(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_name IN ('acp_sessions', 'acp_updates') ORDER BY table_name, ordinal_position`,
    );
    expect(cols.rows.filter((r) => r.table_name === 'acp_updates').map((r) => r.column_name)).toEqual([
      'namespace',
      'session_id',
      'seq',
      'live',
      'body',
      'created_at',
    ]);
    expect(cols.rows.filter((r) => r.table_name === 'acp_sessions').map((r) => r.column_name)).toEqual([
      'namespace',
      'session_id',
      'meta',
      'config_values',
      'title',
      'created_at',
      'updated_at',
      'last_seq',
    ]);
  });

  it('stores a session, its ordered history (gap-free seq), title and config values; load replays them, list reads no history', async () => {
    const store = await open();
    await store.create(meta('s1'));
    const writes = [
      store.append('s1', {
        sessionUpdate: 'user_message',
        messageId: 'user-1',
        content: [{ type: 'text', text: 'hi' }],
      }),
      store.append('s1', chunk('one ')),
      store.setConfigValues('s1', { mode: 'ask' }),
      store.append('s1', { sessionUpdate: 'session_info_update', title: 'A title' }),
      store.append('s1', chunk('two ')),
    ];
    await Promise.all(writes);
    const loaded = await store.load('s1');
    expect(loaded!.updates.map((u: any) => u.content?.text ?? u.content?.[0]?.text ?? u.title)).toEqual([
      'hi',
      'one ',
      'A title',
      'two ',
    ]);
    expect(loaded!.meta).toMatchObject({
      sessionId: 's1',
      cwd: CWD,
      additionalDirectories: ['/tmp/extra'],
      createdAt: '2026-01-02T03:04:05.000Z',
      title: 'A title',
      configValues: { mode: 'ask' },
    });
    const { rows } = await pool.query(`SELECT seq, live FROM acp_updates WHERE session_id = 's1' ORDER BY seq`);
    expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3, 4]);
    expect((await pool.query(`SELECT last_seq FROM acp_sessions WHERE session_id = 's1'`)).rows[0].last_seq).toBe('4');
    const listed = await store.list();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ sessionId: 's1', title: 'A title', cwd: CWD });
    expect(listed[0].configValues).toBeUndefined();
    expect(Date.parse(listed[0].updatedAt!)).toBeGreaterThan(Date.parse('2026-01-02T03:04:05.000Z'));
    await store.delete('s1');
    expect(await store.load('s1')).toBeUndefined();
    expect((await pool.query(`SELECT count(*)::int AS n FROM acp_updates WHERE session_id = 's1'`)).rows[0].n).toBe(0);
  });

  it('batches: appends issued together are written in one transaction, numbered in order', async () => {
    const store = await open();
    await store.create(meta('batch'));
    await Promise.all(Array.from({ length: 500 }, (_, i) => store.append('batch', chunk(`c${i} `))));
    const { rows } = await pool.query(
      `SELECT seq, body->'content'->>'text' AS text, xmin::text AS tx FROM acp_updates WHERE session_id = 'batch' ORDER BY seq`,
    );
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(rows.map((r) => r.text)).toEqual(Array.from({ length: 500 }, (_, i) => `c${i} `));
    // rows written by one transaction share its id
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
  });

  it('keeps namespaces apart, never replays live rows, and keeps text with NUL characters intact', async () => {
    const a = await open('ns-a');
    const b = await open('ns-b');
    await a.create(meta('same-id'));
    await b.create(meta('same-id'));
    await a.append('same-id', chunk('for a \u0000 with a NUL'));
    await b.append('same-id', chunk('for b'));
    // a live-only row (state updates written for other instances) is not history
    await pool.query(
      `INSERT INTO acp_updates (namespace, session_id, seq, live, body) VALUES ('ns-a', 'same-id', 2, true, '{"sessionUpdate":"state_update","state":"idle"}')`,
    );
    expect((await a.load('same-id'))!.updates).toEqual([chunk('for a \u0000 with a NUL')]);
    expect((await b.load('same-id'))!.updates).toEqual([chunk('for b')]);
    expect((await a.list()).map((m) => m.sessionId)).toEqual(['same-id']);
    await b.delete('same-id');
    expect(await a.load('same-id')).toBeDefined();
  });

  it("a session id with a NUL (PostgreSQL text cannot hold one) is a session that does not exist, as in the JSONL store: load finds nothing, delete does nothing (issue 24 item 6; load failed with PostgreSQL's own error before)", async () => {
    const store = await open('nul-id');
    await expect(store.load('a\u0000b')).resolves.toBeUndefined();
    await expect(store.delete('a\u0000b')).resolves.toBeUndefined();
  });

  it('leaseOwner fences writes: a session whose lease another instance holds gets neither rows nor config values, and the error names that instance', async () => {
    const store = await open('owner-fence', { leaseOwner: 'node-1' });
    await store.create(meta('f1'));
    await store.append('f1', chunk('mine '));
    await store.setConfigValues('f1', { mode: 'ask' });
    // another instance takes the session over (the lease is its own now)
    await pool.query(
      `INSERT INTO acp_leases (namespace, session_id, owner, lease_until) VALUES ('owner-fence', 'f1', 'node-2', now() + interval '1 minute')`,
    );
    const refused = {
      code: SESSION_STORE_UNAVAILABLE,
      message: expect.stringMatching(/session f1 is run by instance node-2 now \(instance node-1 lost its lease/),
    };
    // a config change alone moves no seq: not applied, it must not pass for an already committed retry
    await expect(store.setConfigValues('f1', { mode: 'code' })).rejects.toMatchObject(refused);
    await expect(store.append('f1', chunk('stalled '))).rejects.toMatchObject(refused);
    // appends of a store that has not written the session yet are fenced too
    const other = await open('owner-fence', { leaseOwner: 'node-1' });
    await expect(other.append('f1', chunk('other '))).rejects.toMatchObject(refused);
    const loaded = await (await open('owner-fence')).load('f1');
    expect(loaded?.updates).toEqual([chunk('mine ')]);
    expect(loaded?.meta.configValues).toEqual({ mode: 'ask' });
  });

  it('prune deletes the sessions not updated since the cutoff, with their history', async () => {
    const store = await open('prune');
    await store.create(meta('old'));
    await store.create(meta('new'));
    await store.append('old', chunk('x'));
    await pool.query(
      `UPDATE acp_sessions SET updated_at = now() - interval '40 days' WHERE namespace = 'prune' AND session_id = 'old'`,
    );
    expect(await prune(pool, 30 * 24 * 3600_000, 'prune')).toBe(1);
    expect((await store.list()).map((m) => m.sessionId)).toEqual(['new']);
    expect((await pool.query(`SELECT count(*)::int AS n FROM acp_updates WHERE namespace = 'prune'`)).rows[0].n).toBe(
      0,
    );
  });

  it('an unreachable database refuses with an error naming the store, host and port', async () => {
    // a port nothing listens on: the cluster's port + 1 is not ours, so find a closed one
    const { createServer } = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const store = new PostgresSessionStore({ url: `postgres://postgres@127.0.0.1:${port}/x`, namespace: 'n' });
    stores.push(store);
    await expect(store.ready()).rejects.toMatchObject({
      code: SESSION_STORE_UNAVAILABLE,
      message: expect.stringMatching(
        new RegExp(`^the session store \\(PostgreSQL at 127\\.0\\.0\\.1:${port}\\) is unreachable: .*ECONNREFUSED`),
      ),
    });
    // and through the agent runtime: session/new is refused with it
    const control = controlledAgent();
    const pair = await connectInProcess(control.definition, { version: 2, serve: { store } });
    pairs.push(pair);
    await expect(pair.conn.newSession({ cwd: CWD })).rejects.toMatchObject({
      code: SESSION_STORE_UNAVAILABLE,
      message: expect.stringContaining(`PostgreSQL at 127.0.0.1:${port}) is unreachable`),
    });
  });

  it.each([1, 2] as const)(
    'the agent runtime (v%i) on it: updates are committed before they are sent, and a replay equals the live transcript',
    async (version) => {
      const store = await open(`runtime-v${version}`);
      const control = controlledAgent();
      const a = await connectInProcess(control.definition, { version, serve: { store } });
      pairs.push(a);
      const s = await a.conn.newSession({ cwd: CWD });
      const committedAtArrival: Promise<number>[] = [];
      s.onUpdate((u) => {
        if (u.sessionUpdate === 'agent_message_chunk') {
          committedAtArrival.push(
            pool
              .query(`SELECT count(*)::int AS n FROM acp_updates WHERE session_id = $1`, [s.sessionId])
              .then((r) => r.rows[0].n),
          );
        }
      });
      expect((await s.prompt('say:a b c d e f g h')).stopReason).toBe('end_turn');
      expect((await s.prompt('say:i j')).stopReason).toBe('end_turn');
      const counts = await Promise.all(committedAtArrival);
      // chunk i of the first turn arrived when the user message and chunks 0..i were committed
      counts.slice(0, 8).forEach((n, i) => expect(n).toBeGreaterThanOrEqual(i + 2));
      const texts = (us: any[]) =>
        us.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);
      const live = a.wire
        .filter((e: WireEntry) => e.dir === 'in' && e.msg.method === 'session/update')
        .map((e) => e.msg.params.update);
      await a.close();
      const b = await connectInProcess(control.definition, { version, serve: { store } });
      pairs.push(b);
      if (version === 1) await b.conn.loadSession(s.sessionId, { cwd: CWD });
      else await b.conn.resumeSession(s.sessionId, { cwd: CWD, replay: true });
      await b.conn.listAllSessions();
      const replayed = b.wire
        .filter((e: WireEntry) => e.dir === 'in' && e.msg.method === 'session/update')
        .map((e) => e.msg.params.update);
      expect(texts(replayed)).toEqual(texts(live));
      expect(texts(replayed)).toEqual(['a ', 'b ', 'c ', 'd ', 'e ', 'f ', 'g ', 'h ', 'i ', 'j ']);
      expect(b.tap.failures).toEqual([]);
      const { rows } = await pool.query(`SELECT seq FROM acp_updates WHERE session_id = $1 ORDER BY seq`, [
        s.sessionId,
      ]);
      expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
    },
  );
});
