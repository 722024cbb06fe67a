// The in-memory transport pair (rpc/memory-transport.ts), in process: message objects in order and never
// delivered inside `send`, close in both directions after what was sent before, nothing after close, a
// throwing handler ending the connection (not the process), and a JSON-RPC peer pair over it.
import { describe, expect, it } from 'vitest';
import {
  createMemoryTransportPair,
  JsonRpcPeer,
  RawJson,
  RawMessage,
  type CloseInfo,
  type MemoryTransport,
  type TransportHandlers,
} from '../src/rpc/index.js';

/** Starts `t` and records what it is handed. */
function listen(t: MemoryTransport, onMessage: (m: unknown) => void = () => undefined) {
  const got: unknown[] = [];
  const closes: CloseInfo[] = [];
  let onClosed: (info: CloseInfo) => void = () => undefined;
  const closed = new Promise<CloseInfo>((r) => (onClosed = r));
  const handlers: TransportHandlers = {
    onMessage: (m) => {
      got.push(m);
      onMessage(m);
    },
    onInvalidLine: () => {
      throw new Error('a memory transport has no lines');
    },
    onClose: (info) => {
      closes.push(info);
      onClosed(info);
    },
  };
  t.start(handlers);
  return { got, closes, closed };
}

describe.each(['microtask', 'macrotask'] as const)('memory transport pair (%s delivery)', (delivery) => {
  it('delivers the same objects in order, never inside send, also what a handler sends while being handed a batch', async () => {
    const [a, b] = createMemoryTransportPair({ delivery });
    const sent = Array.from({ length: 50 }, (_, i) => ({ n: i }));
    const bSide = listen(b, (m) => {
      // b answers each message: a's inbox fills while b's batch is still being delivered
      if (typeof m === 'object' && m !== null && 'n' in m) b.send({ echo: m.n });
    });
    const aSide = listen(a);
    for (const m of sent.slice(0, 25)) a.send(m);
    expect(bSide.got).toEqual([]);
    await Promise.resolve();
    for (const m of sent.slice(25)) a.send(m);
    await a.flush();
    await b.flush();
    expect(bSide.got).toHaveLength(50);
    bSide.got.forEach((m, i) => expect(m).toBe(sent[i]));
    expect(aSide.got).toEqual(sent.map((m) => ({ echo: m.n })));
  });

  it('messages sent before start are kept until the receiver starts', async () => {
    const [a, b] = createMemoryTransportPair({ delivery });
    a.send({ early: 1 });
    await new Promise((r) => setImmediate(r));
    const bSide = listen(b);
    await a.flush();
    expect(bSide.got).toEqual([{ early: 1 }]);
  });

  it.each(['a', 'b'] as const)(
    'close of %s: its own onClose at once; the other side reads what was sent before, then closes with the same info',
    async (closer) => {
      const [a, b] = createMemoryTransportPair({ delivery });
      const [x, y] = closer === 'a' ? [a, b] : [b, a];
      const xSide = listen(x);
      const ySide = listen(y);
      x.send({ last: true });
      const info = { reason: 'done here', exitCode: 0 };
      x.close(info);
      expect(xSide.closes).toEqual([info]);
      expect(ySide.closes).toEqual([]);
      expect(await ySide.closed).toBe(info);
      expect(ySide.got).toEqual([{ last: true }]);
      // closing again, or from the other side now, changes nothing
      x.close({ reason: 'again' });
      y.close({ reason: 'again' });
      expect(xSide.closes).toEqual([info]);
      expect(ySide.closes).toEqual([info]);
    },
  );

  it('nothing crosses after close: a closed side sends nothing, sends to a closed side are dropped, flush resolves', async () => {
    const [a, b] = createMemoryTransportPair({ delivery });
    const aSide = listen(a);
    const bSide = listen(b);
    b.send({ unread: 1 });
    a.close({ reason: 'gone' });
    a.send({ after: 1 });
    await bSide.closed;
    b.send({ after: 2 });
    await Promise.all([a.flush(), b.flush(), a.whenWritable(), b.whenWritable()]);
    await new Promise((r) => setImmediate(r));
    expect(aSide.got).toEqual([]);
    expect(bSide.got).toEqual([]);
  });

  it('a handler that throws ends the connection on both sides with the error; later messages are dropped, the process goes on', async () => {
    const [a, b] = createMemoryTransportPair({ delivery });
    const aSide = listen(a);
    const bSide = listen(b, (m) => {
      if (typeof m === 'object' && m !== null && 'boom' in m) throw new Error('handler bug');
    });
    a.send({ n: 1 });
    a.send({ boom: true });
    a.send({ n: 3 });
    const info = await aSide.closed;
    expect(info.reason).toBe('the message handler threw: handler bug');
    expect(info.error?.message).toBe('handler bug');
    expect(bSide.closes).toEqual([info]);
    expect(bSide.got).toEqual([{ n: 1 }, { boom: true }]);
  });

  it('a RawMessage (a line a text hop built) arrives parsed', async () => {
    const [a, b] = createMemoryTransportPair({ delivery });
    const bSide = listen(b);
    a.send(new RawMessage('{"jsonrpc":"2.0","method":"x","params":{"n":1}}'));
    await a.flush();
    expect(bSide.got).toEqual([{ jsonrpc: '2.0', method: 'x', params: { n: 1 } }]);
  });

  it('whenWritable waits while the other side has highWaterMark messages queued', async () => {
    const [a, b] = createMemoryTransportPair({ delivery, highWaterMark: 2 });
    const bSide = listen(b);
    a.send({ n: 1 });
    let writable = false;
    void a.whenWritable().then(() => (writable = true));
    await Promise.resolve();
    expect(writable).toBe(true);
    a.send({ n: 2 });
    const wait = a.whenWritable().then(() => bSide.got.length);
    expect(await wait).toBe(2);
  });

  it('a JSON-RPC peer pair over it: requests both ways, notifications in order, pending requests rejected on close', async () => {
    const [a, b] = createMemoryTransportPair({ delivery });
    const pa = new JsonRpcPeer(a);
    const pb = new JsonRpcPeer(b);
    const seen: unknown[] = [];
    pb.onRequest('add', (p) => {
      const { x, y } = p as { x: number; y: number };
      return pa.isClosed ? 0 : x + y;
    });
    pb.onNotification('note', (p) => void seen.push(p));
    pa.onRequest('ping', () => 'pong');
    for (let i = 0; i < 5; i++) pa.notify('note', { i });
    expect(await pa.request('add', { x: 2, y: 3 })).toBe(5);
    expect(seen).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
    expect(await pb.request('ping')).toBe('pong');
    await expect(pa.request('nope')).rejects.toMatchObject({ code: -32601 });
    pb.onRequest('hang', () => new Promise(() => undefined));
    const hung = pa.request('hang');
    await Promise.resolve();
    pb.close({ reason: 'b left' });
    await expect(hung).rejects.toThrow(/Connection closed: b left/);
    expect((await pa.closed).reason).toBe('b left');
  });

  it('rawPayload: an end that does not take RawJson gets a parsed copy (params, result, wrapped params); one that does gets the object', async () => {
    const [a, b] = createMemoryTransportPair({ delivery, rawPayload: [false, true] });
    const aSide = listen(a);
    const bSide = listen(b);
    const raw = () => new RawJson('{"n":1}');
    const toA = [
      { jsonrpc: '2.0', method: 'x', params: raw() },
      { jsonrpc: '2.0', id: 1, result: raw() },
      { jsonrpc: '2.0', method: 'proxy/successor', params: { method: 'y', params: raw() } },
    ];
    for (const m of toA) b.send(m);
    const toB = { jsonrpc: '2.0', method: 'x', params: raw() };
    a.send(toB);
    await Promise.all([a.flush(), b.flush()]);
    expect(aSide.got).toEqual([
      { jsonrpc: '2.0', method: 'x', params: { n: 1 } },
      { jsonrpc: '2.0', id: 1, result: { n: 1 } },
      { jsonrpc: '2.0', method: 'proxy/successor', params: { method: 'y', params: { n: 1 } } },
    ]);
    // the sender's message is not changed by the copy
    expect(toA[0]?.params).toBeInstanceOf(RawJson);
    expect(bSide.got[0]).toBe(toB);
  });

  it('freeze: a receiver that changes a message in place throws (which ends the connection), the sender keeps its object unchanged', async () => {
    const [a, b] = createMemoryTransportPair({ delivery, freeze: true });
    listen(a);
    const bSide = listen(b, (m) => {
      (m as { params: { list: number[] } }).params.list.push(3);
    });
    const sent = { jsonrpc: '2.0', method: 'x', params: { list: [1, 2] } };
    a.send(sent);
    expect((await bSide.closed).reason).toMatch(/^the message handler threw: .*(not extensible|read only|Cannot add)/);
    expect(sent.params.list).toEqual([1, 2]);
  });
});
