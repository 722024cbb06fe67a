// `PeerOptions.relay`, in process: an answer holds what was read after it until the code awaiting it
// has run, so a relay passes the answer on first; without it (a client) the rest of the read runs first.
// The far ends are raw memory transports, so both orders are what really crossed them.
import { describe, expect, it } from 'vitest';
import { createMemoryTransportPair, JsonRpcPeer, type MemoryTransport, type RequestContext } from '../src/rpc/index.js';

/** Starts `t` as a raw end: every message it is handed, and a hook to answer them. */
function rawEnd(t: MemoryTransport, onMessage: (m: { id?: number; method?: string }) => void = () => undefined) {
  const got: unknown[] = [];
  t.start({
    onMessage: (m) => {
      got.push(m);
      onMessage(m as { id?: number; method?: string });
    },
    onInvalidLine: () => undefined,
    onClose: () => undefined,
  });
  return got;
}

/** Answers every request with a result and, in the same delivery, a notification after it. */
function answerThenNotify(t: MemoryTransport): unknown[] {
  return rawEnd(t, (m) => {
    if (m.id === undefined) return;
    t.send({ jsonrpc: '2.0', id: m.id, result: { sessionId: 's1' } });
    t.send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1' } });
  });
}

const nextMacrotask = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('an answer followed in the same read by a notification', () => {
  for (const relay of [true, false]) {
    it(`relay: ${relay}: the code awaiting the answer runs ${relay ? 'before' : 'after'} the notification's handler`, async () => {
      const [mine, theirs] = createMemoryTransportPair();
      answerThenNotify(theirs);
      const peer = new JsonRpcPeer(mine, { relay });
      const order: string[] = [];
      const holdingAtAnswer: boolean[] = [];
      peer.onNotification('session/update', () => void order.push('notification'));
      await peer.request('session/new', {}).then(() => {
        order.push('answer');
        holdingAtAnswer.push(peer.holding);
      });
      await nextMacrotask();
      expect(order).toEqual(relay ? ['answer', 'notification'] : ['notification', 'answer']);
      // while the answer holds the inbox, a transport's fast lane must leave messages to the peer
      expect(holdingAtAnswer).toEqual([relay]);
      expect(peer.holding).toBe(false);
    });
  }

  it('a two-peer relay (editor side, agent side) hands the editor the answer first, then the notification', async () => {
    const [editorEnd, editorSide] = createMemoryTransportPair();
    const [agentSide, agentEnd] = createMemoryTransportPair();
    const editorGot = rawEnd(editorEnd);
    answerThenNotify(agentEnd);
    const toEditor = new JsonRpcPeer(editorSide, { relay: true });
    const toAgent = new JsonRpcPeer(agentSide, { relay: true });
    toEditor.onOtherRequest((method, params) => toAgent.request(method, params));
    toAgent.onOtherNotification((method, params) => toEditor.notify(method, params));
    editorEnd.send({ jsonrpc: '2.0', id: 7, method: 'session/new', params: {} });
    while (editorGot.length < 2) await nextMacrotask();
    expect(editorGot).toEqual([
      { jsonrpc: '2.0', id: 7, result: { sessionId: 's1' } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1' } },
    ]);
  });

  it('a held inbox keeps later answers and notifications in wire order too', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    const asked: number[] = [];
    rawEnd(theirs, (m) => {
      if (m.id !== undefined) asked.push(m.id);
    });
    const peer = new JsonRpcPeer(mine, { relay: true });
    const order: string[] = [];
    peer.onNotification('n', (p) => void order.push(`n${String((p as { k: number }).k)}`));
    const a = peer.request('a', {}).then(() => void order.push('a'));
    const b = peer.request('b', {}).then(() => void order.push('b'));
    while (asked.length < 2) await nextMacrotask();
    // one delivery: answer a, n1, answer b, n2
    theirs.send({ jsonrpc: '2.0', id: asked[0], result: null });
    theirs.send({ jsonrpc: '2.0', method: 'n', params: { k: 1 } });
    theirs.send({ jsonrpc: '2.0', id: asked[1], result: null });
    theirs.send({ jsonrpc: '2.0', method: 'n', params: { k: 2 } });
    await Promise.all([a, b]);
    while (order.length < 4) await nextMacrotask();
    expect(order).toEqual(['a', 'n1', 'b', 'n2']);
  });
});

describe('cancelWith: a relay ties the request it sends on to the one it handles', () => {
  /** editor raw end <-> relay (two peers) <-> agent raw end; `handle` is the relay's request handler. */
  function relay(handle: (toAgent: JsonRpcPeer, method: string, params: unknown, ctx: RequestContext) => unknown) {
    const [editorEnd, editorSide] = createMemoryTransportPair();
    const [agentSide, agentEnd] = createMemoryTransportPair();
    const editorGot = rawEnd(editorEnd);
    const agentGot = rawEnd(agentEnd) as Array<{ id?: number; method?: string; params?: { requestId?: number } }>;
    const toEditor = new JsonRpcPeer(editorSide, { relay: true });
    const toAgent = new JsonRpcPeer(agentSide, { relay: true });
    toEditor.onOtherRequest((method, params, ctx) => handle(toAgent, method, params, ctx));
    return { editorEnd, agentEnd, editorGot, agentGot };
  }

  it('the editor cancelling sends $/cancel_request for the forwarded id; with onAbort wait the answer still comes back', async () => {
    const r = relay((toAgent, method, params, ctx) =>
      toAgent.request(method, params, { cancelWith: ctx, onAbort: 'wait' }),
    );
    r.editorEnd.send({ jsonrpc: '2.0', id: 7, method: 'x/slow', params: {} });
    while (r.agentGot.length < 1) await nextMacrotask();
    const forwarded = r.agentGot[0]?.id;
    r.editorEnd.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 7 } });
    while (r.agentGot.length < 2) await nextMacrotask();
    expect(r.agentGot[1]).toEqual({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: forwarded } });
    r.agentEnd.send({ jsonrpc: '2.0', id: forwarded, result: { partial: true } });
    while (r.editorGot.length < 1) await nextMacrotask();
    expect(r.editorGot).toEqual([{ jsonrpc: '2.0', id: 7, result: { partial: true } }]);
  });

  it('a request cancelled before the relay sends it on is never sent; its signal, made late, is aborted', async () => {
    const late: boolean[] = [];
    const r = relay(async (toAgent, method, params, ctx) => {
      await nextMacrotask();
      late.push(ctx.signal.aborted);
      return toAgent.request(method, params, { cancelWith: ctx });
    });
    r.editorEnd.send({ jsonrpc: '2.0', id: 8, method: 'x/never', params: {} });
    r.editorEnd.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 8 } });
    while (r.editorGot.length < 1) await nextMacrotask();
    expect(late).toEqual([true]);
    expect(r.editorGot).toMatchObject([{ id: 8, error: { code: -32800 } }]);
    // a round trip after it: the agent side got nothing for request 8
    r.editorEnd.send({ jsonrpc: '2.0', id: 9, method: 'x/after', params: {} });
    while (r.agentGot.length < 1) await nextMacrotask();
    expect(r.agentGot.map((m) => m.method)).toEqual(['x/after']);
  });

  it('a context made outside the peer (only its signal) cancels too', async () => {
    const [mine, theirs] = createMemoryTransportPair();
    const got = rawEnd(theirs) as Array<{ id?: number; method?: string }>;
    const peer = new JsonRpcPeer(mine);
    const controller = new AbortController();
    const answer = peer.request('x/y', {}, { cancelWith: { id: 1, method: 'x/y', signal: controller.signal } });
    while (got.length < 1) await nextMacrotask();
    controller.abort();
    await expect(answer).rejects.toMatchObject({ code: -32800 });
    while (got.length < 2) await nextMacrotask();
    expect(got[1]).toMatchObject({ method: '$/cancel_request', params: { requestId: got[0]?.id } });
  });
});
