import {
  connect as http2Connect,
  constants as http2Constants,
  type ClientHttp2Session,
  type ClientHttp2Stream,
} from 'node:http2';
import { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import { isObj } from '../codec/util.js';
import { MAX_JSON_DEPTH } from './json-guard.js';
import { deliverMessageText, messageToText } from './message-text.js';
import { HEADER_CONNECTION_ID, HEADER_SESSION_ID } from './http-headers.js';
import { requestIdKey } from './request-id.js';
import type { CloseInfo, Transport, TransportHandlers } from './transport.js';

export { HEADER_CONNECTION_ID, HEADER_SESSION_ID };

/** Options of {@link HttpClientTransport}. */
export interface HttpClientTransportOptions {
  /** Sent as `Authorization: Bearer <token>` on every request (never in the URL). */
  token?: string;
  /** Extra headers of every request. */
  headers?: Record<string, string>;
  /** Deepest nesting accepted in one incoming message (default 128). */
  maxDepth?: number;
  /** `fetch` to use (default the global one). */
  fetch?: typeof globalThis.fetch;
  /**
   * Speak HTTP/2 (what the remote transport RFD requires for this profile): for `http://` URLs
   * cleartext HTTP/2 with prior knowledge (h2c, e.g. `acp-kit serve --http2-port`), for `https://`
   * HTTP/2 over TLS. One HTTP/2 connection carries the event stream and every POST. Ignored when
   * `fetch` is given.
   */
  http2?: boolean;
}

/**
 * A `fetch` over one HTTP/2 connection to `origin` (opened on first use, again after it ended);
 * `close()` ends it. Enough of `fetch` for this transport: string headers, string bodies.
 */
export function http2Fetch(origin: string): { fetch: typeof globalThis.fetch; close(): void } {
  let session: ClientHttp2Session | undefined;
  const open = (): ClientHttp2Session => {
    if (!session || session.closed || session.destroyed) {
      session = http2Connect(origin);
      // failures reach the requests on it
      session.on('error', () => undefined);
    }
    return session;
  };
  const fetchImpl = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
      const headers: Record<string, string> = {
        ':method': init.method ?? 'GET',
        ':path': `${url.pathname}${url.search}`,
      };
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason);
      let req: ClientHttp2Stream;
      try {
        req = open().request(headers);
      } catch (e) {
        return reject(e);
      }
      const onAbort = (): void => {
        req.close(http2Constants.NGHTTP2_CANCEL);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.once('close', () => signal?.removeEventListener('abort', onAbort));
      req.once('error', reject);
      req.once('response', (h) => {
        const status = Number(h[':status']);
        const out = new Headers();
        for (const [name, value] of Object.entries(h)) {
          if (!name.startsWith(':') && value !== undefined)
            out.set(name, Array.isArray(value) ? value.join(', ') : String(value));
        }
        const body = status === 204 || status === 304 ? null : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers: out }));
      });
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
  return {
    fetch: fetchImpl as typeof globalThis.fetch,
    close: () => session?.close(),
  };
}

type Json = Record<string, unknown>;

/** The chunks of a fetch body, read with its reader (no reliance on the stream being async-iterable). */
async function* readChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

function sessionIdOf(message: Json): string | undefined {
  const p = message.params;
  return isObj(p) && typeof p.sessionId === 'string' ? p.sessionId : undefined;
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/**
 * The client side of the Streamable HTTP profile (remote transport RFD): the first message must
 * be `initialize`, POSTed without a connection id and answered with `200` + `Acp-Connection-Id`;
 * then one long-lived connection-scoped SSE stream (GET) carries every server message, and every
 * client message is a POST answered `202`, session-scoped ones with `Acp-Session-Id`. POSTs are
 * sent one after the other so the server sees them in send order, as on stdio. `close()` DELETEs
 * the connection.
 */
export class HttpClientTransport implements Transport {
  private handlers: TransportHandlers | undefined;
  private connectionId: string | undefined;
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private closed = false;
  private readonly abort = new AbortController();
  private readonly fetchImpl: typeof globalThis.fetch;
  /** ends the HTTP/2 connection of {@link HttpClientTransportOptions.http2} */
  private readonly endHttp2: (() => void) | undefined;
  /** id key of each server request -> its session, so our answer carries `Acp-Session-Id` */
  private readonly serverRequestSessions = new Map<string, string>();
  private idleWaiters: Array<() => void> = [];
  /** session-scoped event streams opened (servers such as the official SDK's send session messages only there) */
  private readonly sessionStreams = new Map<string, Promise<void>>();
  /** Delay before resuming a dropped event stream: the server's `retry:` field, else none. */
  private retryMs = 0;

  constructor(
    private readonly url: string,
    private readonly options: HttpClientTransportOptions = {},
  ) {
    if (options.http2 && !options.fetch) {
      const h2 = http2Fetch(new URL(url).origin);
      this.fetchImpl = h2.fetch;
      this.endHttp2 = h2.close;
    } else this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** The server's `Acp-Connection-Id`, once `initialize` was answered. */
  get id(): string | undefined {
    return this.connectionId;
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.eventHandlers = {
      onMessage: (m) => {
        const msg = isObj(m) ? m : undefined;
        const result = msg && !('method' in msg) ? msg.result : undefined;
        if (isObj(result) && typeof result.sessionId === 'string') void this.sessionStream(result.sessionId);
        if (msg && typeof msg.method === 'string' && 'id' in msg) {
          const s = sessionIdOf(msg);
          if (s !== undefined) this.serverRequestSessions.set(requestIdKey(msg.id), s);
        }
        handlers.onMessage(m);
      },
      onInvalidLine: (i) => handlers.onInvalidLine(i),
      onTooDeep: handlers.onTooDeep && ((m, l) => handlers.onTooDeep?.(m, l)),
      onClose: () => undefined,
    };
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return {
      ...this.options.headers,
      ...(this.options.token !== undefined ? { authorization: `Bearer ${this.options.token}` } : {}),
      ...(this.connectionId ? { [HEADER_CONNECTION_ID]: this.connectionId } : {}),
      ...extra,
    };
  }

  send(message: object): void {
    if (this.closed) return;
    const text = messageToText(message);
    this.inFlight++;
    this.chain = this.chain
      .then(() => (this.closed ? undefined : this.post(isObj(message) ? message : {}, text)))
      .catch((e: Error) => this.close({ reason: `HTTP request failed: ${e.message}`, error: e }))
      .finally(() => {
        this.inFlight--;
        if (this.inFlight === 0) {
          const w = this.idleWaiters;
          this.idleWaiters = [];
          for (const f of w) f();
        }
      });
  }

  private async post(message: Json, text: string): Promise<void> {
    if (!this.connectionId) {
      if (message.method !== 'initialize')
        throw new Error('the first message of an HTTP connection must be initialize');
      const res = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: this.headers({ 'content-type': 'application/json', accept: 'application/json' }),
        body: text,
        signal: this.abort.signal,
      });
      const body = await res.text();
      if (res.status !== 200)
        throw new Error(`initialize refused: HTTP ${res.status}${body ? `: ${body.slice(0, 500)}` : ''}`);
      const id = res.headers.get(HEADER_CONNECTION_ID);
      if (!id) throw new Error(`initialize answer has no ${HEADER_CONNECTION_ID} header`);
      this.connectionId = id;
      // open the stream before handing out the answer: nothing the server sends next is missed
      await this.openStream();
      deliverMessageText(body, this.handlers, this.options.maxDepth ?? MAX_JSON_DEPTH);
      return;
    }
    let session = sessionIdOf(message);
    if (session === undefined && !('method' in message) && 'id' in message) {
      const key = requestIdKey(message.id);
      session = this.serverRequestSessions.get(key);
      this.serverRequestSessions.delete(key);
    }
    if (session !== undefined) await this.sessionStream(session);
    const res = await this.fetchImpl(this.url, {
      method: 'POST',
      headers: this.headers({
        'content-type': 'application/json',
        ...(session !== undefined ? { [HEADER_SESSION_ID]: session } : {}),
      }),
      body: text,
      signal: this.abort.signal,
    });
    const body = await res.text();
    if (res.status === 202 || res.status === 200) return;
    const detail = `HTTP ${res.status}${body ? `: ${body.slice(0, 500)}` : ''}`;
    // a refused request is answered locally so its caller gets an error instead of waiting forever
    if (
      res.status < 500 &&
      res.status !== 401 &&
      res.status !== 403 &&
      res.status !== 404 &&
      'method' in message &&
      'id' in message
    ) {
      this.handlers?.onMessage({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32603, message: `server refused the request: ${detail}`, data: { status: res.status } },
      });
      return;
    }
    throw new Error(`server refused ${typeof message.method === 'string' ? message.method : 'a message'}: ${detail}`);
  }

  /**
   * Opens the connection stream (`session` undefined) or a session-scoped one. `lastEventId`
   * resumes a stream that dropped: the server sends what followed that event.
   */
  private async openStream(session?: string, lastEventId?: string): Promise<void> {
    const res = await this.fetchImpl(this.url, {
      method: 'GET',
      headers: this.headers({
        accept: 'text/event-stream',
        ...(session !== undefined ? { [HEADER_SESSION_ID]: session } : {}),
        ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
      }),
      signal: this.abort.signal,
    });
    if (res.status !== 200 || !res.body) {
      const body = await res.text().catch(() => '');
      // 409: that session's stream already has a receiver (ours): nothing to do
      if (session !== undefined && res.status === 409 && lastEventId === undefined) return;
      throw new Error(
        `event stream ${lastEventId !== undefined ? 'resume ' : ''}refused: HTTP ${res.status}${body ? `: ${body.slice(0, 500)}` : ''}`,
      );
    }
    void this.readStream(res.body, session, lastEventId);
  }

  /**
   * Opens (once) the session-scoped stream of `session`. The RFD's single connection stream would
   * suffice for acp-kit's server, but the official SDK's server delivers a session's messages only
   * on a stream opened with `Acp-Session-Id`.
   */
  private sessionStream(session: string): Promise<void> {
    let p = this.sessionStreams.get(session);
    if (!p) {
      p = this.openStream(session).catch((e: Error) =>
        this.close({ reason: `session event stream failed: ${e.message}`, error: e }),
      );
      this.sessionStreams.set(session, p);
    }
    return p;
  }

  /**
   * Reads one event stream (parsed by eventsource-parser) until it ends; a stream that ends or
   * fails while the connection is open is resumed once with `Last-Event-ID` (after the server's
   * `retry:` delay), so a dropped stream loses and repeats nothing. A stream without any event id
   * (a server that does not offer resumption) is not resumed.
   */
  private async readStream(
    body: ReadableStream<Uint8Array>,
    session: string | undefined,
    lastEventId: string | undefined,
  ): Promise<void> {
    let lastId = lastEventId;
    const parser = createParser({
      onEvent: (event) => {
        if (event.id !== undefined) lastId = event.id;
        this.onEvent(event.data);
      },
      onRetry: (ms) => (this.retryMs = ms),
    });
    const decoder = new TextDecoder();
    let failure: Error | undefined;
    try {
      for await (const chunk of readChunks(body)) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch (e) {
      failure = asError(e);
    }
    if (this.closed) return;
    if (lastId !== undefined && lastId !== lastEventId) {
      // progress since the last (re)connect: one more attempt (a stream that fails at once is not retried forever)
      await new Promise((r) => setTimeout(r, this.retryMs));
      if (this.closed) return;
      try {
        await this.openStream(session, lastId);
        return;
      } catch (e) {
        // a stream too old to resume is what the user must hear; otherwise (the server is gone, the
        // connection unknown there) the first failure says best what happened
        if (/resume refused: HTTP 410/.test(asError(e).message)) failure = asError(e);
      }
    }
    this.streamLost(session, failure);
  }

  /** A stream that could not be resumed: a session stream is reopened on the next message for it; the connection stream ends the connection. */
  private streamLost(session: string | undefined, failure: Error | undefined): void {
    if (session !== undefined && !/resume refused: HTTP 410/.test(failure?.message ?? '')) {
      this.sessionStreams.delete(session);
      return;
    }
    // (a failure: the stream lives as long as the connection; over HTTP/2 a lost connection ends it this way too)
    const error = failure ?? new Error('the event stream ended before the connection did');
    this.close({
      reason: failure ? `event stream failed: ${failure.message}` : 'the server ended the event stream',
      error,
    });
  }

  /** What an event's message goes through, made once in {@link start} (not one object per event). */
  private eventHandlers: TransportHandlers | undefined;

  private onEvent(text: string): void {
    if (this.closed) return;
    if (this.eventHandlers) deliverMessageText(text, this.eventHandlers, this.options.maxDepth ?? MAX_JSON_DEPTH);
  }

  whenWritable(): Promise<void> {
    return Promise.resolve();
  }

  flush(): Promise<void> {
    if (this.closed || this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(info: CloseInfo = { reason: 'closed locally' }): void {
    if (this.closed) return;
    this.closed = true;
    const id = this.connectionId;
    this.abort.abort();
    // a failure (stream or request lost) does not end the connection on the server: its turns go
    // on until the server notices, and a reconnecting client can resume its sessions there
    if (id && !info.error) {
      // best effort: tell the server to end the connection (and its agent) now
      void this.fetchImpl(this.url, { method: 'DELETE', headers: this.headers({}) })
        .then(
          (r) => r.body?.cancel(),
          () => undefined,
        )
        .finally(() => this.endHttp2?.());
    } else this.endHttp2?.();
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
    this.handlers?.onClose(info);
  }
}
