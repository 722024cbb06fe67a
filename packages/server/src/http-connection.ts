import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isObj } from '@acp-kit/protocol/internal';
import { messageToText } from '@acp-kit/protocol/internal';
import { requestIdKey } from '@acp-kit/protocol/rpc';
import type { CloseInfo, Transport, TransportHandlers } from '@acp-kit/protocol/rpc';

type Json = Record<string, unknown>;

/** Resolves on `res`'s next 'drain' or its 'close', removing both listeners (a long stream waits often). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** A receiver's batch is written once it holds this much, without waiting for the macrotask's end. */
const FLUSH_BYTES = 64 * 1024;

/**
 * The server side of one Streamable HTTP connection, as a {@link Transport} for the agent
 * behind it. Server messages go to the connection's SSE stream (GET), or to a session-scoped
 * stream when the client opened one for that session (as the official SDK's client does); until
 * a receiver is attached they wait in memory, bounded by `maxBufferedBytes`. Client messages
 * arrive through {@link deliver} (POST).
 */
export class HttpServerConnection implements Transport {
  /** The `Acp-Connection-Id`. */
  readonly id = randomUUID();
  private handlers: TransportHandlers | undefined;
  private stream: ServerResponse | undefined;
  private readonly sessionStreams = new Map<string, ServerResponse>();
  /** Messages waiting for a receiver, with the session they belong to. */
  private waiting: Array<{ session: string | undefined; text: string }> = [];
  private waitingBytes = 0;
  /**
   * SSE events not yet handed to their response, per receiver: written as one chunk at the end of
   * the macrotask (or at {@link FLUSH_BYTES}), like the WebSocket transport's corked batch. A
   * producer that sends from microtasks would otherwise pile every event into the response's
   * buffer (one HTTP chunk each) and the client would get nothing until it yields.
   */
  private readonly batches = new Map<ServerResponse, string>();
  private flushScheduled = false;
  /** id key of each client request -> the session its answer belongs to */
  private readonly requestSessions = new Map<string, string>();
  private initialize: { key: string; resolve: (m: object) => void } | undefined;
  private closed = false;
  private readonly keepAlive: NodeJS.Timeout;
  private streamTimer: NodeJS.Timeout | undefined;
  /** Called once when the connection ends. */
  onEnd: ((info: CloseInfo) => void) | undefined;
  /** Called with {@link bufferedBytes} after each message routed (a server's budget across connections). */
  onBuffered: ((bytes: number) => void) | undefined;

  constructor(
    /** Identity of the token that created it: every later request must carry the same. */
    readonly owner: string,
    private readonly maxBufferedBytes: number,
  ) {
    // a comment line every 15 s keeps proxies from timing out an idle stream
    this.keepAlive = setInterval(() => {
      for (const res of this.receivers()) this.write(res, ': keep-alive\n\n');
    }, 15_000);
    this.keepAlive.unref();
  }

  private receivers(): ServerResponse[] {
    return [...(this.stream ? [this.stream] : []), ...this.sessionStreams.values()];
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
  }

  /** Hands the `initialize` request to the agent and resolves with its answer. */
  initializeWith(message: Json): Promise<object> {
    return new Promise((resolve) => {
      this.initialize = { key: requestIdKey(message.id), resolve };
      this.handlers?.onMessage(message);
    });
  }

  /** Closes the connection when its event stream is not opened within `ms` (the client is gone). */
  expectStreamWithin(ms: number): void {
    this.streamTimer = setTimeout(() => {
      if (!this.stream) this.close({ reason: `the client did not open the event stream within ${ms} ms` });
    }, ms);
    this.streamTimer.unref();
  }

  /** A client message from a POST. */
  deliver(message: Json, session: string | undefined): void {
    if (this.closed) return;
    if (typeof message.method === 'string' && 'id' in message && session !== undefined && message.method !== 'session/load') {
      this.requestSessions.set(requestIdKey(message.id), session);
    }
    this.handlers?.onMessage(message);
  }

  /**
   * Attaches an SSE receiver (`session` undefined: the connection stream). Returns false when
   * that stream already has one (HTTP 409).
   */
  attach(res: ServerResponse, session: string | undefined): boolean {
    if (this.closed) return false;
    if (session === undefined ? this.stream : this.sessionStreams.has(session)) return false;
    // HTTP/2 forbids connection-specific headers (the stream lives as long as the response anyway)
    const h2 = res.req?.httpVersionMajor === 2;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...(h2 ? {} : { connection: 'keep-alive' }), 'x-accel-buffering': 'no' });
    res.flushHeaders();
    if (session === undefined) {
      this.stream = res;
      clearTimeout(this.streamTimer);
    }
    else this.sessionStreams.set(session, res);
    res.on('close', () => {
      if (session === undefined) {
        if (this.stream === res) {
          this.stream = undefined;
          // the client went away: the connection-scoped stream is the connection's lifeline
          this.close({ reason: 'the client closed the event stream' });
        }
      } else if (this.sessionStreams.get(session) === res) this.sessionStreams.delete(session);
      this.batches.delete(res);
    });
    const waiting = this.waiting;
    this.waiting = [];
    this.waitingBytes = 0;
    for (const w of waiting) this.route(w.session, w.text);
    return true;
  }

  /** Bytes held for this connection: waiting for a receiver plus unsent in the SSE responses. */
  get bufferedBytes(): number {
    let n = this.waitingBytes;
    for (const r of this.receivers()) n += r.writableLength;
    for (const b of this.batches.values()) n += b.length;
    return n;
  }

  send(message: object): void {
    if (this.closed) return;
    const id = 'id' in message ? message.id : undefined;
    if (this.initialize && !('method' in message) && requestIdKey(id) === this.initialize.key) {
      const { resolve } = this.initialize;
      this.initialize = undefined;
      resolve(message);
      return;
    }
    let session: string | undefined;
    if ('method' in message) {
      const p = 'params' in message ? message.params : undefined;
      session = isObj(p) && typeof p.sessionId === 'string' ? p.sessionId : undefined;
    } else {
      const key = requestIdKey(id);
      session = this.requestSessions.get(key);
      this.requestSessions.delete(key);
    }
    this.route(session, messageToText(message));
  }

  private route(session: string | undefined, text: string): void {
    const res = (session !== undefined ? this.sessionStreams.get(session) : undefined) ?? this.stream;
    if (!res) {
      this.waiting.push({ session, text });
      this.waitingBytes += text.length;
    } else this.write(res, `data: ${text}\n\n`);
    const held = this.bufferedBytes;
    if (held > this.maxBufferedBytes) {
      this.close({ reason: `buffered bytes limit exceeded: the client left more than ${this.maxBufferedBytes} bytes unread`, unreadCut: true });
    } else this.onBuffered?.(held);
  }

  /** Adds an SSE event to `res`'s batch; the batch goes out at {@link FLUSH_BYTES} or at the end of the macrotask. */
  private write(res: ServerResponse, event: string): void {
    const batch = (this.batches.get(res) ?? '') + event;
    if (batch.length >= FLUSH_BYTES) {
      this.batches.delete(res);
      res.write(batch);
      return;
    }
    this.batches.set(res, batch);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.onImmediate);
    }
  }

  private readonly onImmediate = (): void => {
    this.flushScheduled = false;
    this.writeBatches();
  };

  /** Hands every batch to its response (in the order each receiver's events were sent). */
  private writeBatches(): void {
    if (this.batches.size === 0) return;
    const batches = [...this.batches];
    this.batches.clear();
    for (const [res, batch] of batches) if (!res.destroyed) res.write(batch);
  }

  /**
   * Resolves once no receiver needs draining: the events go to the session-scoped streams as well
   * as to the connection stream, and a producer that never waits would pile them all in memory.
   */
  whenWritable(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const full = this.receivers().filter((res) => res.writableNeedDrain && !res.destroyed);
    if (full.length === 0) return Promise.resolve();
    return Promise.all(full.map(drained)).then(() => undefined);
  }

  async flush(): Promise<void> {
    this.writeBatches();
    for (const res of this.receivers()) {
      if (res.writableLength > 0 && !res.destroyed) {
        await drained(res);
      }
    }
  }

  close(info: CloseInfo = { reason: 'closed locally' }): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    clearTimeout(this.streamTimer);
    const overflow = info.unreadCut === true;
    // what was sent before the close still reaches the client (not when it is the client that left it unread)
    if (overflow) this.batches.clear();
    else this.writeBatches();
    for (const res of this.receivers()) {
      if (overflow) res.destroy();
      else res.end();
    }
    this.stream = undefined;
    this.sessionStreams.clear();
    this.waiting = [];
    this.initialize?.resolve({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `connection closed during initialize: ${info.reason}` } });
    this.initialize = undefined;
    this.handlers?.onClose(info);
    this.onEnd?.(info);
  }
}
