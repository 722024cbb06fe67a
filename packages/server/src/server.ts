import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Http2Server, Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  BearerTokens,
  checkOrigin,
  headerOf,
  readBody,
  sendText,
  type HttpRefusal,
  isObj,
  messageToText,
  parseMessageText,
} from '@acp-kit/protocol/internal';
import { HEADER_CONNECTION_ID, HEADER_SESSION_ID } from '@acp-kit/protocol/http';
import type { Transport } from '@acp-kit/protocol/rpc';
import { WebSocketTransport } from '@acp-kit/protocol/websocket';
import { newConnectionId } from './connection-id.js';
import { GuardedTransport, SessionRegistry, type CwdCheck } from './guard.js';
import { HttpServerConnection } from './http-connection.js';
import { openFilesLimit, SocketGuard } from './socket-guard.js';
import { UnreadBudget } from './unread-budget.js';
import { ServerTelemetry, type RequestLogRecord, type TelemetryOptions } from './observability/telemetry.js';

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
/** What `GET /readyz` reports: `reason` is a short code (`stopping`, `draining`, `database`), never a path or a message. */
export type Readiness = { ready: true } | { ready: false; reason: string };

export interface AcpServerOptions {
  agent: AgentHostFactory;
  /** Accepted bearer tokens. Without any, the server only binds loopback addresses. */
  tokens?: readonly string[];
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * Asked by `GET /readyz` (no token): whether this instance should get new traffic, e.g. its
   * database is reachable and it is not draining. Without it, ready means not stopping.
   * `/healthz` stays liveness only, so a load balancer never restarts an instance for a database outage.
   */
  readiness?: () => Promise<Readiness>;
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
  /**
   * OpenTelemetry metrics (per method request counts and latency, connections, sessions, turns,
   * unread bytes) and a span per prompt turn whose parent is the W3C `traceparent` in the prompt's
   * `params._meta`. Default: the global providers of `@opentelemetry/api`, a no-op until an SDK is
   * registered. See docs/deploy.md "Observability" for the metric names.
   */
  telemetry?: TelemetryOptions;
  /**
   * Called once per answered client request (an access log): method, connection, session, error
   * code, duration. Never the params (prompt text) nor a token. Default: none.
   */
  onRequestLog?: (record: RequestLogRecord) => void;
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

interface Live {
  transport: Transport;
  host: AgentHost;
  owner: string;
  http?: HttpServerConnection;
}

/** What the units of one server share: its settings and its live state. */
interface ServerContext {
  options: AcpServerOptions;
  path: string;
  maxMessageBytes: number;
  maxBufferedBytes: number;
  maxConnections: number;
  streamOpenTimeoutMs: number;
  replayWindowBytes: number;
  resumeWithinMs: number;
  log: (line: string) => void;
  admit: (req: IncomingMessage) => { owner: string } | HttpRefusal;
  registry: SessionRegistry;
  sockets: SocketGuard;
  budget: UnreadBudget;
  live: Map<string, Live>;
  httpConnections: Map<string, HttpServerConnection>;
  stopping: boolean;
  telemetry: ServerTelemetry;
}

/** The settings and empty state of a server, refusing a non-loopback address without a token. */
function serverContext(options: AcpServerOptions): ServerContext {
  const host = options.host ?? '127.0.0.1';
  const tokens = (options.tokens ?? []).filter((t) => t.length > 0);
  if (tokens.length === 0 && !isLoopbackHost(host)) {
    throw new Error(
      `refusing to listen on ${host} without a token: anyone who can reach it could run the agent; give a token (--token or --token-file) or bind 127.0.0.1`,
    );
  }
  const log = options.log ?? (() => undefined);
  const fdLimit = openFilesLimit();
  const maxPending = options.maxPendingSockets ?? Math.max(16, Math.min(1024, Math.floor((fdLimit ?? 4096) / 4)));
  const registry = new SessionRegistry(options.maxSessions ?? 64, options.ownersFile, tokens.length > 1, log);
  const live = new Map<string, Live>();
  const budget = new UnreadBudget(options.maxUnreadBytes ?? 256 * 1024 * 1024, log);
  return {
    options,
    path: options.path ?? '/acp',
    maxMessageBytes: options.maxMessageBytes ?? 16 * 1024 * 1024,
    maxBufferedBytes: options.maxBufferedBytes ?? 64 * 1024 * 1024,
    maxConnections: options.maxConnections ?? 256,
    streamOpenTimeoutMs: options.streamOpenTimeoutMs ?? 30_000,
    replayWindowBytes: options.replayWindowBytes ?? 1024 * 1024,
    resumeWithinMs: options.streamResumeMs ?? 10_000,
    log,
    admit: admission(new BearerTokens(tokens), new Set(options.allowedOrigins ?? [])),
    registry,
    sockets: new SocketGuard({
      maxPending,
      maxPendingPerIp: options.maxPendingSocketsPerIp ?? Math.min(256, Math.max(4, Math.floor(maxPending / 4))),
      admitWithinMs: options.pendingSocketTimeoutMs ?? 10_000,
      log,
    }),
    budget,
    live,
    httpConnections: new Map(),
    stopping: false,
    telemetry: new ServerTelemetry(
      options.telemetry,
      {
        connections: () => live.size,
        sessions: () => registry.totalOpen(),
        unreadBytes: () => budget.totalBytes,
      },
      options.onRequestLog,
    ),
  };
}

/** The owner of an acceptable request, or why it is refused: no token in the query string, an allowed `Origin`, a valid bearer token. */
function admission(
  tokens: BearerTokens,
  allowedOrigins: ReadonlySet<string>,
): (req: IncomingMessage) => { owner: string } | HttpRefusal {
  return (req) => {
    const url = new URL(req.url ?? '/', 'http://x');
    for (const name of ['token', 'access_token', 'auth', 'key', 'api_key']) {
      if (url.searchParams.has(name)) {
        return {
          status: 400,
          message: `a token in the query string is refused (it ends up in logs and histories): send it as "Authorization: Bearer <token>"`,
        };
      }
    }
    const origin = checkOrigin(req, allowedOrigins, (o) => ` (acp-kit serve --allow-origin ${o} allows it)`);
    if (origin) return origin;
    if (tokens.size === 0) return { owner: 'anonymous' };
    return tokens.check(req);
  };
}

/** Starts the agent of one connection on `transport` (behind the tenant guard) and registers it. */
function startHost(
  ctx: ServerContext,
  transport: Transport,
  owner: string,
  connectionId: string,
  kind: 'websocket' | 'http',
  http?: HttpServerConnection,
): Live {
  const guarded = new GuardedTransport(
    ctx.telemetry.observe(transport, connectionId),
    owner,
    ctx.registry,
    ctx.options.checkCwd,
  );
  // the host is registered once it exists: a factory that throws leaves no half entry behind
  const entry: Live = {
    transport,
    owner,
    http,
    host: ctx.options.agent(guarded, { owner, connectionId, transport: kind }),
  };
  ctx.live.set(connectionId, entry);
  ctx.log(`connection ${connectionId} (${kind}) opened`);
  return entry;
}

/** One request of the Streamable HTTP profile (or `/healthz`): admission, then the route of its method. */
async function onRequest(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/healthz' && req.method === 'GET') return healthz(res, ctx.stopping);
  if (url.pathname === '/readyz' && req.method === 'GET') return readyz(res, ctx);
  if (url.pathname !== ctx.path) return sendText(res, 404, `not found: the ACP endpoint is ${ctx.path}`);
  const admitted = ctx.admit(req);
  if ('status' in admitted) return sendText(res, admitted.status, admitted.message, admitted.headers);
  ctx.sockets.admitted(req.socket);
  const connectionId = headerOf(req, HEADER_CONNECTION_ID);
  // a connection id presented with another token is answered as unknown
  const conn = connectionId !== undefined ? ctx.httpConnections.get(connectionId) : undefined;
  const known = conn !== undefined && conn.owner === admitted.owner ? conn : undefined;
  if (req.method === 'GET') return openEventStream(req, res, connectionId, known);
  if (req.method === 'DELETE') {
    if (connectionId === undefined) return sendText(res, 400, `Missing ${HEADER_CONNECTION_ID}`);
    if (!known) return sendText(res, 404, `Unknown ${HEADER_CONNECTION_ID}`);
    known.close({ reason: 'the client ended the connection (DELETE)' });
    res.writeHead(202).end();
    return;
  }
  if (req.method !== 'POST')
    return sendText(res, 405, 'Method Not Allowed: use POST, GET or DELETE', { allow: 'GET, POST, DELETE' });
  const message = await readMessage(ctx, req, res);
  if (message === undefined) return;
  if (message.method === 'initialize') return initializeConnection(ctx, res, message, admitted.owner, connectionId);
  if (connectionId === undefined) return sendText(res, 400, `Missing ${HEADER_CONNECTION_ID}: POST initialize first`);
  if (!known) return sendText(res, 404, `Unknown ${HEADER_CONNECTION_ID}`);
  const sessionHeader = headerOf(req, HEADER_SESSION_ID);
  const paramSession =
    isObj(message.params) && typeof message.params.sessionId === 'string' ? message.params.sessionId : undefined;
  if (paramSession !== undefined && sessionHeader === undefined)
    return sendText(
      res,
      400,
      `Missing ${HEADER_SESSION_ID}: session-scoped messages carry it (here ${JSON.stringify(paramSession)})`,
    );
  if (paramSession !== undefined && sessionHeader !== paramSession)
    return sendText(
      res,
      400,
      `Mismatched ${HEADER_SESSION_ID}: the header says ${JSON.stringify(sessionHeader)}, params.sessionId ${JSON.stringify(paramSession)}`,
    );
  known.deliver(message, sessionHeader);
  res.writeHead(202).end();
}

/** GET: the connection's event stream or a session's (`Acp-Session-Id`), resumed with `Last-Event-ID`. */
function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  connectionId: string | undefined,
  known: HttpServerConnection | undefined,
): void {
  if (!(req.headers.accept ?? '').toLowerCase().includes('text/event-stream'))
    return sendText(res, 406, 'Not Acceptable: the event stream needs "Accept: text/event-stream"');
  if (connectionId === undefined)
    return sendText(
      res,
      400,
      `Missing ${HEADER_CONNECTION_ID}: POST initialize first, then open the stream with its ${HEADER_CONNECTION_ID}`,
    );
  if (!known) return sendText(res, 404, `Unknown ${HEADER_CONNECTION_ID}`);
  const refused = known.attach(res, headerOf(req, HEADER_SESSION_ID), headerOf(req, 'last-event-id'));
  if (refused) sendText(res, refused.status, refused.message);
}

/** A POST's one JSON-RPC message, or undefined once the request was answered with why not. */
async function readMessage(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Record<string, unknown> | undefined> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    sendText(res, 415, 'Unsupported Media Type: POST bodies are "Content-Type: application/json"');
    return undefined;
  }
  const body = await readBody(
    req,
    ctx.maxMessageBytes,
    `message too large: more than ${ctx.maxMessageBytes} bytes (the server's limit, acp-kit serve --max-message-bytes); the connection stays usable`,
  );
  if (typeof body !== 'string') {
    sendText(res, body.status, body.message);
    return undefined;
  }
  let message: unknown;
  try {
    // exact ids: an integer beyond 2^53 must come back with the digits it was sent with
    message = parseMessageText(body);
  } catch (e) {
    sendText(res, 400, `Invalid JSON: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  if (Array.isArray(message)) {
    res.writeHead(501, { 'content-type': 'application/json' });
    // the remote-transport RFD: "Batch JSON-RPC requests return 501" (stdio and WebSocket accept batches)
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message:
            'Invalid Request: Streamable HTTP takes one JSON-RPC message per POST (batches get 501, as the remote-transport RFD says): send each entry as its own POST, or use the WebSocket',
        },
      }),
    );
    return undefined;
  }
  if (!isObj(message)) {
    sendText(res, 400, 'Invalid JSON-RPC message: the body must be one JSON object');
    return undefined;
  }
  return message;
}

/** POST initialize: a new HTTP connection with its agent, answered 200 with its `Acp-Connection-Id`. */
async function initializeConnection(
  ctx: ServerContext,
  res: ServerResponse,
  msg: Record<string, unknown>,
  owner: string,
  connectionId: string | undefined,
): Promise<void> {
  if (connectionId !== undefined)
    return sendText(
      res,
      400,
      `Initialize not allowed on an existing connection (drop the ${HEADER_CONNECTION_ID} header to start a new one)`,
    );
  if (ctx.stopping) return sendText(res, 503, 'the server is shutting down');
  if (ctx.live.size >= ctx.maxConnections)
    return sendText(res, 503, `connection limit reached (${ctx.maxConnections}): try again later`, {
      'retry-after': '5',
    });
  if (!('id' in msg) || msg.id === null) return sendText(res, 400, 'Invalid Request: initialize must have an id');
  const http = new HttpServerConnection(owner, {
    maxBufferedBytes: ctx.maxBufferedBytes,
    replayWindowBytes: ctx.replayWindowBytes,
    resumeWithinMs: ctx.resumeWithinMs,
  });
  http.onBuffered = (bytes) => ctx.budget.report(http, bytes);
  ctx.httpConnections.set(http.id, http);
  const entry = startHost(ctx, http, owner, http.id, 'http', http);
  http.onEnd = (info) => {
    ctx.budget.forget(http);
    ctx.httpConnections.delete(http.id);
    ctx.live.delete(http.id);
    entry.host.close();
    ctx.log(`connection ${http.id} closed: ${info.reason}`);
  };
  const answer = await http.initializeWith(msg);
  http.expectStreamWithin(ctx.streamOpenTimeoutMs);
  res.writeHead(200, { 'content-type': 'application/json', [HEADER_CONNECTION_ID]: http.id });
  res.end(messageToText(answer));
}

/** Answers a refused WebSocket upgrade on the raw socket (there is no response object yet). */
function refuseUpgrade(socket: Duplex, r: HttpRefusal): void {
  const body = r.message + '\n';
  const extra = Object.entries(r.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const reasons: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    503: 'Service Unavailable',
  };
  const reason = reasons[r.status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${r.status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

/** The WebSocket profile: an upgrade on the endpoint, admitted like a request, becomes a connection with its agent. */
function webSocketUpgrades(ctx: ServerContext): {
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  close: () => void;
} {
  const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.maxMessageBytes, perMessageDeflate: false });
  const upgradeIds = new WeakMap<IncomingMessage, string>();
  wss.on('headers', (headers, req) => {
    const id = upgradeIds.get(req);
    if (id) headers.push(`${HEADER_CONNECTION_ID}: ${id}`);
  });
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => undefined);
    if (ctx.sockets.refused(socket)) return;
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== ctx.path)
      return refuseUpgrade(socket, { status: 404, message: `not found: the ACP endpoint is ${ctx.path}` });
    const admitted = ctx.admit(req);
    if ('status' in admitted) return refuseUpgrade(socket, admitted);
    ctx.sockets.admitted(socket);
    if (ctx.stopping) return refuseUpgrade(socket, { status: 503, message: 'the server is shutting down' });
    if (ctx.live.size >= ctx.maxConnections)
      return refuseUpgrade(socket, {
        status: 503,
        message: `connection limit reached (${ctx.maxConnections}): try again later`,
        headers: { 'retry-after': '5' },
      });
    const id = newConnectionId();
    upgradeIds.set(req, id);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const transport: WebSocketTransport = new WebSocketTransport(ws, {
        maxBufferedBytes: ctx.maxBufferedBytes,
        onBuffered: (bytes) => ctx.budget.report(transport, bytes),
      });
      const entry = startHost(ctx, transport, admitted.owner, id, 'websocket');
      ws.once('close', (code, reason) => {
        ctx.log(
          `connection ${id} closed: ${transport.closeReason ?? `WebSocket closed (${code} ${reason.toString()})`}`,
        );
        ctx.budget.forget(transport);
        ctx.live.delete(id);
        entry.host.close();
      });
    });
  };
  return { upgrade, close: () => wss.close() };
}

/** Listens on `port` of `host`; an error after that (e.g. accept failing with EMFILE) is logged, the server goes on. */
async function listen(server: Server, port: number, host: string, log: (line: string) => void): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (e) => log(`server error: ${e.message}`));
      resolve();
    });
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') {
    server.close();
    throw new Error('acp-kit serve: the server is not listening on a TCP port');
  }
  return addr;
}

/**
 * Serves ACP on one endpoint with both profiles of the remote transport RFD: Streamable HTTP
 * (POST / GET event stream / DELETE) and WebSocket (upgrade on the same path). Every connection
 * gets its own agent from `options.agent`. Security: bearer token in `Authorization` (never the
 * query string), `Origin` allow-list, limits on message size, unread bytes, connections and
 * sessions, each refused with a status and a sentence saying what to do.
 */
export async function startAcpServer(options: AcpServerOptions): Promise<AcpServer> {
  const ctx = serverContext(options);
  const host = options.host ?? '127.0.0.1';
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (ctx.sockets.refused(req.socket, res)) return;
    onRequest(ctx, req, res).catch((e: Error) => {
      ctx.log(`request failed: ${e.stack ?? e.message}`);
      sendText(res, 500, `internal error: ${e.message}`);
    });
  };
  const server: Server = createServer(handle);
  ctx.sockets.watch(server);
  // Idle keep-alive sockets stay open longer than clients keep them (undici: the server's hint minus
  // 1 s): with Node's 5 s default, a client whose timers run late on a busy machine sends its next
  // POST on a socket the server is closing, and the request fails ("fetch failed").
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const webSockets = webSocketUpgrades(ctx);
  server.on('upgrade', webSockets.upgrade);
  const addr = await listen(server, options.port ?? 0, host, ctx.log);
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  // h2c: the compat request/response objects go through the same handler as HTTP/1.1
  const h2Sessions = new Set<Http2Session>();
  let h2: Http2Server | undefined;
  if (options.http2Port !== undefined) {
    try {
      h2 = await listenHttp2(options.http2Port, host, handle, ctx.sockets, h2Sessions);
    } catch (e) {
      server.close();
      throw e;
    }
  }
  const h2Address = h2?.address();
  const h2Port = typeof h2Address === 'object' && h2Address !== null ? h2Address.port : undefined;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${addr.port}${ctx.path}`,
    ...(h2Port !== undefined ? { http2Url: `http://${urlHost}:${h2Port}${ctx.path}` } : {}),
    port: addr.port,
    host: addr.address,
    get connectionCount() {
      return ctx.live.size;
    },
    get unreadBytes() {
      return ctx.budget.totalBytes;
    },
    close(graceMs = 5000) {
      closing ??= closeServer(ctx, server, h2, h2Sessions, graceMs).then(webSockets.close);
      return closing;
    },
  };
}

/** Stops accepting, ends every connection's turns within `graceMs`, flushes (bounded), then closes every socket. */
async function closeServer(
  ctx: ServerContext,
  server: Server,
  h2: Http2Server | undefined,
  h2Sessions: Set<Http2Session>,
  graceMs: number,
): Promise<void> {
  ctx.stopping = true;
  server.close();
  h2?.close();
  // keep-alive sockets with no request on them end now (server.close() only stops accepting)
  server.closeIdleConnections();
  const hosts = [...ctx.live.values()];
  // each connection gets the grace period to end its turns `cancelled`, plus a bounded time
  // to hand the client what it was sent: a client that stopped reading must not hold the
  // shutdown (its flush would wait forever), so it is cut when that time is up
  await Promise.all(
    hosts.map((l) =>
      within(
        l.host.shutdown(graceMs).catch(() => undefined),
        graceMs + SHUTDOWN_FLUSH_MS,
      ),
    ),
  );
  for (const l of hosts) {
    l.transport.close({ reason: 'the server shut down' });
    l.host.close();
  }
  ctx.live.clear();
  // open SSE streams and sockets of clients still connected over HTTP
  server.closeAllConnections();
  for (const session of h2Sessions) session.destroy();
}

/**
 * The h2c listener: its requests go through the same handler as HTTP/1.1 (compat objects), and
 * its sockets through the same guard (pending caps, per-address limits, the admission timeout).
 */
async function listenHttp2(
  port: number,
  host: string,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  sockets: SocketGuard,
  h2Sessions: Set<Http2Session>,
): Promise<Http2Server> {
  // loaded only when asked for: most servers speak HTTP/1.1 and WebSocket only
  const { createServer: createHttp2Server } = await import('node:http2');
  const h2Server = createHttp2Server((req, res) =>
    handle(req as unknown as IncomingMessage, res as unknown as ServerResponse),
  );
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

/** How long `/readyz` waits for the readiness check before it answers not ready. */
const READINESS_TIMEOUT_MS = 2000;

/** `/readyz`, asked without a token: 200 when new traffic is welcome here, else 503 with a reason code. */
async function readyz(res: ServerResponse, ctx: ServerContext): Promise<void> {
  const check = ctx.options.readiness;
  let state: Readiness = { ready: true };
  if (ctx.stopping) state = { ready: false, reason: 'stopping' };
  else if (check) {
    const timedOut: Readiness = { ready: false, reason: 'timeout' };
    state = await Promise.race([
      check().catch((): Readiness => ({ ready: false, reason: 'unavailable' })),
      new Promise<Readiness>((resolve) => setTimeout(resolve, READINESS_TIMEOUT_MS, timedOut).unref()),
    ]);
  }
  res.writeHead(state.ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(state) + '\n');
}

/** `/healthz`, asked without a token: liveness only (no version, counts or paths a stranger could use). */
function healthz(res: ServerResponse, stopping: boolean): void {
  res.writeHead(stopping ? 503 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ ok: !stopping }) + '\n');
}
