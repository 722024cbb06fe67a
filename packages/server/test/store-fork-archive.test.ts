// Session stores and the unstable session methods: fork (a copy of history and config values under
// a new id) and the archive flag, for the in-memory store (through the runtime's load + create +
// append fallback), the JSONL store (a file copy) and the PostgreSQL store (one statement), against
// a real PostgreSQL server (test/support/postgres.ts); then the agent runtime on PostgreSQL.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySessionStore, JsonlSessionStore, type SessionStore } from '../../agent/src/index.js';
import { forkStored } from '../../agent/src/session-store.js';
import type { AgentDefinition } from '../../agent/src/types.js';
import type { AnySessionUpdate } from '../../protocol/src/model/update.js';
import { PostgresSessionStore } from '../src/store/postgres/index.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';
import { describePostgres, usePostgres } from '../../../test/support/postgres.js';
import { tempDir } from '../../../test/support/temp.js';

const chunk = (text: string): AnySessionUpdate => ({
  sessionUpdate: 'agent_message_chunk',
  messageId: `m-${text}`,
  content: { type: 'text', text },
});
const meta = (sessionId: string) => ({
  sessionId,
  cwd: '/tmp/w',
  additionalDirectories: [],
  createdAt: '2026-01-02T03:04:05.000Z',
  title: null,
});
const texts = (updates: readonly AnySessionUpdate[] | undefined) =>
  (updates ?? []).flatMap((u) =>
    u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [],
  );

/** The same checks for every store: fork copies history, title and config values; archive is a flag `list` reports. */
async function forkAndArchive(store: SessionStore): Promise<void> {
  await store.create(meta('src'));
  await store.append('src', chunk('a'));
  await store.append('src', { sessionUpdate: 'session_info_update', title: 'Source title' });
  await store.append('src', chunk('b'));
  await store.setConfigValues('src', { mode: 'plan' });
  expect(await store.setArchived?.('src', true)).toBe(true);
  expect(await forkStored(store, 'src', meta('copy'))).toBe(true);
  const copy = await store.load('copy');
  expect(texts(copy?.updates)).toEqual(['a', 'b']);
  expect(copy?.meta.configValues).toEqual({ mode: 'plan' });
  expect(copy?.meta.title).toBe('Source title');
  // the copy is not archived; it goes its own way from here
  await store.append('copy', chunk('c'));
  expect(texts((await store.load('src'))?.updates)).toEqual(['a', 'b']);
  expect(texts((await store.load('copy'))?.updates)).toEqual(['a', 'b', 'c']);
  const listed = new Map((await store.list()).map((m) => [m.sessionId, m]));
  expect(listed.get('src')?.archived).toBe(true);
  expect(listed.get('copy')?.archived ?? false).toBe(false);
  expect(listed.get('copy')?.title).toBe('Source title');
  expect(await store.setArchived?.('src', false)).toBe(true);
  expect((await store.list()).find((m) => m.sessionId === 'src')?.archived).toBe(false);
  // unknown sessions
  expect(await forkStored(store, 'nope', meta('copy2'))).toBe(false);
  expect(await store.load('copy2')).toBeUndefined();
  expect(await store.setArchived?.('nope', true)).toBe(false);
}

describe('fork and archive in the file and memory stores', () => {
  it('in-memory store (fork through load + create + append)', async () => {
    const store = new InMemorySessionStore();
    expect(store.fork).toBeUndefined();
    await forkAndArchive(store);
  });

  it('JSONL store: a file copy; the archive flag survives a new store instance on the same folder', async () => {
    const dir = tempDir('acp-fork-');
    await forkAndArchive(new JsonlSessionStore({ dir }));
    const first = new JsonlSessionStore({ dir });
    await first.setArchived('copy', true);
    first.close();
    const again = new JsonlSessionStore({ dir });
    expect((await again.list()).find((m) => m.sessionId === 'copy')?.archived).toBe(true);
    expect((await again.load('copy'))?.meta.archived).toBe(true);
    again.close();
  });
});

describePostgres('fork and archive in PostgresSessionStore', () => {
  const db = usePostgres();
  let pool: pg.Pool;
  const stores: PostgresSessionStore[] = [];
  const pairs: InProcessPair[] = [];
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    pool.on('error', () => undefined);
  });
  afterEach(async () => {
    await Promise.all(pairs.splice(0).map((p) => p.close()));
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await pool.end();
  });

  it('copies history and config values in one statement; the archive flag is listed', async () => {
    const store = await PostgresSessionStore.open({ pool, namespace: 'fork-a' });
    stores.push(store);
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    // count what reaches the database while forking (pool.query is the store's only way there for reads)
    const counting = ((text: unknown, ...rest: unknown[]) => {
      statements.push(String(text));
      return (query as (...a: unknown[]) => unknown)(text, ...rest);
    }) as typeof pool.query;
    await store.create(meta('src'));
    for (let i = 0; i < 30; i++) await store.append('src', chunk(`u${i}`));
    pool.query = counting;
    try {
      expect(await store.fork('src', meta('copy'))).toBe(true);
    } finally {
      pool.query = query;
    }
    expect(statements.length).toBe(1);
    expect(texts((await store.load('copy'))?.updates)).toEqual(Array.from({ length: 30 }, (_, i) => `u${i}`));
    await forkAndArchive(
      await PostgresSessionStore.open({ pool, namespace: 'fork-b' }).then((s) => (stores.push(s), s)),
    );
  });

  it('session/status and set_title of a stored session: one statement on its key, not the list of all', async () => {
    const store = await PostgresSessionStore.open({ pool, namespace: 'status-get' });
    stores.push(store);
    for (const id of ['sess_one', 'sess_two', 'sess_three']) await store.create(meta(id));
    await store.setArchived('sess_two', true);
    expect(await store.get('sess_two')).toEqual((await store.list()).find((m) => m.sessionId === 'sess_two'));
    expect(await store.get('sess_nope')).toBeUndefined();
    expect(await store.get('')).toBeUndefined();
    const def: AgentDefinition = {
      info: { name: 'pg-status', version: '1' },
      sessionMethods: { status: true, title: true },
      prompt: async () => 'end_turn',
    };
    const p = await connectInProcess(def, { version: 2, serve: { store }, schema: 'unstable' });
    pairs.push(p);
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    // what reaches the database while answering (pool.query is the store's only way there for reads)
    pool.query = ((text: unknown, ...rest: unknown[]) => {
      statements.push(String(text));
      return (query as (...a: unknown[]) => unknown)(text, ...rest);
    }) as typeof pool.query;
    try {
      expect(await p.conn.sessionStatus('sess_two')).toEqual({ status: 'saved' });
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/WHERE namespace = \$1 AND session_id = \$2/);
      await expect(p.conn.sessionStatus('sess_nope')).rejects.toMatchObject({ code: -32002 });
      expect(statements).toHaveLength(2);
    } finally {
      pool.query = query;
    }
    expect(await p.conn.setSessionTitle('sess_one', 'Stored title')).toBe('Stored title');
    expect((await store.get('sess_one'))?.title).toBe('Stored title');
    p.tap.assertAllValid();
  });

  it('the agent runtime forks a session stored in PostgreSQL; the fork appends after the copied rows', async () => {
    const store = await PostgresSessionStore.open({ pool, namespace: 'fork-runtime' });
    stores.push(store);
    const def: AgentDefinition = {
      info: { name: 'pg-fork', version: '1' },
      sessionMethods: { fork: true, archive: true },
      prompt: async (turn) => {
        const first = turn.prompt[0];
        await turn.send(chunk(first?.type === 'text' ? first.text : '?'));
        return 'end_turn';
      },
    };
    const p = await connectInProcess(def, { version: 2, serve: { store }, schema: 'unstable' });
    pairs.push(p);
    const s = await p.conn.newSession({ cwd: '/tmp/w' });
    await s.prompt('one');
    const fork = await s.fork();
    await fork.prompt('two');
    expect(texts((await store.load(fork.sessionId))?.updates)).toEqual(['one', 'two']);
    expect(texts((await store.load(s.sessionId))?.updates)).toEqual(['one']);
    await s.archive();
    const listed = await p.conn.listAllSessions({ archived: 'include' });
    expect(listed.map((i) => [i.sessionId, i.archived]).sort()).toEqual(
      [
        [s.sessionId, true],
        [fork.sessionId, false],
      ].sort(),
    );
    p.tap.assertAllValid();
  });
});
