import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isObj } from '../protocol/codec/util.js';
import { messageToText } from '../rpc/message-text.js';
import type { CloseInfo, Transport, TransportHandlers } from '../rpc/transport.js';

type Json = Record<string, unknown>;

const idKey = (id: unknown): string => JSON.stringify(id);

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
  /** id key of each client request -> the session its answer belongs to */
  private readonly requestSessions = new Map<string, string>();
  private initialize: { key: string; resolve: (m: object) => void } | undefined;
  private closed = false;
  private readonly keepAlive: NodeJS.Timeout;
  private streamTimer: NodeJS.Timeout | undefined;
  /** Called once when the connection ends. */
  onEnd: ((info: CloseInfo) => void) | undefined;

  constructor(
    /** Identity of the token that created it: every later request must carry the same. */
    readonly owner: string,
    private readonly maxBufferedBytes: number,
  ) {
    // a comment line every 15 s keeps proxies from timing out an idle stream
    this.keepAlive = setInterval(() => {
      for (const res of this.receivers()) res.write(': keep-alive\n\n');
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
      this.initialize = { key: idKey(message.id), resolve };
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
      this.requestSessions.set(idKey(message.id), session);
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
    return n;
  }

  send(message: object): void {
    if (this.closed) return;
    const id = 'id' in message ? message.id : undefined;
    if (this.initialize && !('method' in message) && idKey(id) === this.initialize.key) {
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
      const key = idKey(id);
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
    } else res.write(`data: ${text}\n\n`);
    if (this.bufferedBytes > this.maxBufferedBytes) {
      this.close({ reason: `buffered bytes limit exceeded: the client left more than ${this.maxBufferedBytes} bytes unread` });
    }
  }

  whenWritable(): Promise<void> {
    const res = this.stream;
    if (this.closed || !res || !res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      res.once('drain', resolve);
      res.once('close', resolve);
    });
  }

  async flush(): Promise<void> {
    for (const res of this.receivers()) {
      if (res.writableLength > 0 && !res.destroyed) {
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
      }
    }
  }

  close(info: CloseInfo = { reason: 'closed locally' }): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    clearTimeout(this.streamTimer);
    for (const res of this.receivers()) {
      if (info.reason.startsWith('buffered bytes limit')) res.destroy();
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
