import { TickBatcher } from '../store/tick-batcher.js';
import type { PgPool as Pool } from '../store/postgres/pg-types.js';
import { UPDATES_CHANNEL } from './schema.js';
import type { UpdateRow } from './follower.js';

/** A follower's read waiting for the next read statement. */
interface PendingRead {
  namespace: string;
  sessionId: string;
  after: number;
  limit: number;
  resolve(rows: UpdateRow[]): void;
  reject(e: unknown): void;
}

/** Reads per read statement (a bound on its size; more wait for the next statement). */
const MAX_READS = 500;

/**
 * Many sessions' new rows in one statement: for each (namespace, session, after, limit) of the
 * arrays, its rows with `seq > after` (by the primary key's index), numbered by the read's position.
 */
const READ_BATCH_SQL = `
SELECT k.i, u.seq, u.live, u.body
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[]) WITH ORDINALITY AS k(namespace, session_id, after, lim, i)
CROSS JOIN LATERAL (
  SELECT seq, live, body FROM acp_updates a
  WHERE a.namespace = k.namespace AND a.session_id = k.session_id AND a.seq > k.after
  ORDER BY a.seq LIMIT k.lim
) u
ORDER BY k.i, u.seq`;

/**
 * Reads and writes a session's rows of `acp_updates` for the cluster: followers read them in seq
 * order; the cluster's own live rows (permission questions, the end of a turn interrupted by a dead
 * instance) are appended with the next seq of the session (`acp_sessions.last_seq`, incremented in
 * the same statement, so they interleave with the store's rows) and announced with NOTIFY.
 */
export class UpdateTable {
  private readonly reads = new TickBatcher<PendingRead>(MAX_READS, (batch) => this.readBatch(batch));

  constructor(private readonly pool: Pool) {}

  /**
   * Rows with `seq > after`, in seq order (at most `limit`). The reads issued in one tick, and those
   * issued while a read statement is in flight, go to the database together in ONE statement
   * ({@link READ_BATCH_SQL}): a follower reads its session's new rows on every NOTIFY, and one
   * statement per session per commit was what held 500 followed sessions at a p99 of seconds (the
   * pool's 10 connections queueing thousands of statements a second, a syscall each way per statement).
   */
  read(namespace: string, sessionId: string, after: number, limit = 1000): Promise<UpdateRow[]> {
    return new Promise((resolve, reject) => {
      this.reads.push({ namespace, sessionId, after, limit, resolve, reject });
    });
  }

  private async readBatch(batch: PendingRead[]): Promise<void> {
    try {
      const r = await this.pool.query<{ i: string; seq: string; live: boolean; body: unknown }>(READ_BATCH_SQL, [
        batch.map((b) => b.namespace),
        batch.map((b) => b.sessionId),
        batch.map((b) => b.after),
        batch.map((b) => b.limit),
      ]);
      const rows = batch.map((): UpdateRow[] => []);
      // the statement orders by (i, seq): each read's rows arrive in seq order
      for (const row of r.rows) rows[Number(row.i) - 1]?.push({ seq: Number(row.seq), live: row.live, body: row.body });
      batch.forEach((b, k) => b.resolve(rows[k] ?? []));
    } catch (e) {
      for (const b of batch) b.reject(e);
    }
  }

  /** Appends a live row (never replayed) and wakes the followers; resolves with its seq. */
  async appendLive(namespace: string, sessionId: string, body: object): Promise<number> {
    const r = await this.pool.query<{ seq: string }>(
      `with s as (update acp_sessions set last_seq = last_seq + 1, updated_at = now() where namespace = $1 and session_id = $2 returning last_seq),
            ins as (insert into acp_updates (namespace, session_id, seq, live, body) select $1, $2, last_seq, true, $3 from s returning seq)
       select seq, pg_notify('${UPDATES_CHANNEL}', $1 || '/' || $2 || ':' || seq) from ins`,
      [namespace, sessionId, JSON.stringify(body)],
    );
    const row = r.rows[0];
    if (row === undefined) throw new Error(`session ${sessionId} is not stored in namespace ${namespace}`);
    return Number(row.seq);
  }

  /** Wakes the followers of a session (after the store committed rows of it). */
  async notify(namespace: string, sessionId: string, seq = 0): Promise<void> {
    await this.pool.query(`select pg_notify('${UPDATES_CHANNEL}', $1)`, [`${namespace}/${sessionId}:${seq}`]);
  }

  /** The live rows of a session, newest first (what a failover needs to end an interrupted turn). */
  async liveRows(namespace: string, sessionId: string): Promise<UpdateRow[]> {
    const r = await this.pool.query<{ seq: string; body: unknown }>(
      'select seq, body from acp_updates where namespace = $1 and session_id = $2 and live order by seq desc limit 1000',
      [namespace, sessionId],
    );
    return r.rows.map((row) => ({ seq: Number(row.seq), live: true, body: row.body }));
  }
}
