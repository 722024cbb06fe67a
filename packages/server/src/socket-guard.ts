import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A server that reports the sockets it accepts (HTTP/1.1 and HTTP/2 servers alike). */
interface Accepting {
  prependListener(event: 'connection', listener: (socket: Socket) => void): unknown;
}

/**
 * Set on each accepted socket to the socket itself: an HTTP/2 request's `req.socket` is a proxy of
 * the session's socket, which forwards this property, so the guard finds the socket it counted.
 */
const RAW = Symbol('acp-kit.rawSocket');
const rawOf = (socket: object): object => (socket as { [RAW]?: object })[RAW] ?? socket;

/** Limits on sockets that have not carried an admitted (authenticated) request yet. */
export interface SocketGuardOptions {
  /** Such sockets across all addresses; more are answered 503 with `Retry-After` and closed. */
  maxPending: number;
  /** Such sockets per remote address; more are answered 429 with `Retry-After` and closed. */
  maxPendingPerIp: number;
  /** How long a socket may stay without an admitted request before it is closed (slowloris). */
  admitWithinMs: number;
  log: (line: string) => void;
}

/** Seconds a refused client is asked to wait. */
const RETRY_AFTER_S = 5;

/**
 * Half-open and unauthenticated sockets each hold a descriptor: thousands of them (a slowloris
 * attack) used to be held for the 66 s header timeout and, near the descriptor limit, made every
 * legitimate request fail. A socket counts as pending from its accept until a request on it is
 * admitted; pending sockets are capped in total and per remote address, and closed when not
 * admitted in time. Refusals are HTTP answers with `Retry-After`, written before the request is read.
 */
export class SocketGuard {
  private readonly pending = new Map<object, { ip: string; timer: NodeJS.Timeout }>();
  private readonly perIp = new Map<string, number>();
  /**
   * Sockets refused at accept, with their answer: an HTTP/1.1 one was answered at once and the
   * parser still reads it (its requests must not run); an HTTP/2 one cannot be answered before the
   * client's preface, so each of its requests gets the answer.
   */
  private readonly refusedSockets = new WeakMap<object, { status: number; message: string; h2: boolean }>();

  /**
   * What else to close with an accepted socket: an HTTP/2 session takes over its socket's handle,
   * and destroying only the socket or only the session was seen to leave the connection open.
   */
  private readonly closers = new WeakMap<object, () => void>();

  constructor(private readonly options: SocketGuardOptions) {}

  /** `session` (an h2c server session) is closed through itself when its socket is cut. */
  h2Session(session: { socket: object; destroy(): void }): void {
    this.closers.set(rawOf(session.socket), () => session.destroy());
  }

  private cut(socket: Socket): void {
    this.closers.get(socket)?.();
    socket.destroy();
  }

  /** Starts guarding the sockets `server` accepts (`h2`: an h2c server, whose refusals are HTTP/2 answers). */
  watch(server: Accepting, h2 = false): void {
    // first: an HTTP/2 server's own listener creates the session at once, which must find the socket tagged
    server.prependListener('connection', (socket: Socket) => this.onConnection(socket, h2));
  }

  /** A request on `socket` was admitted: it no longer counts as pending. */
  admitted(socket: object): void {
    const raw = rawOf(socket);
    const entry = this.pending.get(raw);
    if (entry) this.settle(raw, entry);
  }

  /**
   * Whether `socket` was refused at accept, so its request must not run: over HTTP/1.1 it is
   * dropped unanswered (its answer was the refusal); over HTTP/2 `res` gets the refusal here.
   */
  refused(socket: object, res?: ServerResponse): boolean {
    const r = this.refusedSockets.get(rawOf(socket));
    if (r?.h2 && res) {
      res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': String(RETRY_AFTER_S) });
      res.end(`${r.message}\n`);
    }
    return r !== undefined;
  }

  /** Sockets accepted and not admitted yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  private onConnection(socket: Socket, h2: boolean): void {
    const ip = socket.remoteAddress ?? 'unknown';
    const o = this.options;
    (socket as { [RAW]?: object })[RAW] = socket;
    const n = this.perIp.get(ip) ?? 0;
    let refusal: { status: number; reason: string; message: string } | undefined;
    if (this.pending.size >= o.maxPending) {
      refusal = {
        status: 503,
        reason: 'Service Unavailable',
        message: `too many connections waiting to authenticate (at most ${o.maxPending}, acp-kit serve --max-pending-sockets): try again later`,
      };
    } else if (n >= o.maxPendingPerIp) {
      refusal = {
        status: 429,
        reason: 'Too Many Requests',
        message: `too many connections from ${ip} waiting to authenticate (at most ${o.maxPendingPerIp} per address): try again later`,
      };
    }
    if (refusal) {
      this.refusedSockets.set(socket, { status: refusal.status, message: refusal.message, h2 });
      refuse(socket, h2, refusal);
      // a client that does not read the answer (or, over h2, sends no request) must not hold the descriptor
      setTimeout(() => this.cut(socket), 1000).unref();
      return;
    }
    this.perIp.set(ip, n + 1);
    const timer = setTimeout(() => {
      o.log(`closing a socket from ${ip}: no admitted request within ${o.admitWithinMs} ms`);
      this.cut(socket);
    }, o.admitWithinMs);
    timer.unref();
    const entry = { ip, timer };
    this.pending.set(socket, entry);
    // looked up, not captured: once admitted, the entry and its timer are garbage for the socket's whole life
    socket.once('close', () => {
      const pending = this.pending.get(socket);
      if (pending) this.settle(socket, pending);
    });
  }

  private settle(socket: object, entry: { ip: string; timer: NodeJS.Timeout }): void {
    clearTimeout(entry.timer);
    this.pending.delete(socket);
    const n = (this.perIp.get(entry.ip) ?? 1) - 1;
    if (n <= 0) this.perIp.delete(entry.ip);
    else this.perIp.set(entry.ip, n);
  }
}

function refuse(socket: Socket, h2: boolean, r: { status: number; reason: string; message: string }): void {
  socket.on('error', () => undefined);
  const body = `${r.message}\n`;
  // an h2c client gets its answer per request (SocketGuard.refused); an HTTP/1.1 one gets it now
  if (!h2)
    socket.end(
      `HTTP/1.1 ${r.status} ${r.reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: ${RETRY_AFTER_S}\r\nConnection: close\r\n\r\n${body}`,
    );
}

/**
 * The soft limit on open files of this process (Linux `/proc/self/limits`), or `undefined` where
 * it cannot be read: the default caps stay well below it, so pending sockets cannot exhaust it.
 */
export function openFilesLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}
