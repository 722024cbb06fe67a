// A session store whose writes are asynchronous (a database's are): the agent runtime still sends
// only what the store has, in order, ends turns after their updates, and fails loudly when a write
// fails. Proven without a database: InMemorySessionStore({ asyncAppend: true }) applies each write
// on a later macrotask. Real client and agent runtimes in process (test/support/in-process.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionStore, SESSION_STORE_UNAVAILABLE, SharedSessions } from '../src/index.js';
import type { AgentDefinition } from '../src/types.js';
import type { AnySessionUpdate } from '../../protocol/src/model/update.js';
import {
  connectInProcess,
  serveRawPeer,
  type InProcessPair,
  type WireEntry,
} from '../../../test/support/in-process.js';
import { controlledAgent } from '../../../test/support/shared-agent.js';

const CWD = process.cwd();

let pairs: InProcessPair[] = [];
afterEach(async () => {
  await Promise.all(pairs.map((p) => p.close().catch(() => undefined)));
  pairs = [];
});

async function client(
  definition: AgentDefinition,
  version: 1 | 2,
  store: InMemorySessionStore,
  sharedSessions?: SharedSessions,
): Promise<InProcessPair> {
  const pair = await connectInProcess(definition, {
    version,
    serve: { store, ...(sharedSessions ? { sharedSessions } : {}) },
  });
  pairs.push(pair);
  return pair;
}

/** The `update` of every `session/update` this client received, in wire order. */
const updates = (p: InProcessPair): any[] =>
  p.wire.filter((e: WireEntry) => e.dir === 'in' && e.msg.method === 'session/update').map((e) => e.msg.params.update);
const isHistory = (u: any): boolean => u.sessionUpdate !== 'state_update' && u.sessionUpdate !== 'notice';
/** A request and its answer: everything the agent wrote to this client before it has arrived. */
const roundTrip = (p: InProcessPair): Promise<unknown> => p.conn.listAllSessions();
/** How many updates the store holds for `sessionId` right now (`load` reads synchronously when called). */
function storedNow(store: InMemorySessionStore, sessionId: string): Promise<number> {
  return store.load(sessionId).then((s) => s?.updates.length ?? 0);
}
/** Per message id, the text of its chunks, in order. */
function texts(us: any[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const u of us)
    if (u.sessionUpdate === 'agent_message_chunk') out[u.messageId] = (out[u.messageId] ?? '') + u.content.text;
  return out;
}
const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

/** An asynchronous store whose appends take `ms` more (a database round trip): later than any write the agent's transport does. */
class SlowStore extends InMemorySessionStore {
  constructor(private readonly ms: number) {
    super({ asyncAppend: true });
  }
  override append(sessionId: string, update: AnySessionUpdate): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.ms)).then(() => super.append(sessionId, update));
  }
}

/**
 * An asynchronous store whose appends are visible to `load` at once but acknowledged `ms` later (a
 * database: committed, the answer still on its way).
 */
class LateAckStore extends InMemorySessionStore {
  constructor(private readonly ms: number) {
    super();
  }
  override append(sessionId: string, update: AnySessionUpdate): Promise<void> {
    super.append(sessionId, update);
    return new Promise((resolve) => setTimeout(resolve, this.ms));
  }
}

/** An asynchronous store that fails every write from the `failFrom`-th append on (counting from 1). */
class FailingStore extends InMemorySessionStore {
  appends = 0;
  constructor(private readonly failFrom: number) {
    super({ asyncAppend: true });
  }
  override append(sessionId: string, update: AnySessionUpdate): void | Promise<void> {
    if (++this.appends >= this.failFrom)
      return new Promise((_, reject) => setImmediate(() => reject(new Error('disk on fire'))));
    return super.append(sessionId, update);
  }
}

describe.each([1, 2] as const)('an asynchronous store, protocol v%i', (version) => {
  it('every update reaches the client only after the store has it, and the turn ends after all of them', async () => {
    const store = new InMemorySessionStore({ asyncAppend: true });
    const control = controlledAgent();
    const a = await client(control.definition, version, store);
    const s = await a.conn.newSession({ cwd: CWD });
    // what the store held when each history update arrived (read at arrival: `load` reads synchronously)
    const atArrival: Promise<number>[] = [];
    s.onUpdate((u) => {
      // (a v1 client shows its own prompt as a user message without it being sent)
      if (isHistory(u) && !(version === 1 && u.sessionUpdate === 'user_message'))
        atArrival.push(storedNow(store, s.sessionId));
    });
    const result = await s.prompt(`say:${words(40)}`);
    const atEnd = await storedNow(store, s.sessionId);
    expect(result.stopReason).toBe('end_turn');
    const counts = await Promise.all(atArrival);
    // v2 echoes the user message live; v1 does not (its client renders its own prompt)
    const received = updates(a).filter(isHistory);
    expect(received.length).toBe(version === 2 ? 41 : 40);
    const offset = version === 2 ? 0 : 1; // v1: the stored user message precedes what is received
    counts.forEach((n, i) =>
      expect(n, `history update ${i} arrived before it was stored`).toBeGreaterThanOrEqual(i + 1 + offset),
    );
    // the end came after the last update was stored (and sent)
    expect(atEnd).toBe(41);
    expect(received.map((u) => u.content?.text ?? '').join('')).toContain('w39 ');
    expect(a.tap.failures).toEqual([]);
  });

  it('a cancel mid-turn ends it cancelled after everything it sent, and the store holds exactly what was sent', async () => {
    const store = new InMemorySessionStore({ asyncAppend: true });
    const control = controlledAgent();
    const a = await client(control.definition, version, store);
    const s = await a.conn.newSession({ cwd: CWD });
    const turn = s.prompt('gate:g:30');
    await control.reached('g');
    await s.cancel();
    expect((await turn).stopReason).toBe('cancelled');
    await roundTrip(a);
    const stored = (await store.load(s.sessionId))!.updates;
    const received = updates(a).filter(isHistory);
    // v1 receives no echo of its own prompt; otherwise the transcript is the stored history
    expect(received).toEqual(version === 2 ? stored : stored.slice(1));
    expect(received.filter((u) => u.sessionUpdate === 'agent_message_chunk')).toHaveLength(30);
    if (version === 2)
      expect(updates(a).at(-1)).toEqual({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' });
  });

  it('a replay on a new connection equals what the first client was sent live', async () => {
    const store = new InMemorySessionStore({ asyncAppend: true });
    const control = controlledAgent();
    const a = await client(control.definition, version, store);
    const s = await a.conn.newSession({ cwd: CWD });
    await s.prompt('say:one two three');
    await s.prompt('say:four five');
    await roundTrip(a);
    const live = updates(a).filter(isHistory);
    const b = await client(control.definition, version, store);
    if (version === 1) await b.conn.loadSession(s.sessionId, { cwd: CWD });
    else await b.conn.resumeSession(s.sessionId, { cwd: CWD, replay: true });
    await roundTrip(b);
    const replayed = updates(b).filter(isHistory);
    const texts = (us: any[]) => us.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);
    expect(texts(replayed)).toEqual(texts(live));
    expect(texts(replayed)).toEqual(['one ', 'two ', 'three ', 'four ', 'five ']);
    expect(b.tap.failures).toEqual([]);
  });

  it('a store write that fails ends the turn with an error naming the store and refuses new prompts; nothing unstored is sent', async () => {
    // the user message and 4 chunks are stored, the 6th append fails
    const store = new FailingStore(6);
    const control = controlledAgent();
    const a = await client(control.definition, version, store);
    const s = await a.conn.newSession({ cwd: CWD });
    const end = await s.prompt(`say:${words(20)}`);
    expect(end).toMatchObject({
      stopReason: 'error',
      error: {
        code: SESSION_STORE_UNAVAILABLE,
        message: expect.stringContaining('the session store failed: disk on fire'),
      },
    });
    await roundTrip(a);
    if (version === 1) {
      // v1 has no `error` stop reason: the prompt request itself failed with the store's error
      const answer = a.wire.find((e) => e.dir === 'in' && e.msg.error);
      expect(answer?.msg.error).toMatchObject({
        code: SESSION_STORE_UNAVAILABLE,
        message: 'the session store failed: disk on fire',
      });
    } else {
      expect(updates(a).at(-1)).toMatchObject({
        sessionUpdate: 'state_update',
        state: 'idle',
        stopReason: 'error',
        error: { code: SESSION_STORE_UNAVAILABLE, message: 'the session store failed: disk on fire' },
      });
    }
    const stored = (await store.load(s.sessionId))!.updates;
    expect(stored).toHaveLength(5);
    const received = updates(a).filter(isHistory);
    expect(received).toEqual(version === 2 ? stored : stored.slice(1));
    // the session refuses further prompts with the store's reason
    // (v1's client reports a failed prompt request as an `error` end, v2's rejects the prompt)
    const refused = await s.prompt('say:again').then(
      (r: any) => r.error,
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({
      code: SESSION_STORE_UNAVAILABLE,
      message: expect.stringContaining('disk on fire'),
    });
    expect((await store.load(s.sessionId))!.updates).toHaveLength(5);
    expect(a.log.join('')).toContain('the session store failed: disk on fire');
  });
});

describe('an asynchronous store (protocol-independent)', () => {
  it('session/new waits for the session to be stored, and fails with the store reason when it is not', async () => {
    class NoCreate extends InMemorySessionStore {
      override create(): Promise<void> {
        return Promise.reject(new Error('no room for sessions'));
      }
    }
    const control = controlledAgent();
    const a = await client(control.definition, 2, new NoCreate({ asyncAppend: true }));
    await expect(a.conn.newSession({ cwd: CWD })).rejects.toMatchObject({
      code: SESSION_STORE_UNAVAILABLE,
      message: 'the session store failed: no room for sessions',
    });

    const store = new InMemorySessionStore({ asyncAppend: true });
    const b = await client(control.definition, 2, store);
    const s = await b.conn.newSession({ cwd: CWD });
    // stored when the answer arrived (list reads synchronously when called)
    expect((await store.list()).map((m) => m.sessionId)).toEqual([s.sessionId]);
  });

  it('v2 acknowledges a prompt only once its user message is stored', async () => {
    const store = new SlowStore(5);
    const control = controlledAgent();
    const raw = serveRawPeer(control.definition, 2, { store });
    try {
      await raw.client.request('initialize', {
        protocolVersion: 2,
        info: { name: 't', version: '1' },
        capabilities: {},
      });
      const { sessionId } = (await raw.client.request('session/new', { cwd: CWD, mcpServers: [] })) as {
        sessionId: string;
      };
      // read in the same microtask sequence as the answer arrives: no store write can land in between
      const { messageId, storedAtAnswer } = await raw.client
        .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'say:hi' }] })
        .then(async (r: any) => ({ messageId: r.messageId, storedAtAnswer: await store.load(sessionId) }));
      expect(storedAtAnswer!.updates[0]).toMatchObject({ sessionUpdate: 'user_message', messageId });
    } finally {
      await raw.close();
    }
  });

  it('a turn streams at the pace of the store: its writes outstanding stay bounded', async () => {
    let outstanding = 0;
    let most = 0;
    class Counting extends InMemorySessionStore {
      override append(sessionId: string, update: AnySessionUpdate): void | Promise<void> {
        const p = super.append(sessionId, update) as Promise<void>;
        most = Math.max(most, ++outstanding);
        return p.finally(() => outstanding--);
      }
    }
    const store = new Counting({ asyncAppend: true });
    const control = controlledAgent();
    const a = await client(control.definition, 2, store);
    const s = await a.conn.newSession({ cwd: CWD });
    expect((await s.prompt(`say:${words(1000)}`)).stopReason).toBe('end_turn');
    expect((await store.load(s.sessionId))!.updates).toHaveLength(1001);
    // the author awaits each send; without backpressure all 1000 writes would be outstanding at once
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(300);
  });

  it('two clients on one shared session see the same updates in the same order; a joiner mid-turn misses none and gets none twice', async () => {
    // writes are acknowledged 50 ms after they are visible: the second client joins while the turn's
    // first chunks are stored but not yet sent (a replay must not include them and send them live too)
    const store = new LateAckStore(50);
    const shared = new SharedSessions();
    const control = controlledAgent();
    const a = await client(control.definition, 2, store, shared);
    const b = await client(control.definition, 2, store, shared);
    const sa = await a.conn.newSession({ cwd: CWD });
    await sa.prompt('say:one two');
    const turn = sa.prompt('gate:g:3');
    await control.reached('g');
    const sb = await b.conn.resumeSession(sa.sessionId, { cwd: CWD, replay: true });
    control.open('g');
    expect((await turn).stopReason).toBe('end_turn');
    await Promise.all([roundTrip(a), roundTrip(b)]);
    const ua = updates(a);
    const ub = updates(b);
    const snapshot = ub.findIndex((u) => u.sessionUpdate === 'state_update');
    const live = ub.slice(snapshot + 1);
    expect(live.map((u) => u.content?.text ?? u.state)).toEqual(['after0 ', 'after1 ', 'after2 ', 'idle']);
    expect(ua.slice(ua.length - live.length)).toEqual(live);
    // history + live at B has the text A was sent, message by message (no chunk missed or twice)
    expect(texts(ub)).toEqual(texts(ua));
    expect(Object.values(texts(ub))).toEqual(['one two ', 'before0 before1 before2 after0 after1 after2 ']);
    expect(ua.filter(isHistory)).toEqual((await store.load(sa.sessionId))!.updates);
    expect([...sb.state.messages.values()]).toEqual([...sa.state.messages.values()]);
  });
});
