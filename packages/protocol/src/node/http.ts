import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';

// `node:crypto` on first use: agents load this package's internal entry at start-up (several ms), and
// nothing here hashes before a request arrives
let crypto: typeof import('node:crypto') | undefined;
const nodeCrypto = (): typeof import('node:crypto') =>
  (crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto'));
const createHash = (algorithm: string): import('node:crypto').Hash => nodeCrypto().createHash(algorithm);
const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean =>
  nodeCrypto().timingSafeEqual(a, b);

// The HTTP pieces shared by `acp-kit serve` (server/server.ts) and the inspector
// (inspector/server.ts): secrets compared in constant time, bodies read under a byte limit,
// refusals answered as one plain-text sentence. No protocol in here.

/** A request refused: its status, the sentence the client reads, extra headers. */
export interface HttpRefusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Whether `given` equals `expected`, in time independent of where they differ and of their
 * lengths (both are hashed first: a length check would tell an attacker the secret's length).
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

/** Bearer tokens checked in constant time, each known by a stable, non-secret owner id (a hash prefix). */
export class BearerTokens {
  private readonly digests: Array<{ digest: Buffer; owner: string }>;

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map((t) => ({ digest: sha256(t), owner: sha256(t).toString('hex').slice(0, 12) }));
  }

  get size(): number {
    return this.digests.length;
  }

  /** The owner of the request's `Authorization: Bearer` token, or why it is refused (401). */
  check(req: IncomingMessage): { owner: string } | HttpRefusal {
    const auth = req.headers.authorization;
    const m = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
    const token = m?.[1];
    if (token === undefined)
      return {
        status: 401,
        message: 'missing bearer token: send "Authorization: Bearer <token>"',
        headers: { 'www-authenticate': 'Bearer' },
      };
    const given = sha256(token.trim());
    // every digest is compared (no early exit): the time does not say which token was close
    let hit: string | undefined;
    for (const t of this.digests) if (timingSafeEqual(t.digest, given)) hit ??= t.owner;
    if (hit === undefined)
      return {
        status: 401,
        message: 'invalid bearer token',
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      };
    return { owner: hit };
  }
}

/** An `Origin` outside `allowed` (exact `scheme://host[:port]`) is refused with 403; no `Origin` (not a browser) passes. */
export function checkOrigin(
  req: IncomingMessage,
  allowed: ReadonlySet<string>,
  hint: (origin: string) => string,
): HttpRefusal | undefined {
  const origin = req.headers.origin;
  if (origin === undefined || allowed.has(origin)) return undefined;
  return { status: 403, message: `Origin ${origin} is not allowed${hint(origin)}` };
}

/** A `Host` other than the listed ones is refused with 403 (DNS rebinding: a page served under another name). */
export function checkHost(req: IncomingMessage, allowed: readonly string[], hint: string): HttpRefusal | undefined {
  const host = req.headers.host ?? '';
  if (allowed.includes(host)) return undefined;
  return { status: 403, message: `403 Forbidden: Host ${JSON.stringify(host)} ${hint}` };
}

/**
 * The request body as text, or 413 when it is over `maxBytes` (declared or sent). A body over
 * the limit is read and discarded up to a bound, so the client sees the answer on a connection
 * that stays usable; beyond that bound the request is cut.
 */
export function readBody(req: IncomingMessage, maxBytes: number, tooLarge: string): Promise<string | HttpRefusal> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > maxBytes;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (over || size > maxBytes) {
        over = true;
        chunks.length = 0;
        if (size > 4 * maxBytes + 64 * 1024 * 1024) req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(over ? { status: 413, message: tooLarge } : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve({ status: 400, message: 'request body failed' }));
  });
}

/** Answers with one plain-text sentence (or just ends a response whose headers already went out). */
export function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(body + '\n');
}

/** A request header as one string (Node joins repeated custom headers with `, `). */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}
