/**
 * The PostgreSQL session store: sessions of several `serve` instances in one database.
 *
 * @module
 */
export {
  PostgresSessionStore,
  createPostgresPool,
  postgresHostPort,
  isConnectionError,
  type PostgresSessionStoreOptions,
  type PostgresPoolOptions,
} from './postgres-session-store.js';
export { migrate, prune, MIGRATIONS, type Migration, type MigrateResult } from './migrations.js';
export type { PgPool, PgPoolClient, PgQueryable, PgQueryResult, PgRow } from './pg-types.js';
