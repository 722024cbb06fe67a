import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonRpcPeer, StreamTransport, type Transport, type TransportHandlers } from '../src/rpc/index.js';

function pair() {
  const a2b = new PassThrough();
  const b2a = new PassThrough();
  const a = new JsonRpcPeer(new StreamTransport(b2a, a2b));
  const b = new JsonRpcPeer(new StreamTransport(a2b, b2a));
  return { a, b, a2b, b2a };
}

describe('JsonRpcPeer edge cases (review)', () => {
  it('a response already received behind a slow notification handler still resolves when the stream then ends', async () => {
    const { a, b } = pair();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    a.onNotification('tick', async () => {
      await gate;
      seen.push('tick');
    });
    b.onRequest('go', () => {
      b.notify('tick');
      // the peer answers and hangs up right away (an agent that exits after its last reply)
      setImmediate(() => b.close());
      return 'done';
    });
    const answer = a.request('go');
    const outcome = answer.then(
      (v) => ({ ok: v }),
      (e: Error) => ({ err: e.message }),
    );
    await a.closed;
    release();
    // ordering still holds: the notification before the response was handled first
    expect(await outcome).toEqual({ ok: 'done' });
    expect(seen).toEqual(['tick']);
  });

  it('still rejects, at close, the requests that got no response', async () => {
    const { a, b } = pair();
    b.onRequest('never', () => new Promise(() => undefined));
    const p = a.request('never');
    setImmediate(() => b.close({ reason: 'bye' }));
    await expect(p).rejects.toMatchObject({ name: 'ConnectionClosedError' });
  });

  it('answers a handler result that cannot be serialized with -32603 instead of crashing or never answering', async () => {
    const { a, b } = pair();
    b.onRequest('bigint', () => ({ n: 10n }));
    b.onRequest('circular', async () => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    });
    await expect(a.request('bigint')).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('bigint could not be sent'),
    });
    await expect(a.request('circular')).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('circular could not be sent'),
    });
    // the peer still serves
    b.onRequest('ok', () => 1);
    expect(await a.request('ok')).toBe(1);
  });

  it('holds no request maps while idle, and builds them again for the next request and its cancellation', async () => {
    const { a, b } = pair();
    type Maps = { pending?: Map<unknown, unknown>; inbound?: Map<unknown, unknown> };
    const maps = (p: JsonRpcPeer): Maps => p as unknown as Maps;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    b.onRequest('echo', (p) => p);
    b.onRequest('wait', (_p, ctx) => {
      started();
      return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    });
    expect(await a.request('echo', 1)).toBe(1);
    // answered: neither side keeps an (empty) map for an idle connection
    expect([maps(a).pending, maps(b).inbound]).toEqual([undefined, undefined]);
    // the next request, and its cancellation, still find what they need
    const ac = new AbortController();
    const waiting = a.request('wait', {}, { signal: ac.signal, onAbort: 'wait' });
    await running;
    expect(maps(a).pending?.size).toBe(1);
    expect(maps(b).inbound?.size).toBe(1);
    ac.abort();
    await expect(waiting).rejects.toMatchObject({ code: -32800 });
    expect([maps(a).pending, maps(b).inbound]).toEqual([undefined, undefined]);
    expect(await a.request('echo', 2)).toBe(2);
  });

  it('rejects a request whose params cannot be serialized without leaking its pending entry or abort listener', async () => {
    const { a, b } = pair();
    b.onRequest('echo', (p) => p);
    const ac = new AbortController();
    await expect(a.request('echo', { n: 1n }, { signal: ac.signal })).rejects.toThrow(/BigInt/i);
    // nothing pending: the map is dropped with its last entry
    expect((a as unknown as { pending: Map<unknown, unknown> | undefined }).pending?.size ?? 0).toBe(0);
    // aborting now must not send a $/cancel_request for a request that never went out
    const seen: unknown[] = [];
    b.onNotification('$/cancel_request', (p) => void seen.push(p));
    ac.abort();
    expect(await a.request('echo', 2)).toBe(2);
    expect(seen).toEqual([]);
  });

  it('a batch (ACP-V2-TRANS-11) queued behind a slow notification runs in its turn, before what came after it', async () => {
    const { a, a2b, b2a } = pair();
    const order: string[] = [];
    a.onRequest('echo', (p) => {
      order.push(`echo ${p}`);
      return p;
    });
    // a slow async notification handler holds back everything after it, the array included
    a.onNotification('note', async (p) => {
      await new Promise((r) => setTimeout(r, 20));
      order.push(`note ${p}`);
    });
    const lines: unknown[] = [];
    a2b.on('data', (c: Buffer) => {
      for (const l of c.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l));
    });
    b2a.write(JSON.stringify({ jsonrpc: '2.0', method: 'note', params: 1 }) + '\n');
    b2a.write(
      JSON.stringify([
        { jsonrpc: '2.0', method: 'note', params: 'x' },
        { jsonrpc: '2.0', id: 1, method: 'echo', params: 'x' },
      ]) + '\n',
    );
    b2a.write(JSON.stringify({ jsonrpc: '2.0', method: 'note', params: 2 }) + '\n');
    b2a.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'echo', params: 2 }) + '\n');
    // the answer to the last request comes after everything before it was handled
    for (const end = Date.now() + 5000; lines.length < 2 && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual(['note 1', 'note x', 'echo x', 'note 2', 'echo 2']);
    expect(lines).toEqual([[{ jsonrpc: '2.0', id: 1, result: 'x' }], { jsonrpc: '2.0', id: 2, result: 2 }]);
  });

  it('drains a large backlog behind an async notification handler, in order', async () => {
    // a real peer over a minimal in-memory transport, so the measurement is the peer's inbox alone
    let h!: TransportHandlers;
    const transport: Transport = {
      start: (handlers) => void (h = handlers),
      send: () => undefined,
      whenWritable: async () => undefined,
      flush: async () => undefined,
      close: () => undefined,
    };
    const peer = new JsonRpcPeer(transport);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let expected = 0;
    let outOfOrder = 0;
    let last!: () => void;
    const allSeen = new Promise<void>((r) => (last = r));
    const n = 200_000;
    peer.onNotification('tick', async (p) => {
      await gate;
      if ((p as { i: number }).i !== expected) outOfOrder++;
      expected++;
      if (expected === n) last();
    });
    for (let i = 0; i < n; i++) h.onMessage({ jsonrpc: '2.0', method: 'tick', params: { i } });
    release();
    await allSeen;
    expect(expected).toBe(n);
    expect(outOfOrder).toBe(0);
    // its speed (linear, not Array#shift's quadratic) is measured by bench/peer-backlog.mjs, not here
  });
});
