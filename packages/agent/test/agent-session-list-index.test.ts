// session/list scales: JsonlSessionStore answers from small index files, never from the histories.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlSessionStore } from '../src/index.js';
import { listPage } from '../src/session-list.js';
import { tempDataDir } from '../../../test/support/agent-harness.js';

const dirs: string[] = [];
const stores: JsonlSessionStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function makeStore(): { store: JsonlSessionStore; dir: string } {
  const root = tempDataDir();
  dirs.push(root);
  const dir = join(root, 'sessions');
  const store = new JsonlSessionStore({ dir });
  stores.push(store);
  return { store, dir };
}

const chunk = (text: string) =>
  ({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text } }) as const;
// beyond V8's longest string (~512 MiB): a store that reads a whole history as text cannot list these
const HUGE = 600 * 1024 * 1024;

describe('JsonlSessionStore list without reading histories', () => {
  it('a session_info_update without title or updatedAt (token usage, every turn) leaves the index file alone; a title rewrites it', () => {
    const { store, dir } = makeStore();
    store.create({ sessionId: 'sess_u', cwd: '/w', additionalDirectories: [], createdAt: '2026-01-01T00:00:00.000Z' });
    const index = join(dir, 'sess_u.meta.json');
    // the index is written to a temporary file and renamed over the old one: a new inode each write
    const before = statSync(index).ino;
    store.append('sess_u', { sessionUpdate: 'session_info_update', _meta: { usage: { outputTokens: 3 } } });
    expect(statSync(index).ino).toBe(before);
    store.append('sess_u', { sessionUpdate: 'session_info_update', title: 'Named' });
    expect(statSync(index).ino).not.toBe(before);
    expect(JSON.parse(readFileSync(index, 'utf8')).title).toBe('Named');
    // both are history all the same
    expect(readFileSync(join(dir, 'sess_u.jsonl'), 'utf8').match(/session_info_update/g)).toHaveLength(2);
  });

  it('300 sessions, some with 600 MB (sparse) histories: every one listed with its title; paging and the cwd filter stay right', async () => {
    const { store, dir } = makeStore();
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const sessionId = `sess_${String(i).padStart(3, '0')}`;
      ids.push(sessionId);
      store.create({
        sessionId,
        cwd: i % 3 === 0 ? '/w/a' : '/w/b',
        additionalDirectories: [],
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      store.append(sessionId, chunk('hello'));
      store.append(sessionId, { sessionUpdate: 'session_info_update', title: `Title ${i}` });
      store.append(sessionId, chunk('more'));
    }
    store.close();
    for (const i of [0, 150, 299]) truncateSync(join(dir, `${ids[i]}.jsonl`), HUGE);

    const fresh = new JsonlSessionStore({ dir });
    stores.push(fresh);
    const all = await fresh.list();
    expect(all.map((m) => m.sessionId).sort()).toEqual(ids);
    expect(all.find((m) => m.sessionId === 'sess_150')?.title).toBe('Title 150');
    expect(all.every((m) => typeof m.updatedAt === 'string')).toBe(true);

    // paging: 50 per page, every session once
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = listPage(all, null, cursor);
      seen.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(6);
    expect(seen.sort()).toEqual(ids);
    const a = listPage(all, '/w/a', null);
    expect(a.sessions.every((s) => s.cwd === '/w/a')).toBe(true);
    expect(a.sessions.length).toBe(50);
  });

  it('titles and updatedAt follow later appends; concurrent lists agree', async () => {
    const { store } = makeStore();
    store.create({ sessionId: 'sess_t', cwd: '/w', additionalDirectories: [], createdAt: '2020-01-01T00:00:00.000Z' });
    expect((await store.list())[0].title ?? null).toBeNull();
    store.append('sess_t', { sessionUpdate: 'session_info_update', title: 'First' });
    expect((await store.list())[0].title).toBe('First');
    store.append('sess_t', {
      sessionUpdate: 'session_info_update',
      title: 'Second',
      updatedAt: '2021-05-05T00:00:00.000Z',
    });
    const lists = await Promise.all(Array.from({ length: 40 }, () => store.list()));
    for (const l of lists)
      expect(l.map((m) => [m.sessionId, m.title, m.updatedAt])).toEqual([
        ['sess_t', 'Second', '2021-05-05T00:00:00.000Z'],
      ]);
    await store.delete('sess_t');
    expect(await store.list()).toEqual([]);
  });

  it('a session file without an index (older version) is listed with its title, and indexed once', async () => {
    const { store, dir } = makeStore();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'sess_old.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({
          acpKitSession: 1,
          sessionId: 'sess_old',
          cwd: '/w',
          additionalDirectories: [],
          createdAt: '2020-01-01T00:00:00.000Z',
          title: null,
        }),
        JSON.stringify(chunk('x')),
        JSON.stringify({ sessionUpdate: 'session_info_update', title: 'Old one' }),
        '',
      ].join('\n'),
    );
    expect((await store.list()).map((m) => m.title)).toEqual(['Old one']);
    expect(existsSync(join(dir, 'sess_old.meta.json'))).toBe(true);
    // from now on the history is not needed: a huge one still lists
    truncateSync(file, HUGE);
    const fresh = new JsonlSessionStore({ dir });
    stores.push(fresh);
    expect((await fresh.list()).map((m) => m.title)).toEqual(['Old one']);
    unlinkSync(join(dir, 'sess_old.meta.json'));
  });
});
