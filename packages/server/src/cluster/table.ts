import type { PgPool as Pool } from '../store/postgres/pg-types.js';
import { UPDATES_CHANNEL } from './schema.js';
import type { UpdateRow } from './follower.js';

/**
 * Reads and writes a session's rows of `acp_updates` for the cluster: followers read them in seq
 * order; the cluster's own live rows (permission questions, the end of a turn interrupted by a dead
 * instance) are appended with the next seq of the session (`acp_sessions.last_seq`, incremented in
 * the same statement, so they interleave with the store's rows) and announced with NOTIFY.
 */
export class UpdateTable {
  constructor(private readonly pool: Pool) {}

  /** Rows with `seq > after`, in seq order (at most `limit`). */
  async read(namespace: string, sessionId: string, after: number, limit = 1000): Promise<UpdateRow[]> {
    const r = await this.pool.query<{ seq: string; live: boolean; body: unknown }>(
      'select seq, live, body from acp_updates where namespace = $1 and session_id = $2 and seq > $3 order by seq limit $4',
      [namespace, sessionId, after, limit],
    );
    return r.rows.map((row) => ({ seq: Number(row.seq), live: row.live, body: row.body }));
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
