// WebSocket transport write batching (issue 13, Performance): the frames sent in one loop iteration
// reach the OS in a few large writes, not one system call per frame, in both directions (the client
// masks its frames), while every message stays its own text frame and arrives in order; the first
// frame of an iteration goes at once (issue 24 item 7: latency at many sessions).
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { connectWebSocketTransport, WebSocketTransport } from '../../protocol/src/rpc/websocket-transport.js';
import type { TransportHandlers } from '../../protocol/src/rpc/transport.js';

let http: Server | undefined;
let wss: WebSocketServer | undefined;
const transports: WebSocketTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) t.close();
  wss?.close();
  http?.closeAllConnections();
  await new Promise((r) => (http ? http.close(r) : r(undefined)));
  http = undefined;
  wss = undefined;
});

/** Records the byte size of every write the socket hands to the OS (one entry per write/writev call). */
function recordWrites(socket: Socket): number[] {
  const sizes: number[] = [];
  const s = socket as unknown as {
    _write: (c: Buffer | string, e: BufferEncoding, cb: () => void) => void;
    _writev: (cs: Array<{ chunk: Buffer | string }>, cb: () => void) => void;
  };
  const write = s._write.bind(socket);
  const writev = s._writev.bind(socket);
  s._write = (c, e, cb) => {
    sizes.push(Buffer.byteLength(c));
    write(c, e, cb);
  };
  s._writev = (cs, cb) => {
    sizes.push(cs.reduce((n, { chunk }) => n + Buffer.byteLength(chunk), 0));
    writev(cs, cb);
  };
  return sizes;
}

interface Pair {
  server: WebSocketTransport;
  client: WebSocketTransport;
  serverSocket: Socket;
  clientSocket: Socket;
  toServer: unknown[];
  toClient: unknown[];
  clientClosed: Promise<string>;
}

async function pair(): Promise<Pair> {
  http = createServer();
  wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  let serverSocket: Socket | undefined;
  http.on('connection', (s: Socket) => (serverSocket = s));
  await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r));
  const port = (http.address() as { port: number }).port;
  const toServer: unknown[] = [];
  const toClient: unknown[] = [];
  const handlers = (into: unknown[], onClose: (reason: string) => void = () => undefined): TransportHandlers => ({
    onMessage: (m) => {
      into.push(m);
      waiters.get(into)?.();
    },
    onInvalidLine: (i) => into.push({ invalid: i.line }),
    onClose: (info) => onClose(info.reason),
  });
  const accepted = new Promise<WebSocketTransport>((resolve) =>
    wss!.once('connection', (ws) => resolve(new WebSocketTransport(ws))),
  );
  const client = connectWebSocketTransport(`ws://127.0.0.1:${port}/acp`);
  transports.push(client);
  const upgraded = new Promise<Socket>((resolve) =>
    client.socket.once('upgrade', (res) => resolve(res.socket as Socket)),
  );
  let clientClosed!: Promise<string>;
  clientClosed = new Promise((resolve) => client.start(handlers(toClient, resolve)));
  const server = await accepted;
  transports.push(server);
  server.start(handlers(toServer));
  const clientSocket = await upgraded;
  await new Promise<void>((r) =>
    client.socket.readyState === client.socket.OPEN ? r() : client.socket.once('open', () => r()),
  );
  return { server, client, serverSocket: serverSocket!, clientSocket, toServer, toClient, clientClosed };
}

const N = 3000;
const message = (i: number) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId: 's1',
    update: {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'm',
      content: { type: 'text', text: `chunk ${i} of a long stream` },
    },
  },
});
const bytesOf = (i: number) => Buffer.byteLength(JSON.stringify(message(i)));

const waiters = new Map<unknown[], () => void>();
/** Resolves once `list` holds `n` messages (checked on each arrival). */
function until(list: unknown[], n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (list.length < n) return;
      waiters.delete(list);
      resolve();
    };
    waiters.set(list, check);
    check();
  });
}

describe('WebSocket transport write batching', () => {
  // issue 24 item 7: holding every frame for the check phase added the whole loop iteration (every
  // other session's timers and I/O) to each chunk of a server with many sessions: p50 41-54 ms at
  // 1,000 sessions, where one frame per session per iteration is the common case
  it('a lone frame reaches the OS at once, not at the check phase; the frames after it in the same iteration are batched', async () => {
    const p = await pair();
    const writes = recordWrites(p.serverSocket);
    p.server.send(message(0));
    expect(writes).toHaveLength(1);
    p.server.send(message(1));
    p.server.send(message(2));
    expect(writes).toHaveLength(1);
    // the transport's check-phase callback was queued before this one: the batch has left by now
    await new Promise((r) => setImmediate(r));
    expect(writes).toHaveLength(2);
    await until(p.toClient, 3);
    expect(p.toClient).toEqual([message(0), message(1), message(2)]);
    // the next iteration's first frame goes at once again
    p.server.send(message(3));
    expect(writes).toHaveLength(3);
    await until(p.toClient, 4);
  });

  it.each(['server to client (unmasked frames)', 'client to server (masked frames)'] as const)(
    '%s: a burst of frames sent without yielding goes out in a few writes of at most 64 KiB + one message, every message arriving in order',
    async (direction) => {
      const p = await pair();
      const toServer = direction.startsWith('client');
      const from = toServer ? p.client : p.server;
      const received = toServer ? p.toServer : p.toClient;
      const writes = recordWrites(toServer ? p.clientSocket : p.serverSocket);
      let total = 0;
      for (let i = 0; i < N; i++) {
        from.send(message(i));
        total += bytesOf(i);
      }
      from.send({ jsonrpc: '2.0', method: 'end' });
      await until(received, N + 1);
      expect(received).toEqual([...Array.from({ length: N }, (_, i) => message(i)), { jsonrpc: '2.0', method: 'end' }]);
      // one write per frame before batching (N + 1 writes); now one per 64 KiB
      expect(total).toBeGreaterThan(4 * 64 * 1024);
      expect(writes.length).toBeLessThanOrEqual(Math.ceil(total / (64 * 1024)) + 2);
      // the 64 KiB count payload; each frame adds a header of at most 8 bytes here (2-byte length, 4-byte mask)
      const largest = bytesOf(N - 1);
      const framesPerWrite = Math.ceil((64 * 1024 + largest) / bytesOf(0));
      for (const w of writes) expect(w).toBeLessThanOrEqual(64 * 1024 + largest + 8 * framesPerWrite);
    },
  );

  it('close() right after a burst: the peer gets every message, then the close frame with the reason', async () => {
    const p = await pair();
    for (let i = 0; i < 500; i++) p.server.send(message(i));
    p.server.close({ reason: 'done streaming' });
    expect(await p.clientClosed).toBe('WebSocket closed (1000: done streaming)');
    expect(p.toClient).toEqual(Array.from({ length: 500 }, (_, i) => message(i)));
  });

  it('flush() resolves once every batched frame has been handed to the OS', async () => {
    const p = await pair();
    for (let i = 0; i < 200; i++) p.server.send(message(i));
    expect(p.server.bufferedBytes).toBeGreaterThan(0);
    await p.server.flush();
    expect(p.server.bufferedBytes).toBe(0);
    expect(p.server.socket.bufferedAmount).toBe(0);
  });
});
