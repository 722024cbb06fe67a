/**
 * Sessions in PostgreSQL: what the JSONL store keeps (metadata, config values, the ordered history),
 * in tables several `acp-kit serve` instances can share. `pg` is loaded on first use only.
 */
import { TickBatcher } from '../tick-batcher.js';
import type { PgPool as Pool } from './pg-types.js';
import { AcpError, type AnySessionUpdate } from '@acp-kit/protocol';
import {
  SESSION_STORE_UNAVAILABLE,
  type ConfigValues,
  type SessionStore,
  type StoredSession,
  type StoredSessionMeta,
} from '@acp-kit/agent';
import { migrate } from './migrations.js';
import { isStorableSessionId } from './storable-id.js';

/** Options of {@link PostgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /** `postgres://user@host:port/db` (one of `url` and `pool`). */
  url?: string;
  /** A pool of your own (not ended by {@link PostgresSessionStore.close}; its limits and timeouts are yours). */
  pool?: Pool;
  /**
   * Separates stores sharing one database, like the JSONL store's folders: a store sees only the
   * sessions of its namespace (`acp-kit serve` uses one per token owner).
   */
  namespace: string;
  /** Pool size (`max`) of the pool made from `url`; default 10. */
  maxConnections?: number;
  /** `statement_timeout` of every connection of the pool made from `url`; default 30 000 ms. */
  statementTimeoutMs?: number;
  /** How long a new connection may take before the attempt counts as failed; default 5 000 ms. */
  connectTimeoutMs?: number;
  /** How long appends of a running turn are retried while the database is unreachable; default 10 000 ms. */
  retryForMs?: number;
  /** Bring the schema up to date on {@link PostgresSessionStore.ready} (default `true`; `false`: `acp-kit db migrate` does it). */
  migrate?: boolean;
  /**
   * Cluster mode (several instances on the database, docs/postgres-cluster.md; default `false`): the
   * live-only updates are stored too, as `live` rows ({@link PostgresSessionStore.appendLive}), and
   * each commit does `NOTIFY acp_updates, '<namespace>/<sessionId>:<last seq>'` per session written,
   * so clients on other instances get exactly what local clients get, at once.
   */
  fanOut?: boolean;
  /**
   * Cluster mode: the id of the instance whose session leases this store writes under. A write to a
   * session whose lease another instance holds is not applied and fails with
   * {@link SESSION_STORE_UNAVAILABLE} naming that instance (fencing): an instance that stalled past
   * its lease and was taken over never writes into the session again, also when the session was
   * idle at the takeover (no row of the new owner to collide with).
   */
  leaseOwner?: string;
}

/** A write waiting for its batch. */
type Pending =
  | {
      kind: 'append';
      sessionId: string;
      body: string;
      update: AnySessionUpdate;
      live: boolean;
      resolve(): void;
      reject(e: unknown): void;
    }
  | { kind: 'config'; sessionId: string; values: ConfigValues; resolve(): void; reject(e: unknown): void };

/** One session's part of a batch (a row of the batch statement's `jsonb_to_recordset`). */
interface BatchRow {
  session_id: string;
  n: number;
  /** how many of the `n` rows are history (the others are live-only: they do not touch the listed metadata) */
  h: number;
  expected: number | null;
  /** the JSON text of each update, as `append` serialised it (spliced into the statement's parameter as is) */
  texts: string[];
  lives: boolean[];
  title_set: boolean;
  title: string | null;
  explicit_at: string | null;
  config_set: boolean;
  config: ConfigValues | null;
}

/** Writes per batch statement (a bound on statement size; more wait for the next batch). */
const MAX_BATCH = 2000;

/**
 * One batch: every session's new updates and config values in ONE statement (atomic without an
 * explicit transaction, one round trip). Each session's `last_seq` moves by its count and the rows
 * get the numbers in between (gap-free, in order); `expected` (the `last_seq` this store last saw)
 * makes a retry of a batch that did commit a no-op instead of a duplicate.
 */
const BATCH_SQL = `
WITH b AS (
  SELECT * FROM jsonb_to_recordset($2::jsonb)
    AS b(session_id text, n int, h int, expected bigint, bodies jsonb, lives jsonb, title_set boolean, title text, explicit_at text, config_set boolean, config jsonb)
), s AS (
  UPDATE acp_sessions a SET
    last_seq = a.last_seq + b.n,
    updated_at = CASE WHEN b.h > 0 OR b.config_set THEN now() ELSE a.updated_at END,
    title = CASE WHEN b.title_set THEN b.title ELSE a.title END,
    meta = CASE WHEN b.explicit_at IS NOT NULL THEN jsonb_set(a.meta, '{updatedAt}', to_jsonb(b.explicit_at))
                WHEN b.h > 0 THEN a.meta - 'updatedAt' ELSE a.meta END,
    config_values = CASE WHEN b.config_set THEN b.config ELSE a.config_values END
  FROM b
  WHERE a.namespace = $1 AND a.session_id = b.session_id AND (b.expected IS NULL OR a.last_seq = b.expected)
  RETURNING a.session_id, a.last_seq, b.n, b.bodies, b.lives
), ins AS (
  INSERT INTO acp_updates (namespace, session_id, seq, live, body)
  SELECT $1, s.session_id, s.last_seq - s.n + t.ord, coalesce((s.lives->>(t.ord::int - 1))::boolean, false), t.body
  FROM s, jsonb_array_elements(s.bodies) WITH ORDINALITY AS t(body, ord)
)
SELECT session_id, last_seq FROM s`;

/** The batch, announcing each session's new rows on commit (cluster mode: docs/postgres-cluster.md). */
const BATCH_NOTIFY_SQL = BATCH_SQL.replace(
  /SELECT session_id, last_seq FROM s$/,
  "SELECT session_id, last_seq, CASE WHEN n > 0 THEN pg_notify('acp_updates', $1 || '/' || session_id || ':' || last_seq) END FROM s",
);

/** A batch of a lease holder ($3, the instance id): sessions another instance holds the lease of are not written. */
function fenced(sql: string): string {
  const out = sql.replace(
    'AND (b.expected IS NULL OR a.last_seq = b.expected)',
    'AND (b.expected IS NULL OR a.last_seq = b.expected)\n    AND NOT EXISTS (SELECT 1 FROM acp_leases l WHERE l.namespace = $1 AND l.session_id = b.session_id AND l.owner <> $3)',
  );
  // an edit of BATCH_SQL must not drop the fence without a word
  if (out === sql) throw new Error('postgres-session-store: the lease fence no longer fits the batch statement');
  return out;
}
const BATCH_FENCED_SQL = fenced(BATCH_SQL);
const BATCH_NOTIFY_FENCED_SQL = fenced(BATCH_NOTIFY_SQL);

/**
 * A {@link SessionStore} on PostgreSQL (schema: docs/postgres.md). Writes are asynchronous and
 * batched: the appends and config changes issued while a batch is being written go together in the
 * next one (one statement, one transaction), and each write's promise resolves when its batch
 * committed, so the runtime sends an update only once it is in the database.
 *
 * MCP servers are not stored (as in the JSONL store: their environment may hold secrets). An
 * unreachable database refuses new sessions and restores with {@link SESSION_STORE_UNAVAILABLE}
 * ("the session store (PostgreSQL at host:port) is unreachable: ..."); appends of a running turn are
 * retried for `retryForMs`, then fail the turn.
 */
export class PostgresSessionStore implements SessionStore {
  readonly namespace: string;
  /** `host:port` of the database, for messages. */
  readonly where: string;
  private readonly options: PostgresSessionStoreOptions;
  private poolPromise: Promise<Pool> | undefined;
  private readonly writes = new TickBatcher<Pending>(MAX_BATCH, (batch) => this.flush(batch));
  /** `last_seq` as this store last wrote or read it, per session (the single writer's view). */
  private readonly seqs = new Map<string, number>();
  /** Sessions whose write failed: their later queued writes fail too (no gap in a history). */
  private readonly failed = new Map<string, AcpError>();
  private closed = false;

  constructor(options: PostgresSessionStoreOptions) {
    if (!options.url && !options.pool)
      throw new TypeError('PostgresSessionStore: give `url` (postgres://...) or `pool`');
    if (typeof options.namespace !== 'string')
      throw new TypeError('PostgresSessionStore: `namespace` must be a string');
    this.options = options;
    this.namespace = options.namespace;
    this.where = describeWhere(options);
    if (options.fanOut) {
      this.appendLive = (sessionId, update) => {
        const body = encodeBody(update);
        return this.enqueue((resolve, reject) => ({
          kind: 'append',
          sessionId,
          body,
          update,
          live: true,
          resolve,
          reject,
        }));
      };
    }
  }

  /** A store whose database is reachable and whose schema is current. */
  static async open(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
    const store = new PostgresSessionStore(options);
    await store.ready();
    return store;
  }

  /** Connects (loading `pg`) and migrates the schema; rejects with {@link SESSION_STORE_UNAVAILABLE} when the database cannot be reached. */
  async ready(): Promise<void> {
    await this.pool();
  }

  private pool(): Promise<Pool> {
    if (this.closed)
      return Promise.reject(
        new AcpError(SESSION_STORE_UNAVAILABLE, `the session store (PostgreSQL at ${this.where}) is closed`),
      );
    // a failed start is tried again on the next use (the database may be back)
    return (this.poolPromise ??= this.connect().catch((e: unknown) => {
      this.poolPromise = undefined;
      throw this.unavailable(e);
    }));
  }

  private async connect(): Promise<Pool> {
    const { pool: given, url } = this.options;
    // the constructor refused options with neither
    if (!given && !url) throw new TypeError('PostgresSessionStore: give `url` (postgres://...) or `pool`');
    const pool = given ?? (await createPostgresPool({ ...this.options, url: url ?? '' }));
    if (this.options.migrate !== false) {
      try {
        await migrate(pool);
      } catch (e) {
        if (!this.options.pool) await pool.end().catch(() => undefined);
        throw e;
      }
    }
    return pool;
  }

  /** The error for a failed operation: unreachable (connection-level) or the database's own error. */
  private unavailable(e: unknown): AcpError {
    return e instanceof AcpError ? e : postgresError(this.where, e);
  }

  /** Runs a read or an administrative write, with the store's errors. */
  private async query<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    const pool = await this.pool();
    try {
      return (await pool.query<R>(sql, params)).rows;
    } catch (e) {
      throw this.unavailable(e);
    }
  }

  async create(meta: StoredSessionMeta): Promise<void> {
    const pool = await this.pool();
    const { configValues, ...rest } = meta;
    const client = await pool.connect().catch((e: unknown) => Promise.reject(this.unavailable(e)));
    try {
      await client.query('BEGIN');
      // a session created again under its id starts over (like the JSONL store's new file)
      await client.query('DELETE FROM acp_sessions WHERE namespace = $1 AND session_id = $2', [
        this.namespace,
        meta.sessionId,
      ]);
      await client.query(
        'INSERT INTO acp_sessions (namespace, session_id, meta, config_values, title, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())',
        [
          this.namespace,
          meta.sessionId,
          JSON.stringify({ ...rest, title: meta.title ?? null }),
          configValues ? JSON.stringify(configValues) : null,
          meta.title ?? null,
          validDate(meta.createdAt),
        ],
      );
      await client.query('COMMIT');
      this.seqs.set(meta.sessionId, 0);
      this.failed.delete(meta.sessionId);
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.unavailable(e);
    } finally {
      client.release();
    }
  }

  append(sessionId: string, update: AnySessionUpdate): Promise<void> {
    // serialised now: the runtime owns the update, but a later mutation must not change what is stored
    const body = encodeBody(update);
    return this.enqueue((resolve, reject) => ({
      kind: 'append',
      sessionId,
      body,
      update,
      live: false,
      resolve,
      reject,
    }));
  }

  /**
   * With `fanOut` only: a live-only row (for clients on other instances; never replayed), in order
   * with the history. Without it the runtime does not write live-only updates at all.
   */
  readonly appendLive?: (sessionId: string, update: AnySessionUpdate) => Promise<void>;

  setConfigValues(sessionId: string, values: ConfigValues): Promise<void> {
    return this.enqueue((resolve, reject) => ({ kind: 'config', sessionId, values: { ...values }, resolve, reject }));
  }

  private enqueue(make: (resolve: () => void, reject: (e: unknown) => void) => Pending): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // writes issued in the same tick, and those issued while a batch is in flight, go together
      this.writes.push(make(resolve, reject));
    });
  }

  private async flush(batch: Pending[]): Promise<void> {
    const ready: Pending[] = [];
    for (const p of batch) {
      const failure = this.failed.get(p.sessionId);
      if (failure) p.reject(failure);
      else ready.push(p);
    }
    if (ready.length === 0) return;
    let outcome: Map<string, AcpError | undefined>;
    try {
      outcome = await this.writeBatch(ready);
    } catch (e) {
      const error = this.unavailable(e);
      outcome = new Map(ready.map((p) => [p.sessionId, error]));
    }
    for (const p of ready) {
      const error = outcome.get(p.sessionId);
      if (error) {
        this.failed.set(p.sessionId, error);
        p.reject(error);
      } else p.resolve();
    }
  }

  /** Writes a batch, retrying connection failures for `retryForMs`; per session: `undefined` (written) or why not. */
  private async writeBatch(batch: Pending[]): Promise<Map<string, AcpError | undefined>> {
    const rows = batchRows(batch, this.seqs);
    const deadline = Date.now() + (this.options.retryForMs ?? 10_000);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.writeRows(rows);
      } catch (e) {
        if (!isConnectionError(e) || Date.now() >= deadline || this.closed) throw e;
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 1_000)));
      }
    }
  }

  private async writeRows(rows: BatchRow[]): Promise<Map<string, AcpError | undefined>> {
    const pool = await this.pool();
    const owner = this.options.leaseOwner;
    const sql = this.options.fanOut
      ? owner === undefined
        ? BATCH_NOTIFY_SQL
        : BATCH_NOTIFY_FENCED_SQL
      : owner === undefined
        ? BATCH_SQL
        : BATCH_FENCED_SQL;
    const written = await pool.query<{ session_id: string; last_seq: string }>(
      sql,
      owner === undefined ? [this.namespace, batchJson(rows)] : [this.namespace, batchJson(rows), owner],
    );
    const outcome = new Map<string, AcpError | undefined>();
    for (const r of written.rows) {
      this.seqs.set(r.session_id, Number(r.last_seq));
      outcome.set(r.session_id, undefined);
    }
    const missing = rows.filter((r) => !outcome.has(r.session_id));
    if (missing.length === 0) return outcome;
    // not updated: an unknown session (ignored, like the other stores), a retried batch that had
    // committed (its `last_seq` already moved by exactly its count), or another writer
    const found = await pool.query<{ session_id: string; last_seq: string }>(
      'SELECT session_id, last_seq FROM acp_sessions WHERE namespace = $1 AND session_id = ANY($2)',
      [this.namespace, missing.map((r) => r.session_id)],
    );
    const now = new Map(found.rows.map((r) => [r.session_id, Number(r.last_seq)]));
    // fenced out: another instance holds the lease (it took the session over)
    const others = new Map<string, string>();
    if (owner !== undefined) {
      const leases = await pool.query<{ session_id: string; owner: string }>(
        'SELECT session_id, owner FROM acp_leases WHERE namespace = $1 AND session_id = ANY($2) AND owner <> $3',
        [this.namespace, missing.map((r) => r.session_id), owner],
      );
      for (const l of leases.rows) others.set(l.session_id, l.owner);
    }
    for (const r of missing) {
      const seq = now.get(r.session_id);
      if (seq === undefined) outcome.set(r.session_id, undefined);
      // a retry of a batch with rows that did commit (rows only: a config change alone is
      // idempotent and not applied only when fenced out or overtaken)
      else if (r.n > 0 && r.expected !== null && seq === r.expected + r.n && (await this.ownRows(pool, r))) {
        this.seqs.set(r.session_id, seq);
        outcome.set(r.session_id, undefined);
      } else if (others.has(r.session_id)) {
        outcome.set(
          r.session_id,
          new AcpError(
            SESSION_STORE_UNAVAILABLE,
            `the session store (PostgreSQL at ${this.where}): session ${r.session_id} is run by instance ${others.get(r.session_id)} now (instance ${owner} lost its lease, e.g. when it lost the database for longer than the lease); resume it again`,
            { sessionId: r.session_id, owner: others.get(r.session_id) },
          ),
        );
      } else {
        outcome.set(
          r.session_id,
          new AcpError(
            SESSION_STORE_UNAVAILABLE,
            `the session store (PostgreSQL at ${this.where}): session ${r.session_id} was written by another writer (expected update ${r.expected}, found ${seq}); resume it again`,
          ),
        );
      }
    }
    return outcome;
  }

  /**
   * Whether the `n` rows after `expected` are this batch's own (a retry of a batch that did commit).
   * `last_seq` having moved by exactly the batch's count is not enough: in a cluster, an instance
   * that lost the database longer than its lease is taken over, and the new owner may have appended
   * as many rows meanwhile (the end of the interrupted turn: one row). Taken for ours, the stalled
   * instance sent its client an update that is in no row, and its next write (the turn's end)
   * matched the moved `last_seq` and went into the table after the takeover: the follower saw the
   * turn end twice (docs/postgres-cluster.md: its writes must fail loudly instead of interleaving).
   */
  private async ownRows(pool: Pool, r: BatchRow): Promise<boolean> {
    const same = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(body, ord)
       JOIN acp_updates u ON u.namespace = $1 AND u.session_id = $2 AND u.seq = $4::bigint + t.ord
       WHERE u.body = t.body AND u.live = ($5::jsonb ->> (t.ord::int - 1))::boolean`,
      [this.namespace, r.session_id, `[${r.texts.join(',')}]`, r.expected, JSON.stringify(r.lives)],
    );
    return same.rows[0]?.n === r.n;
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    if (!isStorableSessionId(sessionId)) return undefined;
    // one statement: the metadata and the history of one snapshot
    const rows = await this.query<SessionRow & { history: [number, unknown][] }>(
      `SELECT s.session_id, s.meta, s.config_values, s.title, s.updated_at, s.last_seq,
        (SELECT coalesce(jsonb_agg(jsonb_build_array(u.seq, u.body) ORDER BY u.seq), '[]'::jsonb)
           FROM acp_updates u WHERE u.namespace = s.namespace AND u.session_id = s.session_id AND NOT u.live) AS history
       FROM acp_sessions s WHERE s.namespace = $1 AND s.session_id = $2`,
      [this.namespace, sessionId],
    );
    const row = rows[0];
    if (!row) return undefined;
    // a restored session is written by this store from here on
    this.seqs.set(sessionId, Number(row.last_seq));
    this.failed.delete(sessionId);
    const meta = metaOf(row);
    if (row.config_values) meta.configValues = row.config_values;
    return {
      meta,
      updates: row.history.map(([, body]) => decodeBody(body) as AnySessionUpdate),
      locations: row.history.map(([seq]) => `${this.where} ${this.namespace}/${sessionId} update ${seq}`),
    };
  }

  async list(): Promise<StoredSessionMeta[]> {
    const rows = await this.query<SessionRow>(
      'SELECT session_id, meta, title, updated_at FROM acp_sessions WHERE namespace = $1',
      [this.namespace],
    );
    return rows.map(metaOf);
  }

  /** One session's metadata as {@link list} reports it: one statement on the primary key. */
  async get(sessionId: string): Promise<StoredSessionMeta | undefined> {
    if (!isStorableSessionId(sessionId)) return undefined;
    const rows = await this.query<SessionRow>(
      'SELECT session_id, meta, title, updated_at FROM acp_sessions WHERE namespace = $1 AND session_id = $2',
      [this.namespace, sessionId],
    );
    const row = rows[0];
    return row ? metaOf(row) : undefined;
  }

  async delete(sessionId: string): Promise<void> {
    if (!isStorableSessionId(sessionId)) return;
    await this.query('DELETE FROM acp_sessions WHERE namespace = $1 AND session_id = $2', [this.namespace, sessionId]);
    this.seqs.delete(sessionId);
    this.failed.delete(sessionId);
  }

  /**
   * `session/fork` in one statement: the new session row (the source's config values and sequence
   * counter) and a copy of the source's history rows, by the database without a round trip per
   * update. Live-only rows are not history and stay behind; so does the archive flag. Without a
   * title of its own the copy keeps the source's.
   */
  async fork(sourceId: string, meta: StoredSessionMeta): Promise<boolean> {
    if (!isStorableSessionId(sourceId)) return false;
    if (!isStorableSessionId(meta.sessionId))
      throw new Error(`session id ${JSON.stringify(meta.sessionId)} cannot be stored`);
    const { configValues: _c, archived: _a, ...rest } = meta;
    const rows = await this.query<{ n: number; last_seq: string | null }>(
      `WITH src AS (
         SELECT namespace, config_values, last_seq, title FROM acp_sessions WHERE namespace = $1 AND session_id = $2
       ), ins AS (
         INSERT INTO acp_sessions (namespace, session_id, meta, config_values, title, created_at, updated_at, last_seq)
         SELECT namespace, $3, $4::jsonb, config_values, coalesce($5, title), $6, now(), last_seq FROM src
         RETURNING session_id, last_seq
       ), ups AS (
         INSERT INTO acp_updates (namespace, session_id, seq, live, body, created_at)
         SELECT u.namespace, $3, u.seq, false, u.body, u.created_at FROM acp_updates u
          WHERE u.namespace = $1 AND u.session_id = $2 AND NOT u.live AND EXISTS (SELECT 1 FROM ins)
       )
       SELECT count(*)::int AS n, max(last_seq)::text AS last_seq FROM ins`,
      [
        this.namespace,
        sourceId,
        meta.sessionId,
        JSON.stringify({ ...rest, title: meta.title ?? null }),
        meta.title ?? null,
        validDate(meta.createdAt),
      ],
    );
    const row = rows[0];
    if (!row || row.n === 0) return false;
    this.seqs.set(meta.sessionId, Number(row.last_seq ?? 0));
    this.failed.delete(meta.sessionId);
    return true;
  }

  /** `session/archive` / `unarchive`: the flag in the session's metadata, which `list` returns. */
  async setArchived(sessionId: string, archived: boolean): Promise<boolean> {
    if (!isStorableSessionId(sessionId)) return false;
    const rows = await this.query<{ session_id: string }>(
      `UPDATE acp_sessions SET meta = meta || jsonb_build_object('archived', $3::boolean)
        WHERE namespace = $1 AND session_id = $2 RETURNING session_id`,
      [this.namespace, sessionId, archived],
    );
    return rows.length > 0;
  }

  /** Waits for the writes issued so far, then ends the pool made from `url` (a pool you passed stays open). */
  async close(): Promise<void> {
    await this.writes.drained();
    this.closed = true;
    const pool = this.poolPromise;
    this.poolPromise = undefined;
    if (pool && !this.options.pool) await (await pool.catch(() => undefined))?.end();
  }
}

/** Options of {@link createPostgresPool}. */
export interface PostgresPoolOptions {
  url: string;
  /** `max`; default 10. */
  maxConnections?: number;
  /** `statement_timeout` of every connection; default 30 000 ms. */
  statementTimeoutMs?: number;
  /** Connection attempt timeout; default 5 000 ms. */
  connectTimeoutMs?: number;
}

/**
 * A `pg` pool as acp-kit uses it (loads `pg`): limited (`max`), `statement_timeout` per connection,
 * `application_name` `acp-kit`, and idle connections the server drops do not crash the process.
 * One pool can serve many {@link PostgresSessionStore}s (e.g. one per namespace).
 */
export async function createPostgresPool(options: PostgresPoolOptions): Promise<Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    application_name: 'acp-kit',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
  });
  // an idle connection the server dropped (restart, failover) must not crash the process: the pool
  // replaces it, and the next query reports an outage if there is one
  pool.on('error', () => undefined);
  return pool;
}

/** `host:port` of a connection string (no credentials), for messages; `undefined` when it is not a postgres:// URL. */
export function postgresHostPort(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return undefined;
    return `${u.hostname || 'localhost'}:${u.port || '5432'}`;
  } catch {
    return undefined;
  }
}

interface SessionRow {
  session_id: string;
  meta: StoredSessionMeta;
  config_values?: ConfigValues | null;
  title: string | null;
  updated_at: Date;
  last_seq?: string;
}

function metaOf(row: SessionRow): StoredSessionMeta {
  const meta: StoredSessionMeta = { ...row.meta, sessionId: row.session_id, title: row.title };
  delete meta.configValues;
  meta.additionalDirectories = Array.isArray(meta.additionalDirectories) ? meta.additionalDirectories : [];
  // an explicit `updatedAt` of the last session_info_update stands until the next append
  meta.updatedAt = meta.updatedAt ?? row.updated_at.toISOString();
  return meta;
}

/** One row per session of the batch, its writes in order. */
function batchRows(batch: Pending[], seqs: ReadonlyMap<string, number>): BatchRow[] {
  const bySession = new Map<string, BatchRow>();
  for (const p of batch) {
    let row = bySession.get(p.sessionId);
    if (!row) {
      row = {
        session_id: p.sessionId,
        n: 0,
        h: 0,
        expected: seqs.get(p.sessionId) ?? null,
        lives: [],
        texts: [],
        title_set: false,
        title: null,
        explicit_at: null,
        config_set: false,
        config: null,
      };
      bySession.set(p.sessionId, row);
    }
    if (p.kind === 'config') {
      row.config_set = true;
      row.config = p.values;
      continue;
    }
    row.n++;
    row.texts.push(p.body);
    row.lives.push(p.live);
    if (p.live) continue;
    row.h++;
    // titles (and an explicit updatedAt) are what `list` shows besides the creation metadata
    const u = p.update;
    row.explicit_at = null;
    if (u.sessionUpdate === 'session_info_update') {
      if (u.title !== undefined) {
        row.title_set = true;
        row.title = u.title ?? null;
      }
      if (typeof u.updatedAt === 'string') row.explicit_at = u.updatedAt;
    }
  }
  return [...bySession.values()];
}

/**
 * The batch statement's JSON parameter: each row with its `bodies` array made of the texts `append`
 * already serialised, spliced in as they are (an update is serialised once, not parsed back and
 * serialised again on the hot path).
 */
function batchJson(rows: readonly BatchRow[]): string {
  // JSON of a non-empty object ends with `}`: the bodies go in before it
  return `[${rows.map(({ texts, ...row }) => `${JSON.stringify(row).slice(0, -1)},"bodies":[${texts.join(',')}]}`).join(',')}]`;
}

/** Key of a body that could not be stored as JSON as is (it contains U+0000, which `jsonb` refuses). */
const ENCODED = '$acpKitJsonBase64';

function encodeBody(update: AnySessionUpdate): string {
  const text = JSON.stringify(update);
  // `jsonb` cannot hold U+0000 in a string: such a (rare) update is kept as base64 of its JSON
  return text.includes('\\u0000') ? JSON.stringify({ [ENCODED]: Buffer.from(text).toString('base64') }) : text;
}

function decodeBody(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const encoded = (body as Record<string, unknown>)[ENCODED];
    if (typeof encoded === 'string' && Object.keys(body).length === 1)
      return JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  }
  return body;
}

function validDate(iso: string): Date {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? new Date() : d;
}

/** `host:port` of a connection string (no credentials), for messages. */
function describeWhere(options: PostgresSessionStoreOptions): string {
  if (!options.url) return options.pool ? poolWhere(options.pool) : 'the given pool';
  return postgresHostPort(options.url) ?? 'an invalid URL';
}

/** `host:port` a pool connects to (no credentials), for messages. */
export function poolWhere(pool: Pool): string {
  const o = pool.options;
  if (o?.connectionString) return postgresHostPort(o.connectionString) ?? 'the given pool';
  return o?.host ? `${o.host}:${o.port ?? 5432}` : 'the given pool';
}

/**
 * The store's error for a failure of the database (`context`: where it was seen from, e.g. `from
 * instance node-2`): "unreachable" when it could not be reached, "failed" otherwise.
 */
export function postgresError(where: string, e: unknown, context = ''): AcpError {
  const reason = e instanceof Error ? e.message || e.name : String(e);
  const at = `the session store (PostgreSQL at ${where})`;
  return new AcpError(
    SESSION_STORE_UNAVAILABLE,
    isConnectionError(e) ? `${at} is unreachable${context}: ${reason}` : `${at} failed${context}: ${reason}`,
  );
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01',
  '57P02',
  '57P03',
]);

/** Whether an error means the database could not be reached (worth retrying), not that it refused the statement. */
export function isConnectionError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/i.test(
    e.message,
  );
}
