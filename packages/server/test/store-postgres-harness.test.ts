/**
 * The PostgreSQL test harness itself: a real server, a fresh database per file, dropped afterwards.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';

describePostgres('PostgreSQL test harness', () => {
  const db = usePostgres();

  it('gives the file a fresh, empty database of its own on a real server', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string; tables: string; version: string }>(
        `SELECT current_database() AS db, (SELECT count(*) FROM pg_tables WHERE schemaname = 'public') AS tables, version() AS version`,
      );
      expect(rows[0].db).toBe(new URL(db.url).pathname.slice(1));
      expect(rows[0].db).toMatch(/^acp_test_[0-9a-f]{12}$/);
      expect(Number(rows[0].tables)).toBe(0);
      expect(rows[0].version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await client.end();
    }
  });

  it('makes further databases on the same cluster on request', async () => {
    const other = await db.newDatabase();
    expect(other).not.toBe(db.url);
    expect(new URL(other).port).toBe(new URL(db.url).port);
    const client = new pg.Client({ connectionString: other });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
      expect(rows[0].db).toBe(new URL(other).pathname.slice(1));
    } finally {
      await client.end();
    }
  });
});
