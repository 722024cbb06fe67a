// Several clients on one v2 session (issue 13 item 4), in process: two real client runtimes over
// in-memory pipes against agent runtimes sharing one store and one SharedSessions registry, the
// way `acp-kit serve` serves the connections of one token.
import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionStore, SharedSessions } from '../src/index.js';
import type { PermissionPolicy } from '../../client/src/index.js';
import { connectInProcess, type InProcessPair, type WireEntry } from '../../../test/support/in-process.js';
import { controlledAgent, type AgentControl } from '../../../test/support/shared-agent.js';

const CWD = process.cwd();

let pairs: InProcessPair[] = [];
afterEach(async () => {
  await Promise.all(pairs.map((p) => p.close().catch(() => undefined)));
  pairs = [];
});

interface Rig {
  control: AgentControl;
  store: InMemorySessionStore;
  client(permissionPolicy?: PermissionPolicy): Promise<InProcessPair>;
}

function rig(): Rig {
  const control = controlledAgent();
  const store = new InMemorySessionStore();
  const sharedSessions = new SharedSessions();
  return {
    control,
    store,
    async client(permissionPolicy) {
      const pair = await connectInProcess(control.definition, {
        version: 2,
        client: permissionPolicy ? { permissionPolicy } : {},
        serve: { store, sharedSessions },
      });
      pairs.push(pair);
      return pair;
    },
  };
}

/** The `update` of every `session/update` this client received, in wire order. */
const updates = (p: InProcessPair): any[] =>
  p.wire.filter((e: WireEntry) => e.dir === 'in' && e.msg.method === 'session/update').map((e) => e.msg.params.update);
/** A request and its answer: everything the agent wrote to this client before it has arrived. */
const roundTrip = (p: InProcessPair): Promise<unknown> => p.conn.listAllSessions();
/** Per message id, the text of its chunks, in order. */
function texts(us: any[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const u of us)
    if (u.sessionUpdate === 'agent_message_chunk') out[u.messageId] = (out[u.messageId] ?? '') + u.content.text;
  return out;
}
const userEchoes = (us: any[]): string[] =>
  us.filter((u) => u.sessionUpdate === 'user_message').map((u) => u.content[0].text);

describe('several clients on one v2 session (in process)', () => {
  it('a client resuming a session in use gets the history, then every live update in the same order as the first', async () => {
    const r = rig();
    const a = await r.client();
    const sa = await a.conn.newSession({ cwd: CWD });
    await sa.prompt('say:one two');
    const turn = sa.prompt('gate:g:3');
    await r.control.reached('g');

    const b = await r.client();
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: CWD, replay: true });
    r.control.open('g');
    expect((await turn).stopReason).toBe('end_turn');
    await Promise.all([roundTrip(a), roundTrip(b)]);

    const ua = updates(a);
    const ub = updates(b);
    // B: the replayed history, then the state snapshot (the first state_update: history has none), then live
    const snapshot = ub.findIndex((u) => u.sessionUpdate === 'state_update');
    expect(ub[snapshot]).toEqual({ sessionUpdate: 'state_update', state: 'running' });
    const live = ub.slice(snapshot + 1);
    expect(live.map((u) => u.content?.text ?? u.state)).toEqual(['after0 ', 'after1 ', 'after2 ', 'idle']);
    // the same updates, in the same order, as the first client got since B attached
    expect(ua.slice(ua.length - live.length)).toEqual(live);
    // nothing lost, nothing twice: B's history + live text equals A's, message by message
    expect(texts(ub)).toEqual(texts(ua));
    expect(Object.values(texts(ub))).toEqual(['one two ', 'before0 before1 before2 after0 after1 after2 ']);
    expect(userEchoes(ub.slice(0, snapshot))).toEqual(['say:one two', 'gate:g:3']);
    // and the client runtimes end with the same messages
    expect([...sb.state.messages.values()]).toEqual([...sa.state.messages.values()]);
    expect(a.tap.failures).toEqual([]);
    expect(b.tap.failures).toEqual([]);
  });

  it('prompts from either client run in arrival order, and every user_message echo goes to both', async () => {
    const r = rig();
    const a = await r.client();
    const sa = await a.conn.newSession({ cwd: CWD });
    const b = await r.client();
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: CWD });

    const first = sa.prompt('gate:g:1');
    await r.control.reached('g');
    const fromB = sb.prompt('say:from-b');
    await roundTrip(b); // B's prompt is held before A sends its own
    const fromA = sa.prompt('say:from-a');
    await roundTrip(a);
    r.control.open('g');
    await Promise.all([first, fromB, fromA]);
    await Promise.all([roundTrip(a), roundTrip(b)]);

    for (const p of [a, b]) {
      const us = updates(p);
      expect(userEchoes(us)).toEqual(['gate:g:1', 'say:from-b', 'say:from-a']);
      expect(Object.values(texts(us))).toEqual(['before0 after0 ', 'from-b ', 'from-a ']);
    }
    // B attached before any of it: both saw one sequence
    expect(updates(b).slice(updates(b).findIndex((u) => u.sessionUpdate === 'state_update') + 1)).toEqual(updates(a));
  });

  it('a permission question goes to every client; the first answer wins and the other sees it withdrawn with $/cancel_request', async () => {
    const r = rig();
    const asked: string[] = [];
    const withdrawn: string[] = [];
    const waiting: PermissionPolicy = (req, ctx) =>
      new Promise((resolve) => {
        asked.push(req.title ?? '');
        ctx.signal?.addEventListener('abort', () => {
          withdrawn.push(req.title ?? '');
          resolve({ outcome: 'cancelled' });
        });
      });
    const a = await r.client(waiting);
    const sa = await a.conn.newSession({ cwd: CWD });
    let bAsked = 0;
    const b = await r.client(async (req) => {
      bAsked++;
      return { outcome: 'selected', optionId: req.options[0].optionId };
    });
    await b.conn.resumeSession(sa.sessionId, { cwd: CWD });

    expect((await sa.prompt('ask')).stopReason).toBe('end_turn');
    await Promise.all([roundTrip(a), roundTrip(b)]);
    expect(bAsked).toBe(1);
    expect(asked).toEqual(['May I?']);
    expect(withdrawn).toEqual(['May I?']);
    // A got the request, then its withdrawal, by id
    const reqA = a.wire.find((e) => e.dir === 'in' && e.msg.method === 'session/request_permission');
    const cancelA = a.wire.find((e) => e.dir === 'in' && e.msg.method === '$/cancel_request');
    expect(cancelA?.msg.params).toEqual({ requestId: reqA?.msg.id });
    expect(b.wire.some((e) => e.msg.method === '$/cancel_request')).toBe(false);
    for (const p of [a, b]) {
      const us = updates(p);
      expect(Object.values(texts(us))).toEqual(['outcome=allow ']);
      expect(us.filter((u) => u.sessionUpdate === 'state_update').map((u) => u.state)).toEqual(
        p === a
          ? ['running', 'requires_action', 'running', 'idle']
          : ['idle', 'running', 'requires_action', 'running', 'idle'],
      );
    }
  });

  it('a client attaching while a permission question is open is asked too, and its answer can win', async () => {
    const r = rig();
    let askedA!: () => void;
    const aWasAsked = new Promise<void>((resolve) => (askedA = resolve));
    const withdrawn: string[] = [];
    const a = await r.client(
      (req, ctx) =>
        new Promise((resolve) => {
          askedA();
          ctx.signal?.addEventListener('abort', () => {
            withdrawn.push(req.title ?? '');
            resolve({ outcome: 'cancelled' });
          });
        }),
    );
    const sa = await a.conn.newSession({ cwd: CWD });
    const turn = sa.prompt('ask');
    await aWasAsked;
    const b = await r.client(async (req) => ({ outcome: 'selected', optionId: req.options[1].optionId }));
    await b.conn.resumeSession(sa.sessionId, { cwd: CWD, replay: true });
    expect((await turn).stopReason).toBe('end_turn');
    await Promise.all([roundTrip(a), roundTrip(b)]);
    expect(withdrawn).toEqual(['May I?']);
    const ub = updates(b);
    // B: the snapshot says a question is open, then it is asked, answers, and the turn goes on
    expect(ub.find((u) => u.sessionUpdate === 'state_update')).toEqual({
      sessionUpdate: 'state_update',
      state: 'requires_action',
    });
    expect(b.wire.filter((e) => e.dir === 'in' && e.msg.method === 'session/request_permission')).toHaveLength(1);
    for (const p of [a, b]) expect(Object.values(texts(updates(p)))).toEqual(['outcome=reject ']);
  });

  it('session/cancel from the other client cancels the turn for both', async () => {
    const r = rig();
    const a = await r.client();
    const sa = await a.conn.newSession({ cwd: CWD });
    const b = await r.client();
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: CWD });
    const turn = sa.prompt('gate:g:1');
    await r.control.reached('g');
    const idleB = sb.nextIdle();
    sb.cancel();
    expect((await turn).stopReason).toBe('cancelled');
    expect((await idleB).stopReason).toBe('cancelled');
  });

  it('a client leaving mid-turn does not end the session: the turn goes on for the other client and into the store', async () => {
    const r = rig();
    const a = await r.client();
    const sa = await a.conn.newSession({ cwd: CWD });
    const b = await r.client();
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: CWD });
    const idleB = sb.nextIdle();
    void sa.prompt('gate:g:2').catch(() => undefined);
    await r.control.reached('g');
    await a.close();
    pairs = pairs.filter((p) => p !== a);
    r.control.open('g');
    expect((await idleB).stopReason).toBe('end_turn');
    expect(Object.values(texts(updates(b)))).toEqual(['before0 before1 after0 after1 ']);
    const stored = await r.store.load(sa.sessionId);
    expect(Object.values(texts(stored!.updates))).toEqual(['before0 before1 after0 after1 ']);
    // still open: B prompts on
    expect((await sb.prompt('say:again')).stopReason).toBe('end_turn');
    // the last client leaving closes it: a new client opens it afresh (idle, not a stale runtime)
    await b.close();
    pairs = pairs.filter((p) => p !== b);
    const c = await r.client();
    await c.conn.resumeSession(sa.sessionId, { cwd: CWD, replay: true });
    expect(updates(c).filter((u) => u.sessionUpdate === 'state_update')).toEqual([
      { sessionUpdate: 'state_update', state: 'idle' },
    ]);
    expect(Object.values(texts(updates(c)))).toEqual(['before0 before1 after0 after1 ', 'again ']);
  });

  it('session/close from one client only detaches it: the turn goes on for the other', async () => {
    const r = rig();
    const a = await r.client();
    const sa = await a.conn.newSession({ cwd: CWD });
    const b = await r.client();
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: CWD });
    const idleB = sb.nextIdle();
    void sa.prompt('gate:g:1').catch(() => undefined);
    await r.control.reached('g');
    await a.conn.closeSession(sa.sessionId);
    r.control.open('g');
    expect((await idleB).stopReason).toBe('end_turn');
    expect(Object.values(texts(updates(b)))).toEqual(['before0 after0 ']);
  });

  it("v1 twins: a second v1 connection loading a session another has open is refused like the store lock (-32010), the first one's turn untouched", async () => {
    const control = controlledAgent();
    const store = new InMemorySessionStore();
    const sharedSessions = new SharedSessions();
    const open = async (): Promise<InProcessPair> => {
      const p = await connectInProcess(control.definition, { version: 1, serve: { store, sharedSessions } });
      pairs.push(p);
      return p;
    };
    const a = await open();
    const sa = await a.conn.newSession({ cwd: CWD });
    const turn = sa.prompt('gate:g:1');
    await control.reached('g');
    const b = await open();
    // two runtimes would both write the one history: refused as another process's open session is
    await expect(b.conn.resumeSession(sa.sessionId, { cwd: CWD, replay: true })).rejects.toMatchObject({
      code: -32010,
      message: expect.stringContaining('is open on another connection of this server'),
    });
    expect(sharedSessions.size).toBe(0);
    control.open('g');
    expect((await turn).stopReason).toBe('end_turn');
    expect(Object.values(texts(updates(a)))).toEqual(['before0 after0 ']);
  });

  it('a client sharing a session cannot reopen it with other roots under the others', async () => {
    const r = rig();
    const a = await r.client();
    const sa = await a.conn.newSession({ cwd: CWD });
    const b = await r.client();
    await expect(b.conn.resumeSession(sa.sessionId, { cwd: '/' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('is open on another connection with another cwd'),
    });
  });
});
