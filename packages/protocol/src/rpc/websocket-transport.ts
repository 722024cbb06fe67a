import { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { MAX_JSON_DEPTH } from './json-guard.js';
import { deliverMessageText, messageToText } from './message-text.js';
import type { CloseInfo, Transport, TransportHandlers } from './transport.js';
import type { WebSocketLike } from './websocket-like.js';

export interface WebSocketTransportOptions {
  /** Bytes handed to `ws` but not yet to the OS before {@link Transport.whenWritable} waits (default 4 MiB). */
  highWaterMark?: number;
  /**
   * Unsent bytes after which the peer counts as not reading and the connection is cut (it would
   * not read a close frame either; {@link WebSocketTransport.closeReason} says why) (default: unlimited). Servers set it so a slow reader cannot grow memory without bound.
   */
  maxBufferedBytes?: number;
  /** Deepest nesting accepted in one incoming message (default 128). */
  maxDepth?: number;
  /** Called with {@link WebSocketTransport.bufferedBytes} after each write (a server's budget across connections). */
  onBuffered?: (bytes: number) => void;
}

/** Corked bytes after which a batch goes out without waiting for the macrotask to end (as the stdio transport). */
const FLUSH_BYTES = 64 * 1024;

/** The TCP socket under a `ws` WebSocket: `ws` keeps it in `_socket` (stable across ws 8) and offers no batching API. */
function rawSocket(ws: WebSocketLike): Duplex | undefined {
  const s: unknown = Reflect.get(ws, '_socket');
  return s instanceof Duplex ? s : undefined;
}

/**
 * One ACP connection over a WebSocket (the WebSocket profile of the remote transport RFD): one
 * JSON-RPC message per text frame, both directions, in order. Works on either end: wrap a
 * socket accepted by a `ws` server, or use {@link connectWebSocketTransport} as a client.
 * Messages sent before the socket is open are queued and go out in order once it opens.
 *
 * Each message is still its own frame. The first frame after the event loop's last check phase goes
 * out at once; the frames that follow it before the next check phase (up to 64 KiB) are handed to the
 * OS together in one `writev`: one system call per frame cost more than everything else on the path
 * of a burst, and holding every frame for the check phase made a server with many sessions add the
 * whole loop iteration (every other session's timers and I/O) to each chunk's latency.
 */
export class WebSocketTransport implements Transport {
  private handlers: TransportHandlers | undefined;
  private pending: string[] = [];
  /** Bytes given to `ws.send` whose callback has not fired yet (not yet handed to the OS). */
  private unflushed = 0;
  private closed = false;
  private waiters: Array<() => void> = [];
  private readonly hwm: number;
  private readonly maxDepth: number;
  /** The corked TCP socket while a batch is open. */
  private corked: Duplex | undefined;
  private corkedBytes = 0;
  private uncorkScheduled = false;
  /** A frame went out since the last check phase: the next ones are batched (corked) until it. */
  private hot = false;

  constructor(
    /** The underlying socket (a `ws` WebSocket). */
    readonly socket: WebSocketLike,
    private readonly options: WebSocketTransportOptions = {},
  ) {
    this.hwm = options.highWaterMark ?? 4 * 1024 * 1024;
    this.maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.socket.on('message', (data, isBinary) => {
      if (this.closed) return;
      if (isBinary) {
        // the RFD: binary frames are ignored; report them so a confused peer is visible
        handlers.onInvalidLine({
          line: '<binary frame>',
          error: new Error('binary WebSocket frame ignored: ACP messages are JSON text frames'),
        });
        return;
      }
      deliverMessageText(
        Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString('utf8'),
        handlers,
        this.maxDepth,
      );
    });
    this.socket.on('open', () => this.sendPending());
    this.socket.on('close', (code, reason) => {
      const why = reason.toString('utf8');
      this.finish({ reason: `WebSocket closed (${code}${why ? `: ${why}` : ''})` });
    });
    this.socket.on('error', (error) => this.finish({ reason: `WebSocket failed: ${error.message}`, error }));
    if (this.socket.readyState === WebSocket.OPEN) this.sendPending();
  }

  private sendPending(): void {
    const p = this.pending;
    this.pending = [];
    for (const s of p) this.write(s);
  }

  send(message: object): void {
    if (this.closed) return;
    const text = messageToText(message);
    if (this.socket.readyState !== WebSocket.OPEN) this.pending.push(text);
    else this.write(text);
  }

  private write(text: string): void {
    const bytes = Buffer.byteLength(text);
    this.unflushed += bytes;
    const limit = this.options.maxBufferedBytes;
    if (limit !== undefined && this.unflushed > limit) {
      this.close({
        reason: `buffered bytes limit exceeded: the peer left more than ${limit} bytes unread`,
        unreadCut: true,
      });
      return;
    }
    if (this.hot) this.cork(bytes);
    else this.heat();
    this.socket.send(text, (err) => {
      this.unflushed -= bytes;
      if (err) return; // the 'close'/'error' event reports it
      if (this.unflushed < this.hwm) this.wake();
    });
    if (this.corkedBytes >= FLUSH_BYTES) this.uncork();
    // last: the budget may cut this connection
    this.options.onBuffered?.(this.unflushed);
  }

  /**
   * Opens (or extends) a batch: frames written while the socket is corked leave together when it
   * is uncorked, at the end of this macrotask or once {@link FLUSH_BYTES} are held, so a producer
   * that never yields to the event loop still lets the reader work.
   */
  private cork(bytes: number): void {
    if (this.corked === undefined) {
      const raw = rawSocket(this.socket);
      if (raw === undefined) return;
      raw.cork();
      this.corked = raw;
      this.corkedBytes = 0;
      if (!this.uncorkScheduled) {
        this.uncorkScheduled = true;
        setImmediate(this.onImmediate);
      }
    }
    this.corkedBytes += bytes;
  }

  /** The first frame of a loop iteration is written uncorked; the check phase ends the iteration's batch. */
  private heat(): void {
    this.hot = true;
    if (!this.uncorkScheduled) {
      this.uncorkScheduled = true;
      setImmediate(this.onImmediate);
    }
  }

  private readonly onImmediate = (): void => {
    this.uncorkScheduled = false;
    this.hot = false;
    this.uncork();
  };

  /** Hands the batch to the OS (before any close frame, so nothing sent is held back). */
  private uncork(): void {
    const raw = this.corked;
    if (raw === undefined) return;
    this.corked = undefined;
    this.corkedBytes = 0;
    raw.uncork();
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Bytes sent but not yet handed to the OS. */
  get bufferedBytes(): number {
    return this.unflushed;
  }

  whenWritable(): Promise<void> {
    if (this.closed || this.unflushed < this.hwm) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async flush(): Promise<void> {
    this.uncork();
    while (!this.closed && (this.unflushed > 0 || this.pending.length > 0)) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        // a send callback with bytes still pending does not wake: poll on the next callback
        if (this.unflushed === 0) this.wake();
      });
    }
  }

  close(info: CloseInfo = { reason: 'closed locally' }): void {
    if (this.closed) return;
    if (info.unreadCut) {
      // a peer that does not read would never read a close frame either: cut the TCP connection
      this.corked = undefined;
      this.socket.terminate();
      this.finish(info);
      return;
    }
    // close reasons are limited to 123 bytes by RFC 6455
    const reason = Buffer.from(info.reason)
      .subarray(0, 123)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
    this.uncork();
    try {
      if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
      else this.socket.close(1000, reason);
    } catch {
      this.socket.terminate();
    }
    this.finish(info);
  }

  /** Why the connection ended, once it has. */
  closeReason: string | undefined;

  private finish(info: CloseInfo): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = info.reason;
    this.pending = [];
    // never leave a frame (e.g. the reply to the peer's close frame) corked behind us
    this.uncork();
    this.wake();
    this.handlers?.onClose(info);
  }
}

/** Options of {@link connectWebSocketTransport}. */
export interface WebSocketClientOptions extends WebSocketTransportOptions {
  /** Sent as `Authorization: Bearer <token>` (never in the URL). */
  token?: string;
  /** Extra headers of the upgrade request. */
  headers?: Record<string, string>;
  /** Largest incoming message in bytes (default 64 MiB); a larger one closes the socket with 1009. */
  maxMessageBytes?: number;
  /**
   * Local address to connect from (e.g. `127.0.0.2`): each source address has its own ~28k
   * ephemeral ports towards one server, so many connections to one server spread over several.
   */
  localAddress?: string;
}

/**
 * Opens a WebSocket to an ACP server's `/acp` endpoint (`ws://` or `wss://`) and returns its
 * transport at once; messages sent before the upgrade completes are queued.
 */
export function connectWebSocketTransport(url: string, options: WebSocketClientOptions = {}): WebSocketTransport {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const socket = new WebSocket(url, {
    headers,
    maxPayload: options.maxMessageBytes ?? 64 * 1024 * 1024,
    perMessageDeflate: false,
    ...(options.localAddress !== undefined ? { localAddress: options.localAddress } : {}),
  });
  // an upgrade refused with an HTTP status: surface the server's explanation, not just the code
  socket.on('unexpected-response', (req, res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      if (body.length < 2000) body += c;
    });
    res.on('end', () => {
      req.destroy();
      socket.emit(
        'error',
        new Error(`server refused the WebSocket upgrade: HTTP ${res.statusCode}${body ? `: ${body.trim()}` : ''}`),
      );
    });
  });
  return new WebSocketTransport(socket, options);
}
