// The runtime's hook for a cluster's store: live-only updates (`state_update`, the v2 echo of a
// prompt) are handed to `store.appendLive` and reach the local client only once it resolved, in
// order with the history (clients on other instances read them from the store: both must agree).
// No database here: an in-memory store with an asynchronous appendLive; real runtimes in process.
import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionStore } from '../../agent/src/index.js';
import type { AnySessionUpdate } from '../../protocol/src/model/update.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';
import { controlledAgent } from '../../../test/support/shared-agent.js';

const CWD = process.cwd();

let pairs: InProcessPair[] = [];
afterEach(async () => {
  await Promise.all(pairs.map((p) => p.close().catch(() => undefined)));
  pairs = [];
});

/**
 * One ordered log of what the store was asked to persist, history and live, like `acp_updates` by seq
 * (the sequence is taken when the write is issued, as the one writer does); `done` once it committed.
 */
class LiveStore extends InMemorySessionStore {
  readonly rows: { live: boolean; update: AnySessionUpdate; done: boolean }[] = [];
  constructor() {
    super({ asyncAppend: true });
  }
  override append(sessionId: string, update: AnySessionUpdate): Promise<void> {
    const row = { live: false, update, done: false };
    this.rows.push(row);
    return (super.append(sessionId, update) as Promise<void>).then(() => void (row.done = true));
  }
  appendLive(_sessionId: string, update: AnySessionUpdate): Promise<void> {
    const row = { live: true, update, done: false };
    this.rows.push(row);
    return new Promise((resolve) => setTimeout(resolve, 2)).then(() => void (row.done = true));
  }
}

describe('live-only updates go through the store (cluster fan-out)', () => {
  it('v2: the echo and every state_update are persisted as live rows before they reach the client, in the order sent', async () => {
    const store = new LiveStore();
    const control = controlledAgent();
    const pair = await connectInProcess(control.definition, { version: 2, serve: { store } });
    pairs.push(pair);
    const s = await pair.conn.newSession({ cwd: CWD });
    // for each live update: how many live rows the store had persisted when it arrived
    const liveAtArrival: number[] = [];
    const received: any[] = [];
    s.onUpdate((u: any) => {
      received.push(u);
      if (
        u.sessionUpdate === 'state_update' ||
        (u.sessionUpdate === 'user_message' && received.filter((r) => r.sessionUpdate === 'user_message').length === 1)
      ) {
        liveAtArrival.push(store.rows.filter((r) => r.live && r.done).length);
      }
    });
    const result = await s.prompt('say:alpha beta');
    expect(result.stopReason).toBe('end_turn');
    await pair.conn.listAllSessions(); // a round trip: the idle sent before its answer has arrived
    const live = store.rows.filter((r) => r.live).map((r) => r.update);
    expect(
      live.map((u) =>
        u.sessionUpdate === 'state_update' ? `state:${(u as { state: string }).state}` : u.sessionUpdate,
      ),
    ).toEqual(['user_message', 'state:running', 'state:idle']);
    liveAtArrival.forEach((n, i) =>
      expect(n, `live update ${i} arrived before the store had it`).toBeGreaterThanOrEqual(i + 1),
    );
    // the store's order (history + live) is the order the client saw
    const wireOrder = received.map((u) => u.sessionUpdate);
    expect(
      store.rows
        .filter((r) => !(r.update.sessionUpdate === 'user_message' && !r.live))
        .map((r) => r.update.sessionUpdate),
    ).toEqual(wireOrder);
    // live rows are never history: a replay leaves them out
    expect((await store.load(s.sessionId))!.updates.some((u) => u.sessionUpdate === 'state_update')).toBe(false);
  });
});
