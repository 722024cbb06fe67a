import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Http2Server, Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { isObj } from '../protocol/codec/util.js';
import { HEADER_CONNECTION_ID, HEADER_SESSION_ID } from '../rpc/http-headers.js';
import { messageToText, parseMessageText } from '../rpc/message-text.js';
import type { Transport } from '../rpc/transport.js';
import { WebSocketTransport } from '../rpc/websocket-transport.js';
import { GuardedTransport, SessionRegistry, type CwdCheck } from './guard.js';
import { HttpServerConnection } from './http-connection.js';
import { openFilesLimit, SocketGuard } from './socket-guard.js';
import { UnreadBudget } from './unread-budget.js';

/** What the server knows about the connection it asks an agent for. */
export interface AgentHostContext {
  /** Stable, non-secret identity of the bearer token (a hash prefix); `anonymous` without tokens. */
  owner: string;
  /** The `Acp-Connection-Id`. */
  connectionId: string;
  transport: 'websocket' | 'http';
}

/** An agent serving one remote connection. */
export interface AgentHost {
  /**
   * Graceful end: cancel running turns, answer what was received (up to `graceMs`), then close.
   * Resolves once the agent is gone.
   */
  shutdown(graceMs: number): Promise<void>;
  /** Immediate end (the connection is gone). */
  close(): void;
}

/** Starts an agent on `transport` for one connection. */
export type AgentHostFactory = (transport: Transport, context: AgentHostContext) => AgentHost;

/** Options of {@link startAcpServer}. */
export interface AcpServerOptions {
  agent: AgentHostFactory;
  /** Accepted bearer tokens. Without any, the server only binds loopback addresses. */
  tokens?: readonly string[];
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Endpoint path (default `/acp`). */
  path?: string;
  /** Origins a browser may connect from (exact `scheme://host[:port]`); requests with another `Origin` get 403. */
  allowedOrigins?: readonly string[];
  /** Largest client message in bytes (default 16 MiB): a larger POST gets 413, a larger frame closes the socket with 1009. */
  maxMessageBytes?: number;
  /** Unread bytes held per connection before it is closed (default 64 MiB). */
  maxBufferedBytes?: number;
  /**
   * Unread bytes held across all connections (default 256 MiB): beyond it the connections holding
   * the most (the slowest readers) are cut first, the reason naming this budget in the log.
   */
  maxUnreadBytes?: number;
  /** Concurrent connections (default 256); more get 503. */
  maxConnections?: number;
  /**
   * Sockets accepted but without an admitted (authenticated) request yet, across all addresses
   * (default 1024, at most a quarter of the process's open-files limit); more are answered 503 with
   * `Retry-After` and closed before their request is read.
   */
  maxPendingSockets?: number;
  /** The same per remote address (default a quarter of {@link maxPendingSockets}, at most 256: one address cannot fill them all); more get 429 with `Retry-After`. */
  maxPendingSocketsPerIp?: number;
  /** A socket without an admitted request this long after it connected is closed (default 10 s; slowloris). */
  pendingSocketTimeoutMs?: number;
  /** Open sessions per token (default 64). */
  maxSessions?: number;
  /**
   * Where the owner (token) of each session is kept, so a restarted server still refuses one
   * token's sessions to the others (an append-only log compacted atomically, mode 0600 in a 0700
   * folder; see OwnersLog and docs/remote.md "Tenants").
   * Without it ownership lasts as long as the process: give it whenever several tokens share an
   * agent whose sessions outlive the server (e.g. a stdio agent with its own store).
   */
  ownersFile?: string;
  /**
   * Checked on session/new, load, resume and fork before the agent sees them: a `cwd` (or
   * additional directory) it refuses is answered -32602 naming the field and the rule. See
   * {@link cwdRootsCheck} for allowed roots and per-tenant workspaces.
   */
  checkCwd?: CwdCheck;
  /** An HTTP connection whose event stream was not opened this long after `initialize` is dropped (default 30 s). */
  streamOpenTimeoutMs?: number;
  /**
   * Bytes of sent events each Streamable HTTP event stream keeps (default 1 MiB), so a client
   * whose stream dropped resumes it with `Last-Event-ID` without losing or repeating a message;
   * a `Last-Event-ID` older than that gets 410 naming the ids kept.
   */
  replayWindowBytes?: number;
  /** How long a dropped event stream waits for its client to resume it (default 10 s); then the connection ends. */
  streamResumeMs?: number;
  /**
   * Also serve the Streamable HTTP profile over cleartext HTTP/2 (h2c, prior knowledge), which the
   * remote transport RFD requires, on this port (0 = any free one); the main port keeps HTTP/1.1
   * and WebSocket. Node's HTTP/2 server only negotiates HTTP/1.1 beside HTTP/2 over TLS, hence a port of its own.
   */
  http2Port?: number;
  /** Diagnostics (default: none). */
  log?: (line: string) => void;
}

/** A running server. */
export interface AcpServer {
  /** `http://host:port/acp` (use `ws://` for the WebSocket profile). */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** `http://host:port/acp` of the cleartext HTTP/2 endpoint, when {@link AcpServerOptions.http2Port} was given. */
  readonly http2Url?: string;
  /** Connections currently open. */
  readonly connectionCount: number;
  /** Bytes sent to clients and not yet taken by them, across all connections (see {@link AcpServerOptions.maxUnreadBytes}). */
  readonly unreadBytes: number;
  /** Stop accepting, end turns `cancelled`, flush, close every connection; resolves when done. */
  close(graceMs?: number): Promise<void>;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;

/** Whether `host` is a loopback address (binding it without a token is allowed). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host.replace(/^\[|\]$/g, ''));
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

interface Live {
  transport: Transport;
  host: AgentHost;
  owner: string;
  http?: HttpServerConnection;
}

/**
 * Serves ACP on one endpoint with both profiles of the remote transport RFD: Streamable HTTP
 * (POST / GET event stream / DELETE) and WebSocket (upgrade on the same path). Every connection
 * gets its own agent from `options.agent`. Security: bearer token in `Authorization` (never the
 * query string), `Origin` allow-list, limits on message size, unread bytes, connections and
 * sessions, each refused with a status and a sentence saying what to do.
 */
export async function startAcpServer(options: AcpServerOptions): Promise<AcpServer> {
  const host = options.host ?? '127.0.0.1';
  const tokens = (options.tokens ?? []).filter((t) => t.length > 0);
  if (tokens.length === 0 && !isLoopbackHost(host)) {
    throw new Error(`refusing to listen on ${host} without a token: anyone who can reach it could run the agent; give a token (--token or --token-file) or bind 127.0.0.1`);
  }
  const path = options.path ?? '/acp';
  const maxMessageBytes = options.maxMessageBytes ?? 16 * 1024 * 1024;
  const maxBufferedBytes = options.maxBufferedBytes ?? 64 * 1024 * 1024;
  const maxConnections = options.maxConnections ?? 256;
  const streamOpenTimeoutMs = options.streamOpenTimeoutMs ?? 30_000;
  const replayWindowBytes = options.replayWindowBytes ?? 1024 * 1024;
  const resumeWithinMs = options.streamResumeMs ?? 10_000;
  const log = options.log ?? (() => undefined);
  const tokenDigests = tokens.map((t) => ({ digest: digest(t), owner: digest(t).toString('hex').slice(0, 12) }));
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const registry = new SessionRegistry(options.maxSessions ?? 64, options.ownersFile, tokens.length > 1, log);
  const fdLimit = openFilesLimit();
  const maxPending = options.maxPendingSockets ?? Math.max(16, Math.min(1024, Math.floor((fdLimit ?? 4096) / 4)));
  const sockets = new SocketGuard({ maxPending, maxPendingPerIp: options.maxPendingSocketsPerIp ?? Math.min(256, Math.max(4, Math.floor(maxPending / 4))), admitWithinMs: options.pendingSocketTimeoutMs ?? 10_000, log });
  const budget = new UnreadBudget(options.maxUnreadBytes ?? 256 * 1024 * 1024, log);
  const live = new Map<string, Live>();
  const httpConnections = new Map<string, HttpServerConnection>();
  let stopping = false;

  /** The owner of an acceptable request, or why it is refused. */
  const admit = (req: IncomingMessage): { owner: string } | Refusal => {
    const url = new URL(req.url ?? '/', 'http://x');
    for (const name of ['token', 'access_token', 'auth', 'key', 'api_key']) {
      if (url.searchParams.has(name)) {
        return { status: 400, message: `a token in the query string is refused (it ends up in logs and histories): send it as "Authorization: Bearer <token>"` };
      }
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) {
      return { status: 403, message: `Origin ${origin} is not allowed (acp-kit serve --allow-origin ${origin} allows it)` };
    }
    if (tokenDigests.length === 0) return { owner: 'anonymous' };
    const auth = req.headers.authorization;
    const m = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
    if (!m) return { status: 401, message: 'missing bearer token: send "Authorization: Bearer <token>"', headers: { 'www-authenticate': 'Bearer' } };
    const given = digest(m[1].trim());
    const hit = tokenDigests.find((t) => timingSafeEqual(t.digest, given));
    if (!hit) return { status: 401, message: 'invalid bearer token', headers: { 'www-authenticate': 'Bearer error="invalid_token"' } };
    return { owner: hit.owner };
  };

  const text = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(body + '\n');
  };

  const startHost = (transport: Transport, owner: string, connectionId: string, kind: 'websocket' | 'http', http?: HttpServerConnection): Live => {
    const guarded = new GuardedTransport(transport, owner, registry, options.checkCwd);
    // the host is registered once it exists: a factory that throws leaves no half entry behind
    const entry: Live = { transport, owner, http, host: options.agent(guarded, { owner, connectionId, transport: kind }) };
    live.set(connectionId, entry);
    log(`connection ${connectionId} (${kind}) opened`);
    return entry;
  };

  const readBody = (req: IncomingMessage): Promise<string | Refusal> =>
    new Promise((resolve) => {
      const declared = Number(req.headers['content-length']);
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      const tooLarge = (): Refusal => ({ status: 413, message: `message too large: more than ${maxMessageBytes} bytes (the server's limit, acp-kit serve --max-message-bytes); the connection stays usable` });
      if (Number.isFinite(declared) && declared > maxMessageBytes) over = true;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (over || size > maxMessageBytes) {
          over = true;
          chunks.length = 0;
          // read and discard up to a bound so the client sees the answer; beyond it, cut
          if (size > 4 * maxMessageBytes + 64 * 1024 * 1024) req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => resolve(over ? tooLarge() : Buffer.concat(chunks).toString('utf8')));
      req.on('error', () => resolve({ status: 400, message: 'request body failed' }));
    });

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/healthz' && req.method === 'GET') return healthz(res, stopping);
    if (url.pathname !== path) return text(res, 404, `not found: the ACP endpoint is ${path}`);
    const admitted = admit(req);
    if ('status' in admitted) return text(res, admitted.status, admitted.message, admitted.headers);
    sockets.admitted(req.socket);
    const { owner } = admitted;
    const connectionId = headerOf(req, HEADER_CONNECTION_ID);
    const sessionHeader = headerOf(req, HEADER_SESSION_ID);
    // a connection id presented with another token is answered as unknown
    const conn = connectionId !== undefined ? httpConnections.get(connectionId) : undefined;
    const known = conn !== undefined && conn.owner === owner ? conn : undefined;
    if (req.method === 'GET') {
      if (!(req.headers.accept ?? '').toLowerCase().includes('text/event-stream')) return text(res, 406, 'Not Acceptable: the event stream needs "Accept: text/event-stream"');
      if (connectionId === undefined) return text(res, 400, `Missing ${HEADER_CONNECTION_ID}: POST initialize first, then open the stream with its ${HEADER_CONNECTION_ID}`);
      if (!known) return text(res, 404, `Unknown ${HEADER_CONNECTION_ID}`);
      const refused = known.attach(res, sessionHeader, headerOf(req, 'last-event-id'));
      if (refused) return text(res, refused.status, refused.message);
      return;
    }
    if (req.method === 'DELETE') {
      if (connectionId === undefined) return text(res, 400, `Missing ${HEADER_CONNECTION_ID}`);
      if (!known) return text(res, 404, `Unknown ${HEADER_CONNECTION_ID}`);
      known.close({ reason: 'the client ended the connection (DELETE)' });
      res.writeHead(202).end();
      return;
    }
    if (req.method !== 'POST') return text(res, 405, 'Method Not Allowed: use POST, GET or DELETE', { allow: 'GET, POST, DELETE' });
    const type = (req.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
    if (type !== 'application/json') {
      req.resume();
      return text(res, 415, 'Unsupported Media Type: POST bodies are "Content-Type: application/json"');
    }
    const body = await readBody(req);
    if (typeof body !== 'string') return text(res, body.status, body.message);
    let message: unknown;
    try {
      // exact ids: an integer beyond 2^53 must come back with the digits it was sent with
      message = parseMessageText(body);
    } catch (e) {
      return text(res, 400, `Invalid JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (Array.isArray(message)) {
      res.writeHead(501, { 'content-type': 'application/json' });
      // the remote-transport RFD: "Batch JSON-RPC requests return 501" (stdio and WebSocket accept batches)
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: Streamable HTTP takes one JSON-RPC message per POST (batches get 501, as the remote-transport RFD says): send each entry as its own POST, or use the WebSocket' } }));
      return;
    }
    if (!isObj(message)) return text(res, 400, 'Invalid JSON-RPC message: the body must be one JSON object');
    const msg = message;
    if (msg.method === 'initialize') {
      if (connectionId !== undefined) return text(res, 400, `Initialize not allowed on an existing connection (drop the ${HEADER_CONNECTION_ID} header to start a new one)`);
      if (stopping) return text(res, 503, 'the server is shutting down');
      if (live.size >= maxConnections) return text(res, 503, `connection limit reached (${maxConnections}): try again later`, { 'retry-after': '5' });
      if (!('id' in msg) || msg.id === null) return text(res, 400, 'Invalid Request: initialize must have an id');
      const http = new HttpServerConnection(owner, { maxBufferedBytes, replayWindowBytes, resumeWithinMs });
      http.onBuffered = (bytes) => budget.report(http, bytes);
      httpConnections.set(http.id, http);
      const entry = startHost(http, owner, http.id, 'http', http);
      http.onEnd = (info) => {
        budget.forget(http);
        httpConnections.delete(http.id);
        live.delete(http.id);
        entry.host.close();
        log(`connection ${http.id} closed: ${info.reason}`);
      };
      const answer = await http.initializeWith(msg);
      http.expectStreamWithin(streamOpenTimeoutMs);
      res.writeHead(200, { 'content-type': 'application/json', [HEADER_CONNECTION_ID]: http.id });
      res.end(messageToText(answer));
      return;
    }
    if (connectionId === undefined) return text(res, 400, `Missing ${HEADER_CONNECTION_ID}: POST initialize first`);
    if (!known) return text(res, 404, `Unknown ${HEADER_CONNECTION_ID}`);
    const paramSession = isObj(msg.params) && typeof msg.params.sessionId === 'string' ? msg.params.sessionId : undefined;
    if (paramSession !== undefined && sessionHeader === undefined) return text(res, 400, `Missing ${HEADER_SESSION_ID}: session-scoped messages carry it (here ${JSON.stringify(paramSession)})`);
    if (paramSession !== undefined && sessionHeader !== paramSession) return text(res, 400, `Mismatched ${HEADER_SESSION_ID}: the header says ${JSON.stringify(sessionHeader)}, params.sessionId ${JSON.stringify(paramSession)}`);
    known.deliver(msg, sessionHeader);
    res.writeHead(202).end();
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes, perMessageDeflate: false });
  const upgradeIds = new WeakMap<IncomingMessage, string>();
  wss.on('headers', (headers, req) => {
    const id = upgradeIds.get(req);
    if (id) headers.push(`${HEADER_CONNECTION_ID}: ${id}`);
  });

  const refuseUpgrade = (socket: Duplex, r: Refusal): void => {
    const body = r.message + '\n';
    const extra = Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const reasons: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' };
    const reason = reasons[r.status] ?? 'Error';
    socket.end(`HTTP/1.1 ${r.status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (sockets.refused(req.socket, res)) return;
    onRequest(req, res).catch((e: Error) => {
      log(`request failed: ${e.stack ?? e.message}`);
      text(res, 500, `internal error: ${e.message}`);
    });
  };
  const server: Server = createServer(handle);
  sockets.watch(server);
  // Idle keep-alive sockets stay open longer than clients keep them (undici: the server's hint minus
  // 1 s): with Node's 5 s default, a client whose timers run late on a busy machine sends its next
  // POST on a socket the server is closing, and the request fails ("fetch failed").
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (sockets.refused(socket)) return;
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== path) return refuseUpgrade(socket, { status: 404, message: `not found: the ACP endpoint is ${path}` });
    const admitted = admit(req);
    if ('status' in admitted) return refuseUpgrade(socket, admitted);
    sockets.admitted(socket);
    if (stopping) return refuseUpgrade(socket, { status: 503, message: 'the server is shutting down' });
    if (live.size >= maxConnections) return refuseUpgrade(socket, { status: 503, message: `connection limit reached (${maxConnections}): try again later`, headers: { 'retry-after': '5' } });
    const id = crypto.randomUUID();
    upgradeIds.set(req, id);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const transport: WebSocketTransport = new WebSocketTransport(ws, { maxBufferedBytes, onBuffered: (bytes) => budget.report(transport, bytes) });
      const entry = startHost(transport, admitted.owner, id, 'websocket');
      ws.once('close', (code, reason) => {
        log(`connection ${id} closed: ${transport.closeReason ?? `WebSocket closed (${code} ${reason.toString()})`}`);
        budget.forget(transport);
        live.delete(id);
        entry.host.close();
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      // e.g. accept failing with EMFILE: the server goes on with the sockets it has
      server.on('error', (e) => log(`server error: ${e.message}`));
      resolve();
    });
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') {
    server.close();
    throw new Error('acp-kit serve: the server is not listening on a TCP port');
  }
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  // h2c: the compat request/response objects go through the same handler as HTTP/1.1
  let h2: Http2Server | undefined;
  let h2Port: number | undefined;
  const h2Sessions = new Set<Http2Session>();
  if (options.http2Port !== undefined) {
    try {
      h2 = await listenHttp2(options.http2Port, host, handle, sockets, h2Sessions);
    } catch (e) {
      server.close();
      throw e;
    }
    h2Port = (h2.address() as AddressInfo).port;
  }

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${addr.port}${path}`,
    ...(h2Port !== undefined ? { http2Url: `http://${urlHost}:${h2Port}${path}` } : {}),
    port: addr.port,
    host: addr.address,
    get connectionCount() {
      return live.size;
    },
    get unreadBytes() {
      return budget.totalBytes;
    },
    close(graceMs = 5000) {
      closing ??= (async () => {
        stopping = true;
        server.close();
        h2?.close();
        // keep-alive sockets with no request on them end now (server.close() only stops accepting)
        server.closeIdleConnections();
        const hosts = [...live.values()];
        // each connection gets the grace period to end its turns `cancelled`, plus a bounded time
        // to hand the client what it was sent: a client that stopped reading must not hold the
        // shutdown (its flush would wait forever), so it is cut when that time is up
        await Promise.all(hosts.map((l) => within(l.host.shutdown(graceMs).catch(() => undefined), graceMs + SHUTDOWN_FLUSH_MS)));
        for (const l of hosts) {
          l.transport.close({ reason: 'the server shut down' });
          l.host.close();
        }
        live.clear();
        wss.close();
        // open SSE streams and sockets of clients still connected over HTTP
        server.closeAllConnections();
        for (const session of h2Sessions) session.destroy();
      })();
      return closing;
    },
  };
}

/**
 * The h2c listener: its requests go through the same handler as HTTP/1.1 (compat objects), and
 * its sockets through the same guard (pending caps, per-address limits, the admission timeout).
 */
async function listenHttp2(port: number, host: string, handle: (req: IncomingMessage, res: ServerResponse) => void, sockets: SocketGuard, h2Sessions: Set<Http2Session>): Promise<Http2Server> {
  // loaded only when asked for: most servers speak HTTP/1.1 and WebSocket only
  const { createServer: createHttp2Server } = await import('node:http2');
  const h2Server = createHttp2Server((req, res) => handle(req as unknown as IncomingMessage, res as unknown as ServerResponse));
  sockets.watch(h2Server, true);
  h2Server.on('session', (session) => {
    sockets.h2Session(session);
    h2Sessions.add(session);
    session.once('close', () => h2Sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    h2Server.once('error', reject);
    h2Server.listen(port, host, () => {
      h2Server.off('error', reject);
      resolve();
    });
  });
  return h2Server;
}

/** After the grace period, how long a connection's shutdown may still take to flush what it sent. */
const SHUTDOWN_FLUSH_MS = 1000;

/** Resolves when `p` settles or after `ms`, whichever comes first. */
function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([p.then(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

/** A request header as one string (Node joins repeated custom headers with `, `). */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** `/healthz`, asked without a token: liveness only (no version, counts or paths a stranger could use). */
function healthz(res: ServerResponse, stopping: boolean): void {
  res.writeHead(stopping ? 503 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ ok: !stopping }) + '\n');
}
