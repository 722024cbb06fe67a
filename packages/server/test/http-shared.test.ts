// The HTTP pieces `serve` and the inspector share (packages/protocol/src/node/http.ts), over a real loopback server:
// bearer tokens (owners per token, 401 with the right WWW-Authenticate), Origin and Host
// allow-lists, and body reading under a byte limit (declared or streamed past it).
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import {
  BearerTokens,
  checkHost,
  checkOrigin,
  readBody,
  sameSecret,
  sendText,
  type HttpRefusal,
} from '../../protocol/src/node/http.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

/** A server answering each request with `answer(req)` as JSON (or its refusal as text). */
async function serve(answer: (req: IncomingMessage) => Promise<unknown> | unknown): Promise<number> {
  server = createServer((req, res) => {
    void Promise.resolve(answer(req)).then((v) => {
      const r = v as HttpRefusal;
      if (v !== undefined && typeof v === 'object' && v !== null && 'status' in v)
        return sendText(res, r.status, r.message, r.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v ?? null));
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

/** One request with `headers` and an optional body written in `chunks`; its status, headers and text. */
function send(
  port: number,
  headers: Record<string, string>,
  chunks: Buffer[] = [],
): Promise<{ status: number; headers: IncomingMessage['headers']; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: chunks.length > 0 ? 'POST' : 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

it('bearer tokens: each token has its own stable owner; a missing or wrong one gets 401 with WWW-Authenticate', async () => {
  const tokens = new BearerTokens(['alpha-token-1', 'beta-token-2']);
  const port = await serve((req) => tokens.check(req));
  const a = await send(port, { authorization: 'Bearer alpha-token-1' });
  const a2 = await send(port, { authorization: 'bearer   alpha-token-1 ' });
  const b = await send(port, { authorization: 'Bearer beta-token-2' });
  expect(a.status).toBe(200);
  expect(JSON.parse(a.text)).toEqual(JSON.parse(a2.text));
  expect(JSON.parse(a.text).owner).toMatch(/^[0-9a-f]{12}$/);
  expect(JSON.parse(b.text).owner).not.toBe(JSON.parse(a.text).owner);
  const missing = await send(port, {});
  expect([missing.status, missing.headers['www-authenticate'], missing.text]).toEqual([
    401,
    'Bearer',
    'missing bearer token: send "Authorization: Bearer <token>"\n',
  ]);
  const wrong = await send(port, { authorization: 'Bearer alpha-token-' });
  expect([wrong.status, wrong.headers['www-authenticate'], wrong.text]).toEqual([
    401,
    'Bearer error="invalid_token"',
    'invalid bearer token\n',
  ]);
});

it('sameSecret compares whole secrets of any length', () => {
  expect(sameSecret('abc', 'abc')).toBe(true);
  expect(sameSecret('abc', 'abd')).toBe(false);
  expect(sameSecret('ab', 'abc')).toBe(false);
  expect(sameSecret('', 'abc')).toBe(false);
});

it('Origin and Host allow-lists: 403 naming what was refused; no Origin passes', async () => {
  const port = await serve(
    (req) =>
      checkOrigin(req, new Set(['https://ok.example']), (o) => ` (allow ${o})`) ??
      checkHost(req, [`127.0.0.1:${port}`], 'is not this server') ?? { ok: true },
  );
  expect((await send(port, {})).status).toBe(200);
  expect((await send(port, { origin: 'https://ok.example' })).status).toBe(200);
  const origin = await send(port, { origin: 'https://evil.example' });
  expect([origin.status, origin.text]).toEqual([
    403,
    'Origin https://evil.example is not allowed (allow https://evil.example)\n',
  ]);
  const host = await send(port, { host: 'rebound.example' });
  expect([host.status, host.text]).toEqual([403, '403 Forbidden: Host "rebound.example" is not this server\n']);
});

it('readBody: the body up to the limit; 413 when a body is declared or streamed past it', async () => {
  const port = await serve((req) =>
    readBody(req, 10, 'too large: over 10 bytes').then((b) => (typeof b === 'string' ? { body: b } : b)),
  );
  const ok = await send(port, { 'content-type': 'text/plain' }, [Buffer.from('0123456789')]);
  expect(JSON.parse(ok.text)).toEqual({ body: '0123456789' });
  const declared = await send(port, { 'content-length': '11' }, [Buffer.from('01234567890')]);
  expect([declared.status, declared.text]).toEqual([413, 'too large: over 10 bytes\n']);
  // chunked (no length declared): found over the limit while reading
  const streamed = await send(port, { 'transfer-encoding': 'chunked' }, [Buffer.from('012345'), Buffer.from('6789ab')]);
  expect([streamed.status, streamed.text]).toEqual([413, 'too large: over 10 bytes\n']);
});
