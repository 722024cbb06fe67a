import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

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
  /** Sockets answered 503/429 at accept: the HTTP parser still reads them, their requests must not run. */
  private readonly refusedSockets = new WeakSet<object>();

  constructor(private readonly options: SocketGuardOptions) {}

  /** Starts guarding the sockets `server` accepts. */
  watch(server: Server): void {
    server.on('connection', (socket: Socket) => this.onConnection(socket));
  }

  /** A request on `socket` was admitted: it no longer counts as pending. */
  admitted(socket: object): void {
    const entry = this.pending.get(socket);
    if (entry) this.settle(socket, entry);
  }

  /** Whether `socket` was refused at accept: a request parsed from it is dropped unanswered (its answer was the refusal). */
  refused(socket: object): boolean {
    return this.refusedSockets.has(socket);
  }

  /** Sockets accepted and not admitted yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  private onConnection(socket: Socket): void {
    const ip = socket.remoteAddress ?? 'unknown';
    const o = this.options;
    if (this.pending.size >= o.maxPending) {
      this.refusedSockets.add(socket);
      return refuse(socket, 503, 'Service Unavailable', `too many connections waiting to authenticate (at most ${o.maxPending}, acp-kit serve --max-pending-sockets): try again later`);
    }
    const n = this.perIp.get(ip) ?? 0;
    if (n >= o.maxPendingPerIp) {
      this.refusedSockets.add(socket);
      return refuse(socket, 429, 'Too Many Requests', `too many connections from ${ip} waiting to authenticate (at most ${o.maxPendingPerIp} per address): try again later`);
    }
    this.perIp.set(ip, n + 1);
    const timer = setTimeout(() => {
      o.log(`closing a socket from ${ip}: no admitted request within ${o.admitWithinMs} ms`);
      socket.destroy();
    }, o.admitWithinMs);
    timer.unref();
    const entry = { ip, timer };
    this.pending.set(socket, entry);
    socket.once('close', () => {
      if (this.pending.get(socket) === entry) this.settle(socket, entry);
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

function refuse(socket: Socket, status: number, reason: string, message: string): void {
  socket.on('error', () => undefined);
  const body = `${message}\n`;
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: ${RETRY_AFTER_S}\r\nConnection: close\r\n\r\n${body}`);
  // a client that does not read the answer must not hold the descriptor
  setTimeout(() => socket.destroy(), 1000).unref();
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
