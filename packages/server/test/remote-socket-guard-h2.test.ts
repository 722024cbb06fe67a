// The socket guard on the h2c port (startAcpServer `http2Port`): sockets that have not carried an
// admitted request are capped per address and closed when not admitted in time, refused h2
// clients get a 429 with Retry-After as an HTTP/2 answer, and an authenticated h2 client is
// admitted (not cut by the admission timeout) and still gets through.
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { connect as tcpConnect, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { AcpServer } from '../src/index.js';
import { startE2EServer, TOKEN } from '../../../test/support/remote.js';

const servers: AcpServer[] = [];
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) c();
  await Promise.all(servers.splice(0).map((s) => s.close(500)));
});

async function start(pendingSocketTimeoutMs: number): Promise<{ server: AcpServer; port: number }> {
  const server = await startE2EServer({
    http2Port: 0,
    maxPendingSockets: 16,
    maxPendingSocketsPerIp: 2,
    pendingSocketTimeoutMs,
  });
  servers.push(server);
  const port = Number(new URL(server.http2Url ?? '').port);
  return { server, port };
}

/** A TCP socket to the h2c port that sends nothing (half-open, as a slowloris client holds it). */
function silentSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect(port, '127.0.0.1', () => resolve(s));
    // read what the server sends (its SETTINGS): an unread socket never reports the server's close
    s.resume();
    s.on('error', reject);
    closers.push(() => s.destroy());
  });
}

function h2session(port: number): ClientHttp2Session {
  const session = h2connect(`http://127.0.0.1:${port}`);
  session.on('error', () => undefined);
  closers.push(() => session.destroy());
  return session;
}

/** One request on `session`: status, Retry-After and body. */
function request(
  session: ClientHttp2Session,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': '/acp', ...headers });
    let status = 0;
    let retryAfter: string | undefined;
    let text = '';
    req.on('response', (h) => {
      status = Number(h[':status']);
      retryAfter = h['retry-after'] as string | undefined;
    });
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => resolve({ status, retryAfter, body: text }));
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: 1, clientCapabilities: {} },
});
const POST = {
  ':method': 'POST',
  authorization: `Bearer ${TOKEN}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

it('h2c: past the per-address cap of silent sockets a client gets 429 with Retry-After (an HTTP/2 answer, its request not run)', async () => {
  const { port } = await start(30_000);
  await silentSocket(port);
  await silentSocket(port);
  const refused = await request(h2session(port), POST, INIT);
  expect(refused.status, refused.body).toBe(429);
  expect(refused.retryAfter).toBe('5');
  expect(refused.body).toContain('waiting to authenticate');
});

it('h2c: a silent socket is closed after the admission timeout; an admitted h2 client is not, and still gets through', async () => {
  const { port } = await start(800);
  const legit = h2session(port);
  const first = await request(legit, POST, INIT);
  expect(first.status, first.body).toBe(200);
  // a silent socket opened after the client's admitted request: its close proves the timeout has run
  const silent = await silentSocket(port);
  const closedAt = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('the silent socket was not closed within 10 s')), 10_000);
    silent.once('close', () => {
      clearTimeout(t);
      resolve(Date.now());
    });
  });
  expect(closedAt).toBeGreaterThan(0);
  // the legitimate session outlived it, and a new h2 client gets through too
  const again = await request(legit, POST, INIT);
  expect(again.status, again.body).toBe(200);
  const other = await request(h2session(port), POST, INIT);
  expect(other.status, other.body).toBe(200);
});
