// Streamable HTTP server write batching and backpressure (issue 13, Performance): the SSE events sent
// in one macrotask go out as a few large chunks, a producer that waits on whenWritable() is held back
// by whichever stream its events go to (the connection stream or a session-scoped one), and every
// event still arrives whole and in order.
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpServerConnection } from '../src/http-connection.js';

let http: Server | undefined;
const conns: HttpServerConnection[] = [];
const responses: IncomingMessage[] = [];
afterEach(async () => {
  for (const c of conns.splice(0)) c.close();
  for (const r of responses.splice(0)) r.destroy();
  http?.closeAllConnections();
  await new Promise((r) => (http ? http.close(r) : r(undefined)));
  http = undefined;
});

const message = (i: number) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId: 's1',
    update: {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm',
      content: { type: 'text', text: `chunk ${i} of a long stream ${'x'.repeat(200)}` },
    },
  },
});

interface Reader {
  /** The `data` of every event received so far, parsed. */
  events: unknown[];
  /** Resolves once `n` events arrived. */
  until(n: number): Promise<void>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  /** Size of every HTTP chunk of the body (chunked transfer encoding), as the server wrote them. */
  chunks: number[];
}

/**
 * A server whose GET attaches the response as `conn`'s event stream (`Acp-Session-Id` names a
 * session stream), and a raw SSE reader of it.
 */
async function open(session: string | undefined): Promise<{ conn: HttpServerConnection; reader: Reader }> {
  const conn = new HttpServerConnection('owner', {
    maxBufferedBytes: 256 * 1024 * 1024,
    replayWindowBytes: 1024 * 1024,
    resumeWithinMs: 10_000,
  });
  conns.push(conn);
  conn.start({ onMessage: () => undefined, onInvalidLine: () => undefined, onClose: () => undefined });
  const chunks: number[] = [];
  http = createServer((req, res: ServerResponse) => {
    // the size of each HTTP chunk: the body is chunked, one res.write each
    const write = res.write.bind(res) as (c: string | Buffer) => boolean;
    (res as unknown as { write: (c: string | Buffer) => boolean }).write = (c) => {
      chunks.push(Buffer.byteLength(c));
      return write(c);
    };
    conn.attach(res, session);
  });
  await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r));
  const port = (http.address() as { port: number }).port;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    get(
      {
        host: '127.0.0.1',
        port,
        path: '/acp',
        headers: { accept: 'text/event-stream', ...(session !== undefined ? { 'acp-session-id': session } : {}) },
      },
      resolve,
    ).once('error', reject);
  });
  responses.push(res);
  expect(res.headers['content-type']).toBe('text/event-stream');
  const events: unknown[] = [];
  let buffer = '';
  let wanted: { n: number; resolve: () => void } | undefined;
  res.setEncoding('utf8');
  res.on('data', (text: string) => {
    buffer += text;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      // every event carries its id (1, 2, 3...: resumable with Last-Event-ID), then its data
      const head = `id: ${events.length + 1}\ndata: `;
      expect(event.startsWith(head)).toBe(true);
      events.push(JSON.parse(event.slice(head.length)));
    }
    if (wanted && events.length >= wanted.n) wanted.resolve();
  });
  const ended = new Promise<void>((resolve) => res.once('end', resolve));
  return {
    conn,
    reader: {
      events,
      chunks,
      ended,
      until: (n) => (events.length >= n ? Promise.resolve() : new Promise((resolve) => (wanted = { n, resolve }))),
    },
  };
}

describe('Streamable HTTP server write batching', () => {
  it.each([
    ['the connection stream', undefined],
    ['a session-scoped stream', 's1'],
  ] as const)(
    '%s: a producer awaiting whenWritable() is held back (at most a batch buffered), and every event arrives in order',
    async (_, session) => {
      const { conn, reader } = await open(session);
      const N = 20_000; // about 5 MB
      let maxBuffered = 0;
      for (let i = 0; i < N; i++) {
        conn.send(message(i));
        await conn.whenWritable();
        maxBuffered = Math.max(maxBuffered, conn.bufferedBytes);
      }
      await reader.until(N);
      expect(reader.events).toEqual(Array.from({ length: N }, (_, i) => message(i)));
      // without backpressure on the stream the events go to, the producer piles all 5 MB in memory
      expect(maxBuffered).toBeLessThan(256 * 1024);
    },
  );

  // issue 24 item 7: holding every event for the check phase added the whole loop iteration (every
  // other session's work) to each chunk of a server with many sessions
  it('a lone event is written at once, not at the check phase; the events after it in the same iteration are batched', async () => {
    const { conn, reader } = await open('s1');
    conn.send(message(0));
    expect(reader.chunks).toHaveLength(1);
    conn.send(message(1));
    conn.send(message(2));
    expect(reader.chunks).toHaveLength(1);
    // the connection's check-phase callback was queued before this one: the batch has left by now
    await new Promise((r) => setImmediate(r));
    expect(reader.chunks).toHaveLength(2);
    await reader.until(3);
    expect(reader.events).toEqual([message(0), message(1), message(2)]);
    conn.send(message(3));
    expect(reader.chunks).toHaveLength(3);
    await reader.until(4);
  });

  it('a burst sent without yielding goes out as HTTP chunks of about 64 KiB, not one per event', async () => {
    const { conn, reader } = await open('s1');
    const N = 3000;
    for (let i = 0; i < N; i++) conn.send(message(i));
    conn.send({ jsonrpc: '2.0', method: 'end', params: { sessionId: 's1' } });
    await reader.until(N + 1);
    expect(reader.events.at(-1)).toEqual({ jsonrpc: '2.0', method: 'end', params: { sessionId: 's1' } });
    expect(reader.events.slice(0, N)).toEqual(Array.from({ length: N }, (_, i) => message(i)));
    const total = reader.chunks.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(8 * 64 * 1024);
    expect(reader.chunks.length).toBeLessThanOrEqual(Math.ceil(total / (64 * 1024)) + 2);
    const largest = Buffer.byteLength(`data: ${JSON.stringify(message(N - 1))}\n\n`);
    for (const c of reader.chunks) expect(c).toBeLessThan(64 * 1024 + largest);
  });

  it('close() right after a burst: the client gets every event, then the end of the stream', async () => {
    const { conn, reader } = await open(undefined);
    for (let i = 0; i < 500; i++) conn.send(message(i));
    conn.close({ reason: 'done streaming' });
    await reader.ended;
    expect(reader.events).toEqual(Array.from({ length: 500 }, (_, i) => message(i)));
  });

  it('flush() resolves once every batched event has left the response', async () => {
    const { conn, reader } = await open('s1');
    for (let i = 0; i < 200; i++) conn.send(message(i));
    expect(conn.bufferedBytes).toBeGreaterThan(0);
    await conn.flush();
    expect(conn.bufferedBytes).toBe(0);
    await reader.until(200);
    expect(reader.events).toEqual(Array.from({ length: 200 }, (_, i) => message(i)));
  });
});
