// The unstable session methods (session/fork, archive, unarchive, status, set_title) between
// acp-kit's client and agent runtimes in process, both versions, every wire message checked
// against the version's schema (the unstable one for these methods). ACP-V1-FORK-01.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { InMemorySessionStore, JsonlSessionStore, SharedSessions, type SessionStore } from '../src/index.js';
import type { AgentDefinition } from '../src/types.js';
import type { AnySessionUpdate } from '../../protocol/src/index.js';
import { tempDataDir } from '../../../test/support/agent-harness.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';

const pairs: InProcessPair[] = [];
afterEach(async () => {
  await Promise.all(pairs.splice(0).map((p) => p.close()));
});

/** An agent that answers every prompt with "echo: <text>" and records what `openSession` saw. */
function echoAgent(opened: Array<{ sessionId: string; forkedFrom?: string; history: readonly AnySessionUpdate[] }>) {
  const def: AgentDefinition = {
    info: { name: 'unstable-sessions', version: '1.0.0' },
    sessionMethods: { fork: true, archive: true, status: true, title: true },
    openSession: (s, ctx) => {
      opened.push({ sessionId: s.sessionId, forkedFrom: ctx.forkedFrom, history: ctx.history });
    },
    prompt: async (turn) => {
      const first = turn.prompt[0];
      const text = first?.type === 'text' ? first.text : '';
      await turn.send({
        sessionUpdate: 'agent_message_chunk',
        messageId: turn.session.newId('msg'),
        content: { type: 'text', text: `echo: ${text}` },
      });
      return 'end_turn';
    },
  };
  return def;
}

const raw = (p: InProcessPair, method: string, params: unknown) =>
  (p.conn.extRequest as (m: string, q: unknown) => Promise<unknown>)(method, params);

function agentTexts(history: readonly AnySessionUpdate[]): string[] {
  return history.flatMap((u) =>
    u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [],
  );
}

describe.each([1, 2] as const)('unstable session methods over v%i', (v) => {
  it('advertises fork, archive, status and title only when the agent enables them', async () => {
    const on = await connectInProcess(echoAgent([]), { version: v, schema: 'unstable' });
    const off = await connectInProcess(
      { info: { name: 'plain', version: '1' }, prompt: async () => 'end_turn' },
      { version: v, schema: 'unstable' },
    );
    pairs.push(on, off);
    for (const m of [
      'session/fork',
      'session/archive',
      'session/unarchive',
      'session/status',
      'session/set_title',
    ] as const) {
      expect(on.conn.supports(m), m).toBe(true);
      expect(off.conn.supports(m), m).toBe(false);
    }
    const init = on.wire.find((w) => w.dir === 'in' && w.msg.result?.protocolVersion === v)?.msg.result;
    const markers = v === 1 ? init?.agentCapabilities?.sessionCapabilities : init?.capabilities?.session;
    expect(markers).toMatchObject({ fork: {}, archive: {}, status: {}, title: {} });
    // not advertised: the agent answers -32601, and the client refuses before sending, naming the capability
    const s = await off.conn.newSession({ cwd: '/tmp' });
    for (const [m, params] of [
      ['session/fork', { sessionId: s.sessionId, cwd: '/tmp' }],
      ['session/archive', { sessionId: s.sessionId }],
      ['session/unarchive', { sessionId: s.sessionId }],
      ['session/status', { sessionId: s.sessionId }],
      ['session/set_title', { sessionId: s.sessionId, title: 'x' }],
    ] as const) {
      await expect(raw(off, m, params), m).rejects.toMatchObject({ code: -32601 });
    }
    const gate = v === 1 ? 'sessionCapabilities' : 'session';
    await expect(s.fork()).rejects.toThrow(`${gate}.fork capability`);
    await expect(s.archive()).rejects.toThrow(`${gate}.archive capability`);
    await expect(s.status()).rejects.toThrow(`${gate}.status capability`);
    await expect(s.setTitle('t')).rejects.toThrow(`${gate}.title capability`);
    on.tap.assertAllValid();
    off.tap.assertAllValid();
  });

  it('fork: a new session id with a copy of the history; the source goes on unchanged', async () => {
    const opened: Array<{ sessionId: string; forkedFrom?: string; history: readonly AnySessionUpdate[] }> = [];
    const store = new InMemorySessionStore();
    const p = await connectInProcess(echoAgent(opened), { version: v, serve: { store }, schema: 'unstable' });
    pairs.push(p);
    const source = await p.conn.newSession({ cwd: '/tmp/src' });
    await source.prompt('one');
    const fork = await source.fork();
    expect(fork.sessionId).not.toBe(source.sessionId);
    const seen = opened.find((o) => o.sessionId === fork.sessionId);
    expect(seen?.forkedFrom).toBe(source.sessionId);
    expect(agentTexts(seen?.history ?? [])).toEqual(['echo: one']);
    // the two histories diverge from here
    await fork.prompt('fork only');
    await source.prompt('source only');
    expect(agentTexts((await store.load(fork.sessionId))?.updates ?? [])).toEqual(['echo: one', 'echo: fork only']);
    expect(agentTexts((await store.load(source.sessionId))?.updates ?? [])).toEqual(['echo: one', 'echo: source only']);
    // forking what does not exist: -32002
    await expect(raw(p, 'session/fork', { sessionId: 'sess_missing', cwd: '/tmp' })).rejects.toMatchObject({
      code: -32002,
    });
    p.tap.assertAllValid();
  });

  it('set_title: stored (normalized), sent to the attached client, listed', async () => {
    const p = await connectInProcess(echoAgent([]), { version: v, schema: 'unstable' });
    pairs.push(p);
    const s = await p.conn.newSession({ cwd: '/tmp/t' });
    expect(await s.setTitle('  Fix   the build  ')).toBe('Fix the build');
    // the agent's session_info_update came before the answer
    expect(s.state.info.title).toBe('Fix the build');
    const listed = await p.conn.listAllSessions();
    expect(listed.find((i) => i.sessionId === s.sessionId)?.title).toBe('Fix the build');
    await expect(s.setTitle('   ')).rejects.toMatchObject({ code: -32602 });
    // a session that is not open here is retitled in its stored history
    await s.close();
    expect(await p.conn.setSessionTitle(s.sessionId, 'Closed one')).toBe('Closed one');
    expect((await p.conn.listAllSessions()).find((i) => i.sessionId === s.sessionId)?.title).toBe('Closed one');
    await expect(p.conn.setSessionTitle('sess_missing', 'x')).rejects.toMatchObject({ code: -32002 });
    p.tap.assertAllValid();
  });

  it('status: open while in memory (v2 with its foreground state), saved once closed, -32002 unknown', async () => {
    const p = await connectInProcess(echoAgent([]), { version: v, schema: 'unstable' });
    pairs.push(p);
    const s = await p.conn.newSession({ cwd: '/tmp/st' });
    const open = await s.status();
    expect(open.status).toBe('open');
    if (v === 2) expect(open.state).toEqual({ state: 'idle' });
    else expect(open.state).toBeUndefined();
    await s.close();
    expect(await p.conn.sessionStatus(s.sessionId)).toEqual({ status: 'saved' });
    await expect(p.conn.sessionStatus('sess_missing')).rejects.toMatchObject({ code: -32002 });
    p.tap.assertAllValid();
  });

  it.each([
    ['in-memory', () => new InMemorySessionStore()],
    ['JSONL', () => new JsonlSessionStore({ dir: join(tempDataDir(), 'sessions') })],
  ] as const)(
    'status and set_title of a stored session (%s store) ask for that session, never list them all',
    async (_name, make: () => SessionStore) => {
      const store = make();
      const writer = await connectInProcess(echoAgent([]), { version: v, serve: { store }, schema: 'unstable' });
      pairs.push(writer);
      const stored = await writer.conn.newSession({ cwd: '/tmp/stored' });
      await writer.conn.newSession({ cwd: '/tmp/other' });
      await stored.close();
      // the store itself, counting its `list` calls (the runtime must not search the whole store)
      let lists = 0;
      const list = store.list.bind(store);
      store.list = () => (lists++, list());
      const reader = await connectInProcess(echoAgent([]), { version: v, serve: { store }, schema: 'unstable' });
      pairs.push(reader);
      expect(await reader.conn.sessionStatus(stored.sessionId)).toEqual({ status: 'saved' });
      await expect(reader.conn.sessionStatus('sess_missing')).rejects.toMatchObject({ code: -32002 });
      expect(await reader.conn.setSessionTitle(stored.sessionId, 'Retitled')).toBe('Retitled');
      await expect(reader.conn.setSessionTitle('sess_missing', 'x')).rejects.toMatchObject({ code: -32002 });
      expect(lists).toBe(0);
      expect((await store.get?.(stored.sessionId))?.title).toBe('Retitled');
      reader.tap.assertAllValid();
    },
  );

  it('archive: closes the session, hides it from the default list; include/only/unarchive bring it back', async () => {
    const p = await connectInProcess(echoAgent([]), { version: v, schema: 'unstable' });
    pairs.push(p);
    const kept = await p.conn.newSession({ cwd: '/tmp/a' });
    const gone = await p.conn.newSession({ cwd: '/tmp/a' });
    await gone.archive();
    expect(gone.closed).toBe(true);
    const ids = (list: Array<{ sessionId: string }>) => list.map((i) => i.sessionId).sort();
    expect(ids(await p.conn.listAllSessions())).toEqual([kept.sessionId]);
    const all = await p.conn.listAllSessions({ archived: 'include' });
    expect(ids(all)).toEqual([kept.sessionId, gone.sessionId].sort());
    // with the archive capability every entry says whether it is archived
    expect(all.find((i) => i.sessionId === gone.sessionId)?.archived).toBe(true);
    expect(all.find((i) => i.sessionId === kept.sessionId)?.archived).toBe(false);
    expect(ids(await p.conn.listAllSessions({ archived: 'only' }))).toEqual([gone.sessionId]);
    expect(await p.conn.sessionStatus(gone.sessionId)).toEqual({ status: 'saved' });
    await gone.archive(); // archiving an archived session succeeds
    await p.conn.unarchiveSession(gone.sessionId);
    expect(ids(await p.conn.listAllSessions())).toEqual([kept.sessionId, gone.sessionId].sort());
    await expect(raw(p, 'session/list', { archived: '_mine' })).rejects.toMatchObject({ code: -32602 });
    await expect(p.conn.archiveSession('sess_missing')).rejects.toMatchObject({ code: -32002 });
    // the tap knew (and so checked) every one of them against schema.unstable.json
    expect([...p.tap.unknownMethods]).toEqual([]);
    p.tap.assertAllValid();
  });

  it('another connection of the same server sees the session open, retitles it live and archives it', async () => {
    const serve = { store: new InMemorySessionStore(), sharedSessions: new SharedSessions() };
    const a = await connectInProcess(echoAgent([]), { version: v, serve, schema: 'unstable' });
    const b = await connectInProcess(echoAgent([]), { version: v, serve, schema: 'unstable' });
    pairs.push(a, b);
    const s = await a.conn.newSession({ cwd: '/tmp/shared' });
    expect((await b.conn.sessionStatus(s.sessionId)).status).toBe('open');
    // the title reaches the client that has the session open, before b's answer
    await b.conn.setSessionTitle(s.sessionId, 'Set elsewhere');
    await a.conn.listAllSessions(); // a round trip on a: its earlier updates have been read
    expect(s.state.info.title).toBe('Set elsewhere');
    // archiving closes it for a too
    await b.conn.archiveSession(s.sessionId);
    expect((await b.conn.sessionStatus(s.sessionId)).status).toBe('saved');
    // (v1 answers the prompt with the error, v2 refuses the request)
    const after = await s.prompt('still there?').then(
      (r) => r.error?.code,
      (e: { code?: number }) => e.code,
    );
    expect(after).toBe(-32002);
    a.tap.assertAllValid();
    b.tap.assertAllValid();
  });
});
