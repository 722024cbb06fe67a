import type { ServerResponse } from 'node:http';
import { isObj, messageToText } from '@acp-kit/protocol/internal';
import { requestIdKey, type CloseInfo, type Transport, type TransportHandlers } from '@acp-kit/protocol/rpc';
import { newConnectionId } from './connection-id.js';
import { SseStream, type ResumeRefusal } from './sse-stream.js';

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

/** Options of {@link HttpServerConnection} beyond its owner. */
export interface HttpConnectionLimits {
  /** Bytes held for the client (unsent plus unread) before the connection is cut. */
  maxBufferedBytes: number;
  /** Bytes of sent events each stream keeps for a client resuming with `Last-Event-ID`. */
  replayWindowBytes: number;
  /** How long a dropped stream waits for its client to resume it. */
  resumeWithinMs: number;
}

/**
 * The server side of one Streamable HTTP connection, as a {@link Transport} for the agent
 * behind it. Server messages go to the connection's SSE stream (GET), or to a session-scoped
 * stream when the client opened one for that session (as the official SDK's client does); until
 * a receiver is attached they wait in memory, bounded by `maxBufferedBytes`. Every event carries
 * an id, and a stream that drops is kept {@link HttpConnectionLimits.resumeWithinMs} for the client
 * to resume it with `Last-Event-ID` (see {@link SseStream}). Client messages arrive through
 * {@link deliver} (POST).
 */
export class HttpServerConnection implements Transport {
  /** The `Acp-Connection-Id`. */
  readonly id = newConnectionId();
  private handlers: TransportHandlers | undefined;
  /** The connection stream, once the client opened it. */
  private stream: SseStream | undefined;
  private readonly sessionStreams = new Map<string, SseStream>();
  /** Messages sent before any stream was opened, with the session they belong to. */
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
  /** An event went out since the last check phase: the next ones are batched until it. */
  private hot = false;
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
    private readonly limits: HttpConnectionLimits,
  ) {
    // a comment line every 15 s keeps proxies from timing out an idle stream
    this.keepAlive = setInterval(() => {
      for (const res of this.receivers()) this.write(res, ': keep-alive\n\n');
    }, 15_000);
    this.keepAlive.unref();
  }

  private streams(): SseStream[] {
    return [...(this.stream ? [this.stream] : []), ...this.sessionStreams.values()];
  }

  private receivers(): ServerResponse[] {
    const out: ServerResponse[] = [];
    for (const s of this.streams()) if (s.res) out.push(s.res);
    return out;
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
    if (
      typeof message.method === 'string' &&
      'id' in message &&
      session !== undefined &&
      message.method !== 'session/load'
    ) {
      this.requestSessions.set(requestIdKey(message.id), session);
    }
    this.handlers?.onMessage(message);
  }

  /**
   * Attaches an SSE receiver (`session` undefined: the connection stream). A client resuming with
   * `lastEventId` takes the stream over (its old receiver is gone, whether or not the server saw it
   * go) and first gets the events after that id; without it, a stream that has a receiver is
   * refused (HTTP 409). Returns why it was refused, or undefined.
   */
  attach(res: ServerResponse, session: string | undefined, lastEventId?: string): ResumeRefusal | undefined {
    if (this.closed) return { status: 404, message: 'Unknown Acp-Connection-Id' };
    const existing = session === undefined ? this.stream : this.sessionStreams.get(session);
    if (existing?.res && lastEventId === undefined)
      return { status: 409, message: 'this stream already has a receiver' };
    if (!existing && lastEventId !== undefined)
      return {
        status: 400,
        message: `Last-Event-ID given for a stream this connection never opened${session !== undefined ? ` (session ${JSON.stringify(session)})` : ''}: open it without Last-Event-ID`,
      };
    const stream = existing ?? new SseStream(this.limits.replayWindowBytes);
    const replay = stream.replayFrom(lastEventId);
    if (typeof replay !== 'string') return replay;
    const old = stream.res;
    if (old) {
      // the old receiver's unsent batch is in the replay: the client resumes after what it got
      this.batches.delete(old);
      old.destroy();
    }
    // HTTP/2 forbids connection-specific headers (the stream lives as long as the response anyway)
    const h2 = res.req?.httpVersionMajor === 2;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...(h2 ? {} : { connection: 'keep-alive' }),
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    stream.res = res;
    clearTimeout(stream.detachTimer);
    if (session === undefined) {
      this.stream = stream;
      clearTimeout(this.streamTimer);
    } else this.sessionStreams.set(session, stream);
    res.on('close', () => this.detach(stream, res, session));
    if (replay !== '') this.write(res, replay);
    const waiting = this.waiting;
    this.waiting = [];
    this.waitingBytes = 0;
    for (const w of waiting) this.route(w.session, w.text);
    return undefined;
  }

  /**
   * The receiver `res` of `stream` went away: the stream holds its events for the client to
   * resume; if it does not in time, a session stream hands them to the connection stream and a
   * connection stream ends the connection (it is the connection's lifeline).
   */
  private detach(stream: SseStream, res: ServerResponse, session: string | undefined): void {
    this.batches.delete(res);
    if (stream.res !== res || this.closed) return;
    stream.res = undefined;
    const ms = this.limits.resumeWithinMs;
    stream.detachTimer = setTimeout(() => {
      if (stream.res || this.closed) return;
      if (session === undefined) {
        this.close({ reason: `the client closed the event stream and did not resume it within ${ms} ms` });
        return;
      }
      if (this.sessionStreams.get(session) !== stream) return;
      this.sessionStreams.delete(session);
      for (const text of stream.takeHeld()) this.route(session, text);
    }, ms);
    stream.detachTimer.unref();
  }

  /** Bytes held for this connection: waiting for a receiver plus unsent in the SSE responses. */
  get bufferedBytes(): number {
    let n = this.waitingBytes;
    for (const s of this.streams()) n += s.heldBytes;
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
    const stream = (session !== undefined ? this.sessionStreams.get(session) : undefined) ?? this.stream;
    if (!stream) {
      this.waiting.push({ session, text });
      this.waitingBytes += text.length;
    } else {
      const event = stream.append(text);
      if (event !== undefined && stream.res) this.write(stream.res, event);
    }
    const held = this.bufferedBytes;
    const max = this.limits.maxBufferedBytes;
    if (held > max) {
      this.close({
        reason: `buffered bytes limit exceeded: the client left more than ${max} bytes unread`,
        unreadCut: true,
      });
    } else this.onBuffered?.(held);
  }

  /**
   * Writes an SSE event: the connection's first event after a check phase goes out at once; later
   * ones join `res`'s batch, which goes out at {@link FLUSH_BYTES} or at the next check phase (holding
   * every event for it added the whole loop iteration, every other session's work, to each chunk's
   * latency at many sessions; a burst still leaves in a few large writes).
   */
  private write(res: ServerResponse, event: string): void {
    if (!this.hot) {
      this.hot = true;
      this.scheduleFlush();
      if (!this.batches.has(res)) {
        res.write(event);
        return;
      }
    }
    const batch = (this.batches.get(res) ?? '') + event;
    if (batch.length >= FLUSH_BYTES) {
      this.batches.delete(res);
      res.write(batch);
      return;
    }
    this.batches.set(res, batch);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.onImmediate);
  }

  private readonly onImmediate = (): void => {
    this.flushScheduled = false;
    this.hot = false;
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
    for (const s of this.streams()) clearTimeout(s.detachTimer);
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
    this.initialize?.resolve({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: `connection closed during initialize: ${info.reason}` },
    });
    this.initialize = undefined;
    this.handlers?.onClose(info);
    this.onEnd?.(info);
  }
}
