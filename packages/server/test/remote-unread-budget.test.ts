// Issue 24 item 2: the per-connection limit alone let every connection hold 64 MiB unread at once
// (25 connections that never read: 59 MB -> 1,868 MB). A budget across connections: real WebSocket
// clients that stop reading (their TCP sockets paused) while the agent streams to them; the server
// never holds much more than the budget, cuts the slowest readers first with a reason naming the
// budget, and a client that reads goes on undisturbed.
import { afterEach, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { connect, type ClientConnection } from '../../client/src/index.js';
import type { AcpServer } from '../src/index.js';
import { chunksPrompt, startE2EServer, TOKEN, wsUrl } from '../../../test/support/remote.js';

let server: AcpServer | undefined;
const sockets: WebSocket[] = [];
const conns: ClientConnection[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  await Promise.all(conns.splice(0).map((c) => c.close()));
  await server?.close(500);
  server = undefined;
});

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } };
const BUDGET = 4 * 1024 * 1024;

/** A raw WebSocket client with a session, about to stop reading; resolves with its close code once closed. */
async function nonReader(url: string): Promise<{ ws: WebSocket; sessionId: string; closed: Promise<number> }> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  sockets.push(ws);
  const waiters = new Map<number, (m: { result?: { sessionId?: string } }) => void>();
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    waiters.get(m.id)?.(m);
  });
  await new Promise((r) => ws.once('open', r));
  const request = (m: { id: number }) =>
    new Promise<{ result?: { sessionId?: string } }>((resolve) => {
      waiters.set(m.id, resolve);
      ws.send(JSON.stringify(m));
    });
  await request(INIT);
  const answer = await request({
    jsonrpc: '2.0',
    id: 2,
    method: 'session/new',
    params: { cwd: '/tmp', mcpServers: [] },
  } as never);
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  return { ws, sessionId: String(answer.result?.sessionId), closed };
}

it('connections that stop reading: the server holds about the budget in total, cuts the slowest readers naming the budget, and a reading client goes on', async () => {
  const logs: string[] = [];
  server = await startE2EServer({
    maxUnreadBytes: BUDGET,
    maxMessageBytes: 64 * 1024 * 1024,
    log: (l) => logs.push(l),
  });
  const readers = await Promise.all(Array.from({ length: 4 }, () => nonReader(wsUrl(server!))));
  // each is streamed 12 MB (far below the 64 MiB each may hold alone), then stops reading
  const big = JSON.stringify({
    actions: Array.from({ length: 1500 }, (_, i) => ({
      send: {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm',
        content: { type: 'text', text: `c${i} ${'y'.repeat(8000)}` },
      },
    })),
  });
  for (const [i, r] of readers.entries()) {
    (r.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    r.ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 10 + i,
        method: 'session/prompt',
        params: { sessionId: r.sessionId, prompt: [{ type: 'text', text: big }] },
      }),
    );
  }
  // a client that reads, on the same server meanwhile
  const conn = await connect({ url: wsUrl(server), token: TOKEN });
  conns.push(conn);
  const s = await conn.newSession({ cwd: '/tmp' });
  expect((await s.prompt(chunksPrompt(300))).stopReason).toBe('end_turn');
  // every non-reader ends up cut (each keeps growing), without a close handshake it would not read
  const cuts = (): string[] => logs.filter((l) => /closed: unread bytes budget exceeded/.test(l));
  for (const deadline = Date.now() + 30_000; cuts().length < 4; await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline)
      throw new Error(`${cuts().length} of 4 non-reading connections cut; ${server.unreadBytes} bytes unread now`);
  }
  for (const r of readers) (r.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  expect(await Promise.all(readers.map((r) => r.closed))).toEqual([1006, 1006, 1006, 1006]);
  expect(cuts()[0]).toMatch(
    /at most 4194304 unread bytes across all connections \(acp-kit serve --max-unread-bytes\) and this connection, the slowest reader, left \d+ unread/,
  );
  // the first cut is of the slowest reader: over the budget across 4 connections, it held more than a quarter of it
  const first = Number(/left (\d+) unread/.exec(cuts()[0])?.[1]);
  expect(first).toBeGreaterThan(BUDGET / 4);
  expect(server.unreadBytes).toBeLessThanOrEqual(BUDGET);
  // the reader was never cut
  expect((await s.prompt('hi')).stopReason).toBe('end_turn');
}, 60_000);
