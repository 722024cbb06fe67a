// The SessionStore contract, for the JSONL and in-memory stores, and session/list paging.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemorySessionStore, JsonlSessionStore, type SessionStore } from '../src/index.js';
import { listPage } from '../src/session-list.js';
import { tempDataDir } from '../../../test/support/agent-harness.js';

const chunk = (text: string) =>
  ({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text } }) as const;

describe.each([
  ['JsonlSessionStore', () => new JsonlSessionStore({ dir: join(tempDataDir(), 'sessions') })],
  ['InMemorySessionStore', () => new InMemorySessionStore()],
] as const)('%s', (_name, make: () => SessionStore) => {
  it('round-trips metadata, updates in order, config values and titles', async () => {
    const store = make();
    store.create({
      sessionId: 'sess_a',
      cwd: '/w',
      additionalDirectories: ['/x'],
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    store.append('sess_a', chunk('one'));
    store.setConfigValues('sess_a', { mode: 'ask' });
    store.append('sess_a', { sessionUpdate: 'session_info_update', title: 'First' });
    store.append('sess_a', chunk('two'));
    store.setConfigValues('sess_a', { mode: 'code', fast: true });
    const s = await store.load('sess_a');
    expect(s?.meta).toMatchObject({
      sessionId: 'sess_a',
      cwd: '/w',
      additionalDirectories: ['/x'],
      title: 'First',
      configValues: { mode: 'code', fast: true },
    });
    expect(s?.updates.map((u: any) => u.content?.text ?? u.title)).toEqual(['one', 'First', 'two']);
    const listed = await store.list();
    expect(listed.map((m) => [m.sessionId, m.title])).toEqual([['sess_a', 'First']]);
    expect(typeof listed[0].updatedAt).toBe('string');
  });

  it('get reports one session as list does (archived ones too); unknown and unusable ids are absent', async () => {
    const store = make();
    for (const id of ['sess_g1', 'sess_g2'])
      await store.create({
        sessionId: id,
        cwd: '/w',
        additionalDirectories: [],
        createdAt: '2026-01-01T00:00:00.000Z',
      });
    await store.append('sess_g2', { sessionUpdate: 'session_info_update', title: 'Second' });
    await store.setConfigValues('sess_g2', { mode: 'ask' });
    await store.setArchived?.('sess_g2', true);
    const listed = new Map((await store.list()).map((m) => [m.sessionId, m]));
    expect(await store.get?.('sess_g2')).toEqual(listed.get('sess_g2'));
    expect(await store.get?.('sess_g1')).toEqual(listed.get('sess_g1'));
    expect((await store.get?.('sess_g2'))?.archived).toBe(true);
    expect(await store.get?.('sess_never')).toBeUndefined();
    expect(await store.get?.('../sess_g1')).toBeUndefined();
    await store.delete('sess_g1');
    expect(await store.get?.('sess_g1')).toBeUndefined();
  });

  it('forgets deleted sessions and treats unknown ids as absent', async () => {
    const store = make();
    store.create({ sessionId: 'sess_b', cwd: '/w', additionalDirectories: [], createdAt: new Date().toISOString() });
    await store.delete('sess_b');
    await store.delete('sess_never');
    expect(await store.load('sess_b')).toBeUndefined();
    expect(await store.list()).toEqual([]);
    store.append('sess_b', chunk('ghost')); // appending to a deleted session is a no-op
    expect(await store.load('sess_b')).toBeUndefined();
  });
});

describe('JsonlSessionStore.get', () => {
  it('reads a session another store instance wrote, from its files', async () => {
    const dir = join(tempDataDir(), 'sessions');
    const writer = new JsonlSessionStore({ dir });
    writer.create({ sessionId: 'sess_w', cwd: '/w', additionalDirectories: [], createdAt: '2026-01-01T00:00:00.000Z' });
    writer.append('sess_w', { sessionUpdate: 'session_info_update', title: 'Written elsewhere' });
    writer.close();
    const reader = new JsonlSessionStore({ dir });
    expect(await reader.get('sess_w')).toMatchObject({ sessionId: 'sess_w', cwd: '/w', title: 'Written elsewhere' });
    expect(await reader.get('sess_w')).toEqual((await reader.list())[0]);
    reader.close();
  });
});

describe('InMemorySessionStore', () => {
  it('hands out copies on load, so a loaded history cannot change the store', async () => {
    const store = new InMemorySessionStore();
    store.create({ sessionId: 'sess_c', cwd: '/w', additionalDirectories: [], createdAt: '2026-01-01T00:00:00.000Z' });
    store.append('sess_c', chunk('one'));
    const first = await store.load('sess_c');
    (first!.updates[0] as any).content.text = 'changed';
    first!.updates.push(chunk('extra'));
    first!.meta.cwd = '/elsewhere';
    const again = await store.load('sess_c');
    expect(again!.updates).toEqual([chunk('one')]);
    expect(again!.meta.cwd).toBe('/w');
  });

  it('reports the last append as updatedAt, or an explicit session_info_update updatedAt', async () => {
    const store = new InMemorySessionStore();
    store.create({ sessionId: 'sess_t', cwd: '/w', additionalDirectories: [], createdAt: '2020-01-01T00:00:00.000Z' });
    expect((await store.list())[0].updatedAt).toBe('2020-01-01T00:00:00.000Z');
    const t0 = Date.now();
    store.append('sess_t', chunk('x'));
    expect(Date.parse((await store.list())[0].updatedAt!)).toBeGreaterThanOrEqual(t0);
    store.append('sess_t', { sessionUpdate: 'session_info_update', updatedAt: '2021-05-05T00:00:00.000Z' });
    expect((await store.list())[0].updatedAt).toBe('2021-05-05T00:00:00.000Z');
  });

  it('with history: false keeps metadata, titles and config values but no updates', async () => {
    const store = new InMemorySessionStore({ history: false });
    store.create({ sessionId: 'sess_h', cwd: '/w', additionalDirectories: [], createdAt: '2026-01-01T00:00:00.000Z' });
    store.append('sess_h', chunk('one'));
    store.append('sess_h', { sessionUpdate: 'session_info_update', title: 'Named' });
    store.setConfigValues('sess_h', { mode: 'code' });
    const s = await store.load('sess_h');
    expect(s!.updates).toEqual([]);
    expect(s!.meta).toMatchObject({ title: 'Named', configValues: { mode: 'code' } });
  });
});

describe('JsonlSessionStore files', () => {
  it('writes a header line then one update per line', async () => {
    const dir = join(tempDataDir(), 'sessions');
    const store = new JsonlSessionStore({ dir });
    store.create({ sessionId: 'sess_f', cwd: '/w', additionalDirectories: [], createdAt: '2026-01-01T00:00:00.000Z' });
    store.append('sess_f', chunk('x'));
    const lines = readFileSync(join(dir, 'sess_f.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      acpKitSession: 1,
      sessionId: 'sess_f',
      cwd: '/w',
      additionalDirectories: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      title: null,
    });
    expect(lines[1]).toEqual(chunk('x'));
    store.close();
  });

  it('never lets a session id reach outside its directory', async () => {
    const store = new JsonlSessionStore({ dir: join(tempDataDir(), 'sessions') });
    expect(await store.load('../../etc/passwd')).toBeUndefined();
    expect(await store.load('a/b')).toBeUndefined();
    expect(() => store.create({ sessionId: '../evil', cwd: '/w', additionalDirectories: [], createdAt: '' })).toThrow(
      /cannot be stored/,
    );
  });
});

describe('session/list paging', () => {
  const meta = (i: number, cwd = '/w') => ({
    sessionId: `s${String(i).padStart(3, '0')}`,
    cwd,
    additionalDirectories: [],
    createdAt: '',
    updatedAt: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(3, '0')}Z`,
  });

  it('pages newest first without duplicates or gaps, even when sessions are added between pages', () => {
    const all = Array.from({ length: 120 }, (_, i) => meta(i));
    const p1 = listPage(all, undefined, undefined);
    expect(p1.sessions.length).toBe(50);
    all.push({ ...meta(500), updatedAt: '2027-01-01T00:00:00.000Z' }); // newer than everything: must not shift later pages
    const p2 = listPage(all, undefined, p1.nextCursor);
    const p3 = listPage(all, undefined, p2.nextCursor);
    expect(p3.nextCursor).toBeUndefined();
    const ids = [...p1.sessions, ...p2.sessions, ...p3.sessions].map((s) => s.sessionId);
    expect(ids.length).toBe(120);
    expect(new Set(ids).size).toBe(120);
    const times = [...p1.sessions, ...p2.sessions, ...p3.sessions].map((s) => s.updatedAt!);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('matches cwd exactly (a trailing slash is normalized) and rejects foreign cursors', () => {
    const all = [meta(1, '/w'), meta(2, '/w/sub'), meta(3, '/w/')];
    expect(listPage(all, '/w', undefined).sessions.map((s) => s.sessionId)).toEqual(['s003', 's001']);
    expect(() => listPage(all, undefined, Buffer.from('["x",1]').toString('base64url'))).toThrow(/params\.cursor/);
    expect(listPage([], undefined, undefined)).toEqual({ sessions: [] });
  });
});
