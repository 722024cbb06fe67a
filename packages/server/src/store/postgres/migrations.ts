/**
 * The PostgreSQL store's schema, as numbered migrations applied in order and recorded in
 * `acp_schema_migrations` (so `acp-kit db migrate` is idempotent and a newer acp-kit only adds).
 */
import type { PgPool as Pool, PgPoolClient as PoolClient } from './pg-types.js';
import { CLUSTER_MIGRATION } from './cluster-migration.js';

/** One schema step: applied once, in a transaction, in `version` order. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Migration 1: sessions and their ordered updates. `last_seq` is the session's last assigned
 * sequence number (gap-free, per session, assigned by the store); `live` rows (live-only updates
 * written for fan-out) are never replayed; `meta` is the `StoredSessionMeta` without config values.
 */
const SESSIONS_AND_UPDATES: Migration = {
  version: 1,
  name: 'sessions and updates',
  sql: `
CREATE TABLE acp_sessions (
  namespace text NOT NULL,
  session_id text NOT NULL,
  meta jsonb NOT NULL,
  config_values jsonb,
  title text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_seq bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (namespace, session_id)
);
CREATE INDEX acp_sessions_updated_at ON acp_sessions (updated_at);
CREATE TABLE acp_updates (
  namespace text NOT NULL,
  session_id text NOT NULL,
  seq bigint NOT NULL,
  live boolean NOT NULL DEFAULT false,
  body jsonb NOT NULL,
  created_at timestamptz DEFAULT now(),
  PRIMARY KEY (namespace, session_id, seq),
  FOREIGN KEY (namespace, session_id) REFERENCES acp_sessions ON DELETE CASCADE
);
`,
};

/** Every migration acp-kit knows, in order (later releases append). */
export const MIGRATIONS: readonly Migration[] = [SESSIONS_AND_UPDATES, CLUSTER_MIGRATION];

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Versions applied by this call, in order (empty: the schema was current). */
  applied: number[];
  /** The schema version after the call. */
  version: number;
}

// one lock key for "acp-kit schema migration": concurrent migrators (several instances starting)
// take turns instead of racing on CREATE TABLE
const MIGRATION_LOCK = 0x61_63_70_6b; // "acpk"

/**
 * Brings the schema to the newest version: applies the migrations not yet recorded, each in its own
 * transaction, under an advisory lock so instances starting together do not race. Idempotent.
 */
export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrateResult> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS acp_schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set(
        (await client.query<{ version: number }>('SELECT version FROM acp_schema_migrations')).rows.map(
          (r) => r.version,
        ),
      );
      const applied: number[] = [];
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(m.version)) continue;
        await inTransaction(client, async () => {
          await client.query(m.sql);
          await client.query('INSERT INTO acp_schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        });
        applied.push(m.version);
        done.add(m.version);
      }
      return { applied, version: Math.max(0, ...done) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * Retention: deletes the sessions (of every namespace, or of `namespace`) not updated since
 * `olderThan` ago, with their updates. Returns how many sessions were deleted.
 */
export async function prune(pool: Pool, olderThanMs: number, namespace?: string): Promise<number> {
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0)
    throw new RangeError(`olderThan: must be a duration >= 0 ms, got ${olderThanMs}`);
  const cutoff = new Date(Date.now() - olderThanMs);
  const r =
    namespace === undefined
      ? await pool.query('DELETE FROM acp_sessions WHERE updated_at < $1', [cutoff])
      : await pool.query('DELETE FROM acp_sessions WHERE updated_at < $1 AND namespace = $2', [cutoff, namespace]);
  return r.rowCount ?? 0;
}

/** Runs `body` between BEGIN and COMMIT (ROLLBACK when it throws). */
export async function inTransaction<T>(client: PoolClient, body: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await body();
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
