/**
 * A real PostgreSQL server for the store tests: one throwaway cluster per test run (started by the
 * first test file that needs it, stopped by the global teardown; see scripts/pg-cluster.mjs), and one
 * fresh database per test file, dropped after it.
 *
 * Without server binaries: under CI (`CI=true`) the PostgreSQL tests fail; locally they are skipped
 * with a loud message (the only skip the suite allows).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { findPostgresBin, MISSING_POSTGRES, sharedClusterUrl, startCluster } from '../../scripts/pg-cluster.mjs';

const BIN = findPostgresBin();
const IN_CI = process.env.CI === 'true';

/** `describe` for tests that need PostgreSQL: skipped loudly when the server is missing outside CI. */
export const describePostgres: typeof describe = BIN || IN_CI ? describe : skipLoudly();

function skipLoudly(): typeof describe {
  const skip = ((name: string, ...rest: unknown[]) => {
    console.warn(
      `\n\x1b[33m[postgres] SKIPPED "${name}": ${MISSING_POSTGRES}. Under CI=true these tests fail instead.\x1b[0m\n`,
    );
    return (describe.skip as (...a: unknown[]) => unknown)(name, ...rest);
  }) as unknown as typeof describe;
  return skip;
}

/** The database of the current test file. */
export interface PostgresDatabase {
  /** `postgres://postgres@127.0.0.1:PORT/<fresh db>`; read it in tests/hooks, not at import time. */
  readonly url: string;
  /** The cluster's maintenance url (database `postgres`), for creating more databases. */
  readonly clusterUrl: string;
  /** A further fresh database on the same cluster (dropped after the file too). */
  newDatabase(): Promise<string>;
}

/**
 * For a test file (call it inside {@link describePostgres}): a fresh database on the run's shared
 * cluster (or on a cluster of this file's own when the run has none, e.g. outside vitest's global setup).
 */
export function usePostgres(): PostgresDatabase {
  let clusterUrl: string | undefined;
  let url: string | undefined;
  let ownStop: (() => void) | undefined;
  const databases: string[] = [];

  async function createDatabase(): Promise<string> {
    if (!clusterUrl)
      throw new Error('usePostgres: the cluster is not up (use the url in tests or hooks, not at import time)');
    const name = `acp_test_${randomBytes(6).toString('hex')}`;
    await admin(clusterUrl, `CREATE DATABASE ${name}`);
    databases.push(name);
    const u = new URL(clusterUrl);
    u.pathname = `/${name}`;
    return u.toString();
  }

  beforeAll(async () => {
    if (!BIN) throw new Error(`${MISSING_POSTGRES} (CI=true: the PostgreSQL tests are required)`);
    const shared = process.env.ACP_KIT_PG_SHARED;
    if (shared) clusterUrl = await sharedClusterUrl(shared);
    else {
      const cluster = await startCluster();
      ownStop = () => cluster.stop();
      clusterUrl = cluster.url;
    }
    url = await createDatabase();
  });

  afterAll(async () => {
    try {
      if (clusterUrl && !ownStop)
        for (const name of databases.splice(0)) await admin(clusterUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      ownStop?.();
    }
  });

  return {
    get url() {
      if (!url) throw new Error('usePostgres: no database yet (use the url in tests or hooks, not at import time)');
      return url;
    },
    get clusterUrl() {
      if (!clusterUrl) throw new Error('usePostgres: the cluster is not up');
      return clusterUrl;
    },
    newDatabase: createDatabase,
  };
}

/** One statement on a short-lived connection (CREATE/DROP DATABASE cannot run in a transaction or pool). */
export async function admin(url: string, sql: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
