// Followers read their sessions' new rows on every NOTIFY. At 500 followed sessions streaming at a
// model's rate that was one SELECT per session per commit (thousands a second through the pool's 10
// connections: the fan-out p99 of seconds in issue 24 item 7). The reads issued together now go in one
// statement; each read still gets exactly its own session's rows after its seq, in order, up to its limit.
// A real PostgreSQL; the rows are written with the cluster's own statement (UpdateTable.appendLive).
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '../src/store/postgres/migrations.js';
import { UpdateTable } from '../src/cluster/table.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';

const SESSIONS = 20;
const ROWS = 12;

describePostgres('UpdateTable.read: reads issued together', () => {
  const db = usePostgres();
  let pool: pg.Pool;
  /** the text of every statement the pool ran */
  const statements: string[] = [];

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: db.url, max: 10 });
    await migrate(pool);
    const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
    (pool as unknown as { query: (...a: unknown[]) => unknown }).query = (sql: unknown, ...rest: unknown[]) => {
      statements.push(typeof sql === 'string' ? sql : String((sql as { text?: unknown }).text));
      return query(sql, ...rest);
    };
    const table = new UpdateTable(pool);
    for (const ns of ['ns-a', 'ns-b'])
      for (let s = 0; s < SESSIONS; s++) {
        await pool.query("insert into acp_sessions (namespace, session_id, meta) values ($1, $2, '{}')", [ns, `s${s}`]);
        for (let k = 1; k <= ROWS; k++) await table.appendLive(ns, `s${s}`, { ns, s, k });
      }
  });
  afterAll(async () => {
    await pool.end();
  });

  it(`${SESSIONS} sessions' reads in one tick: one statement, each read its own rows after its seq, in order, limited`, async () => {
    const table = new UpdateTable(pool);
    statements.length = 0;
    // session s reads after seq s % ROWS; odd sessions with a limit of 3
    const reads = await Promise.all(
      Array.from({ length: SESSIONS }, (_, s) =>
        s % 2 ? table.read('ns-a', `s${s}`, s % ROWS, 3) : table.read('ns-a', `s${s}`, s % ROWS),
      ),
    );
    expect(statements.filter((t) => /from acp_updates/i.test(t))).toHaveLength(1);
    reads.forEach((rows, s) => {
      const after = s % ROWS;
      const seqs = Array.from({ length: ROWS - after }, (_, i) => after + 1 + i).slice(0, s % 2 ? 3 : undefined);
      expect(rows.map((r) => r.seq)).toEqual(seqs);
      // the other namespace's session of the same id is not read
      expect(rows.map((r) => r.body)).toEqual(seqs.map((k) => ({ ns: 'ns-a', s, k })));
      expect(rows.every((r) => r.live)).toBe(true);
    });
  });

  it('a read issued while a statement is in flight goes in the next one, and a session without rows reads none', async () => {
    const table = new UpdateTable(pool);
    statements.length = 0;
    const first = table.read('ns-b', 's1', 0);
    // issued a tick later: the first statement is on its way by then
    await new Promise((r) => setImmediate(r));
    const [a, b, none] = await Promise.all([
      first,
      table.read('ns-b', 's2', ROWS - 1),
      table.read('ns-b', 'not-stored', 0),
    ]);
    expect(a.map((r) => r.seq)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    expect(b.map((r) => r.body)).toEqual([{ ns: 'ns-b', s: 2, k: ROWS }]);
    expect(none).toEqual([]);
    expect(statements.filter((t) => /from acp_updates/i.test(t))).toHaveLength(2);
  });
});
