// `acp-kit db migrate|prune` and `acp-kit serve --store postgres://` as real processes
// (bin/acp-kit.js, from dist/) against a real PostgreSQL server. Needs `npm run build`.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { connect, type ClientConnection } from '../packages/client/src/index.js';
import { describePostgres, usePostgres } from './support/postgres.js';

const BIN = fileURLToPath(new URL('../bin/acp-kit.js', import.meta.url));
const procs: ChildProcess[] = [];
const open: ClientConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  const proc = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ACP_KIT_DATABASE_URL: '', ...env },
  });
  procs.push(proc);
  let out = '';
  let err = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve) => proc.once('close', (code) => resolve({ code, out, err })));
}

async function query<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

describePostgres('acp-kit db and serve --store postgres://', () => {
  const db = usePostgres();

  it('db migrate applies the schema once and says so; a second run applies nothing', async () => {
    const url = await db.newDatabase();
    const first = await run(['db', 'migrate', '--url', url]);
    expect(first).toMatchObject({ code: 0, out: 'applied migrations 1, 2; schema version 2\n' });
    // the URL may come from the environment too
    const second = await run(['db', 'migrate'], { ACP_KIT_DATABASE_URL: url });
    expect(second).toMatchObject({ code: 0, out: 'schema is up to date (version 2); nothing applied\n' });
    expect(await query(url, 'SELECT version FROM acp_schema_migrations')).toEqual([{ version: 1 }, { version: 2 }]);
  });

  it('db prune deletes the sessions not updated for the given time and prints how many', async () => {
    const url = await db.newDatabase();
    expect((await run(['db', 'migrate', '--url', url])).code).toBe(0);
    await query(
      url,
      `INSERT INTO acp_sessions (namespace, session_id, meta, updated_at) VALUES ('o', 'old1', '{}', now() - interval '31 days'), ('o', 'old2', '{}', now() - interval '40 days'), ('o', 'new', '{}', now())`,
    );
    const r = await run(['db', 'prune', '--older-than', '30d', '--url', url]);
    expect(r).toMatchObject({ code: 0, out: 'deleted 2 sessions not updated for 30d\n' });
    expect(await query(url, 'SELECT session_id FROM acp_sessions')).toEqual([{ session_id: 'new' }]);
  });

  it('db commands: a bad duration, a bad URL or no URL is a usage error (exit 2) saying what to do; an unreachable server exits 1 naming it', async () => {
    const badDuration = await run(['db', 'prune', '--older-than', '30 days', '--url', db.url]);
    expect(badDuration.code).toBe(2);
    expect(badDuration.err).toContain(
      '--older-than must be a duration like 30d, 12h, 90m, 45s or 500ms (got "30 days")',
    );
    const badUrl = await run(['db', 'migrate', '--url', 'mysql://x@h/db']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.err).toContain('--url must be a postgres:// or postgresql:// URL (got "mysql://x@h/db")');
    const none = await run(['db', 'migrate']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(
      /no database given[\s\S]*--url postgres:\/\/user@host:port\/db or set \$ACP_KIT_DATABASE_URL/,
    );
    const down = await run(['db', 'migrate', '--url', 'postgres://postgres@127.0.0.1:1/x']);
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/the database \(PostgreSQL at 127\.0\.0\.1:1\) is unreachable: .*ECONNREFUSED/);
  });

  it("serve --store postgres:// keeps the built-in agent's sessions in the database, one namespace per token, and resumes them after a restart", async () => {
    const url = await db.newDatabase();
    const startServe = async () => {
      const proc = spawn(
        process.execPath,
        [BIN, 'serve', '--port', '0', '--token', 'tok-1-0123456789abcdef', '--model', 'demo', '--store', url],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      procs.push(proc);
      let err = '';
      proc.stderr!.on('data', (c) => (err += c));
      const first = await new Promise<{ ws: string }>((resolve, reject) => {
        proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
        createInterface({ input: proc.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
      });
      return { proc, ws: first.ws };
    };
    const one = await startServe();
    const conn = await connect({ url: one.ws, token: 'tok-1-0123456789abcdef' });
    open.push(conn);
    const s = await conn.newSession({ cwd: process.cwd() });
    expect((await s.prompt('hello there')).stopReason).toBe('end_turn');
    const said = s.state.messageList.map((m) => m.text);
    await conn.close();
    open.splice(0);
    const rows = await query<{ namespace: string; n: number }>(
      url,
      'SELECT s.namespace, count(u.seq)::int AS n FROM acp_sessions s JOIN acp_updates u USING (namespace, session_id) WHERE s.session_id = $1 GROUP BY s.namespace',
      [s.sessionId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].n).toBeGreaterThan(1);
    // the namespace is the token's owner id, not the token
    expect(rows[0].namespace).not.toContain('tok-1-0123456789abcdef');
    const stopped = new Promise((r) => one.proc.once('exit', r));
    one.proc.kill('SIGTERM');
    await stopped;

    // another instance on the same database serves the session
    const two = await startServe();
    const again = await connect({ url: two.ws, token: 'tok-1-0123456789abcdef' });
    open.push(again);
    const resumed = await again.resumeSession(s.sessionId, { cwd: process.cwd(), replay: true });
    expect(resumed.state.messageList.map((m) => m.text)).toEqual(said);
  });

  it('serve --store with a bad URL or an unreachable database does not start, saying why', async () => {
    const bad = await run([
      'serve',
      '--port',
      '0',
      '--token',
      'token-0123456789abcdef',
      '--model',
      'demo',
      '--store',
      'redis://x',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--store must be jsonl or a postgres:// URL (got "redis://x")');
    const down = await run([
      'serve',
      '--port',
      '0',
      '--token',
      'token-0123456789abcdef',
      '--model',
      'demo',
      '--store',
      'postgres://postgres@127.0.0.1:1/x',
    ]);
    expect(down.code).toBe(2);
    expect(down.err).toMatch(
      /the session store \(PostgreSQL at 127\.0\.0\.1:1\) is unreachable or refused the schema: .*ECONNREFUSED/,
    );
  });
});
