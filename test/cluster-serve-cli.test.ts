// `acp-kit serve`'s cluster flags as a real process (bin/acp-kit.js, from dist/: needs `npm run
// build`): misuse is a usage error (exit 2) saying what to do, before anything connects; with a
// PostgreSQL store the instance announces itself as a cluster instance.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { expect, it } from 'vitest';
import { connect } from '../packages/client/src/index.js';
import { describePostgres, usePostgres } from './support/postgres.js';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));

function run(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (c) => (err += c));
    p.once('exit', (code) => resolve({ code, err }));
  });
}

it('--instance-id / --lease-ms without a postgres:// store, a bad id or a too short lease: exit 2 with what to do', async () => {
  const noStore = await run(['--lease-ms', '2000']);
  expect(noStore.code).toBe(2);
  expect(noStore.err).toMatch(/--instance-id and --lease-ms are for cluster mode/);
  expect(noStore.err).toMatch(/--store postgres:\/\//);
  const jsonl = await run(['--store', 'jsonl', '--instance-id', 'a']);
  expect(jsonl.code).toBe(2);
  // checked before the database is reached (this URL points nowhere)
  const badId = await run(['--store', 'postgres://nobody@127.0.0.1:1/none', '--instance-id', 'has space']);
  expect(badId.code).toBe(2);
  expect(badId.err).toMatch(/--instance-id must be 1-100 letters/);
  const short = await run(['--store', 'postgres://nobody@127.0.0.1:1/none', '--lease-ms', '100']);
  expect(short.code).toBe(2);
  expect(short.err).toMatch(/--lease-ms must be at least 300 \(got 100\)/);
}, 30_000);

describePostgres('serve --store postgres:// is a cluster instance', () => {
  const db = usePostgres();
  it('names its instance id and lease, and stops cleanly on SIGTERM giving its leases back', async () => {
    const p = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        '0',
        '--store',
        db.url,
        '--instance-id',
        'cli-1',
        '--lease-ms',
        '1200',
        '--model',
        'demo',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ACP_KIT_SERVE_TOKEN: 'cli-token-0123456789abcdef' },
      },
    );
    let err = '';
    p.stderr!.on('data', (c) => (err += c));
    try {
      const { ws } = await new Promise<{ ws: string }>((resolve, reject) => {
        p.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
        createInterface({ input: p.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
      });
      expect(err).toMatch(/cluster instance cli-1 \(lease 1200 ms\)/);
      // a session open here: this instance holds its lease
      const conn = await connect({ url: ws, token: 'cli-token-0123456789abcdef', protocol: 2 });
      const s = await conn.newSession({ cwd: process.cwd() });
      const leases = async () => {
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        try {
          return (await c.query('select session_id, owner from acp_leases')).rows;
        } finally {
          await c.end();
        }
      };
      expect(await leases()).toEqual([{ session_id: s.sessionId, owner: 'cli-1' }]);
      const exited = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
      p.kill('SIGTERM');
      expect(await exited).toBe(0);
      await conn.close().catch(() => undefined);
      // given back, not left to expire: another instance can take the session at once
      expect(await leases()).toEqual([]);
    } finally {
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
  }, 30_000);
});
