import { isObj } from '../codec/util.js';
import { AcpError, ErrorCode, isAbortError } from '../errors.js';
import { CANCEL_REQUEST_METHOD, type RequestId } from '../jsonrpc.js';
import { InboundRequest } from './inbound-request.js';
import { messageToText } from './message-text.js';
import { ExactNumberId, isWireRequestId, showRequestId, type WireRequestId } from './request-id.js';
import type { CloseInfo, InvalidLine, Transport } from './transport.js';

/** Passed to every request handler. */
export interface RequestContext {
  /** The request's id, echoed as sent: a `bigint` for an integer beyond 2^53, an `ExactNumberId` for another number JSON would not write back as sent. */
  id: WireRequestId;
  method: string;
  /** Fires on `$/cancel_request` for this id or when the connection closes. */
  signal: AbortSignal;
}

export type RequestHandler = (params: unknown, ctx: RequestContext) => unknown;
/** May return a promise: the next notification/response is held until it settles (ordering). */
export type NotificationHandler = (params: unknown, method: string) => void | Promise<void>;

export interface RequestOptions {
  /** Aborting sends `$/cancel_request` (ACP-ALL-CREQ-01). */
  signal?: AbortSignal;
  /**
   * The request being handled that this one passes on (a relay's `ctx`): cancelling that one cancels
   * this one, as `signal: ctx.signal` would, without making the signal (see `InboundRequest`).
   */
  cancelWith?: RequestContext;
  /**
   * On abort: `reject` (default) rejects at once with -32800 and ignores the late answer;
   * `wait` keeps waiting for the peer's answer (ACP-ALL-CREQ-06).
   */
  onAbort?: 'reject' | 'wait';
  /**
   * Called synchronously when the answer is read, before any later message is handled (the
   * promise settles only microtasks later, after the rest of that read): lets a caller apply
   * what the answer means in wire order. Not called when the request ends otherwise (close, abort).
   */
  onAnswer?: (answer: { result: unknown } | { error: AcpError }) => void;
}

/** A protocol-level problem the peer could not answer on the wire (or chose not to). */
export interface ProtocolProblem {
  kind: 'parse' | 'invalid-message' | 'unknown-response' | 'handler-error';
  message: string;
  detail?: unknown;
}

export interface PeerOptions {
  /** Answer unparsable lines with -32700 `id:null` (default true; clients reading an agent's stdout turn it off). */
  answerParseErrors?: boolean;
  /** Protocol problems (bad lines, stray responses, notification handler failures). Default: ignored. */
  onProblem?: (problem: ProtocolProblem) => void;
  /** Sees every message sent and received, in wire order (tests use it for schema conformance). */
  tap?: { sent?(message: object): void; received?(message: unknown): void };
  /**
   * Set on a peer that passes messages on (a proxy, a conductor, a bridge): an answer then holds
   * the messages read after it until the code awaiting it has run (its promise continuations, up
   * to the next macrotask), so the answer goes on before what followed it on the wire (an agent's
   * first update right after `session/new`'s answer). Off by default: a client applies what came
   * in the same read as an answer before the call it answers resolves.
   */
  relay?: boolean;
}

/** Rejects every request pending when the connection ended. */
export class ConnectionClosedError extends AcpError {
  readonly info: CloseInfo;
  constructor(info: CloseInfo) {
    let msg = `Connection closed: ${info.reason}`;
    if (info.stderrTail) msg += `\n--- last stderr lines ---\n${info.stderrTail}`;
    super(ErrorCode.InternalError, msg, {
      reason: info.reason,
      exitCode: info.exitCode ?? null,
      signal: info.signal ?? null,
    });
    this.name = 'ConnectionClosedError';
    this.info = info;
  }
}

interface Pending {
  /** the request's id (this peer's own: a number) */
  id: RequestId;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  method: string;
  onAnswer?: RequestOptions['onAnswer'];
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Listens for what cancels a request being sent: `options.signal`, and the request it passes on
 * (`cancelWith`). Returns how to stop listening, or `'cancelled'` when one is cancelled already.
 */
function listenForCancel(options: RequestOptions, onAbort: () => void): (() => void) | 'cancelled' | undefined {
  const { signal, cancelWith } = options;
  const inbound = cancelWith instanceof InboundRequest ? cancelWith : undefined;
  // a context made elsewhere (a test's, a wrapper's) has only its signal
  const other = inbound ? undefined : cancelWith?.signal;
  if (signal?.aborted || other?.aborted || inbound?.aborted) return 'cancelled';
  if (!signal && !other && !inbound) return undefined;
  signal?.addEventListener('abort', onAbort, { once: true });
  other?.addEventListener('abort', onAbort, { once: true });
  const stopInbound = inbound?.onCancel(onAbort);
  return () => {
    signal?.removeEventListener('abort', onAbort);
    other?.removeEventListener('abort', onAbort);
    stopInbound?.();
  };
}

/**
 * Settles once the promise continuations queued so far, and those they queue, have run (the
 * next macrotask): how long an answer holds a relay's inbox (see {@link PeerOptions.relay}).
 */
function afterContinuations(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A symmetric JSON-RPC 2.0 peer: requests and notifications both ways over one {@link Transport}.
 *
 * Ordering: inbound messages are handled strictly in arrival order. A notification handler or
 * a response that settles asynchronously holds back the messages after it, so a handler never
 * sees notification N+1 before N, and a response is delivered after every notification sent
 * before it. With {@link PeerOptions.relay}, a response also holds back what came after it until
 * the code awaiting it has run. Request handlers are started in order but run concurrently.
 */
export class JsonRpcPeer {
  private nextId = 1;
  /*
   * The maps below exist only while they hold something (the handler maps once a handler is set):
   * an empty Map costs ~190 bytes, and a server holds tens of thousands of idle connections whose
   * peers have nothing pending or running.
   */
  /** Requests sent and not answered yet. */
  private pending: Map<RequestId, Pending> | undefined;
  /** Requests received and still running, for `$/cancel_request`. */
  private inbound: Map<WireRequestId, InboundRequest> | undefined;
  private requestHandlers: Map<string, RequestHandler> | undefined;
  private notificationHandlers: Map<string, NotificationHandler> | undefined;
  private fallbackRequest: ((method: string, params: unknown, ctx: RequestContext) => unknown) | undefined;
  private fallbackNotification: ((method: string, params: unknown) => void | Promise<void>) | undefined;
  /** Messages held while the inbox is blocked; read from `backlogHead` (Array#shift is O(n) on large arrays). */
  private backlog: unknown[] = [];
  private backlogHead = 0;
  private blocked = false;
  /** True while the backlog is being worked through (a batch's entries are queued at its head). */
  private draining = false;
  private closeInfo: CloseInfo | undefined;
  private readonly closedPromise: Promise<CloseInfo>;
  private resolveClosed!: (info: CloseInfo) => void;
  private readonly tapSent: ((m: object) => void) | undefined;
  private readonly tapReceived: ((m: unknown) => void) | undefined;

  constructor(
    readonly transport: Transport,
    private readonly options: PeerOptions = {},
  ) {
    this.tapSent = options.tap?.sent;
    this.tapReceived = options.tap?.received;
    this.closedPromise = new Promise((r) => (this.resolveClosed = r));
    transport.start({
      onMessage: (m) => this.receive(m),
      onInvalidLine: (info) => this.onInvalidLine(info),
      onTooDeep: (m, limit) => this.receive(new TooDeep(m, limit)),
      onClose: (info) => this.onClosed(info),
    });
  }

  /** Resolves with the reason once the connection has ended. */
  get closed(): Promise<CloseInfo> {
    return this.closedPromise;
  }

  /**
   * True while inbound messages wait in the inbox (a handler or an answer holds it): a transport's
   * fast lane that skips the peer must then leave a message to the peer, or it would overtake them.
   */
  get holding(): boolean {
    return this.blocked || this.draining || this.backlogHead < this.backlog.length;
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  onRequest(method: string, handler: RequestHandler): this {
    (this.requestHandlers ??= new Map<string, RequestHandler>()).set(method, handler);
    return this;
  }
  onNotification(method: string, handler: NotificationHandler): this {
    (this.notificationHandlers ??= new Map<string, NotificationHandler>()).set(method, handler);
    return this;
  }
  /** Handles requests no specific handler took (default: -32601). */
  onOtherRequest(handler: (method: string, params: unknown, ctx: RequestContext) => unknown): this {
    this.fallbackRequest = handler;
    return this;
  }
  /** Handles notifications no specific handler took (default: ignored, ACP-ALL-EXT-06). */
  onOtherNotification(handler: (method: string, params: unknown) => void | Promise<void>): this {
    this.fallbackNotification = handler;
    return this;
  }

  /** Sends a request and resolves with its result, or rejects with an {@link AcpError}. */
  request<R = unknown>(method: string, params?: unknown, options?: RequestOptions): Promise<R> {
    if (this.closeInfo) return Promise.reject(new ConnectionClosedError(this.closeInfo));
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.pending?.has(id)) return;
        this.notify(CANCEL_REQUEST_METHOD, { requestId: id });
        if (options?.onAbort !== 'wait') {
          this.forgetPending(id);
          reject(AcpError.cancelled(`${method} was cancelled`));
        }
      };
      // most requests can be cancelled by nothing: no listener to set up or take down
      const stopListening = options?.signal || options?.cancelWith ? listenForCancel(options, onAbort) : undefined;
      if (stopListening === 'cancelled') {
        reject(AcpError.cancelled(`${method} was cancelled before it was sent`));
        return;
      }
      (this.pending ??= new Map<RequestId, Pending>()).set(id, {
        id,
        method,
        onAnswer: options?.onAnswer,
        resolve: (v) => {
          stopListening?.();
          resolve(v as R);
        },
        reject: (e) => {
          stopListening?.();
          reject(e);
        },
      });
      try {
        this.write(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
      } catch (e) {
        // nothing went out (e.g. params hold a BigInt or a cycle): forget the request
        this.pending?.get(id)?.reject(e);
        this.forgetPending(id);
      }
    });
  }

  /** Sends a notification. Ordered with every other message this peer writes. */
  notify(method: string, params?: unknown): void {
    if (this.closeInfo) return;
    this.write(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Resolves when the transport can take more (backpressure for fast producers). */
  whenWritable(): Promise<void> {
    return this.transport.whenWritable();
  }
  /** Resolves once everything sent so far has been handed to the OS. */
  flush(): Promise<void> {
    return this.transport.flush();
  }

  /** Ends the connection; pending requests reject with {@link ConnectionClosedError}. */
  close(info: CloseInfo = { reason: 'closed locally' }): void {
    this.transport.close(info);
    this.onClosed(info);
  }

  private write(message: object): void {
    // send first: it throws on unserializable values, and the tap must only see what went out
    this.transport.send(message);
    if (this.tapSent) this.tapSent(message);
  }

  // ---- inbound ------------------------------------------------------------

  private receive(message: unknown): void {
    // while draining, a message a transport delivers synchronously (from a handler) queues behind
    // the backlog: it came after the batch entries still there
    if (this.blocked || this.draining) {
      this.backlog.push(message);
      return;
    }
    this.process(message);
  }

  /** Runs one message; returns true when it left the inbox blocked. */
  private process(message: unknown): void {
    if (message instanceof TooDeep) {
      // refused in arrival order, and never shown to the tap or a handler
      this.refuseTooDeep(message);
      return;
    }
    if (message instanceof BatchEntry) {
      const wait = this.dispatch(message.message, message.batch.sink);
      if (wait) this.block(wait);
      return;
    }
    if (this.tapReceived) this.tapReceived(message);
    if (Array.isArray(message)) {
      this.startBatch(message);
      return;
    }
    const wait = this.dispatch(message, this.sendReply);
    if (wait) this.block(wait);
  }

  private block(wait: Promise<unknown>): void {
    this.blocked = true;
    const resume = (): void => {
      this.blocked = false;
      this.drain();
    };
    wait.then(resume, resume);
  }

  /** Works through the backlog in order until it is empty or a message blocks the inbox again. */
  private drain(): void {
    this.draining = true;
    while (this.backlogHead < this.backlog.length && !this.blocked) {
      const next = this.backlog[this.backlogHead];
      this.backlog[this.backlogHead++] = undefined;
      this.process(next);
    }
    this.draining = false;
    if (this.backlogHead === this.backlog.length) {
      this.backlog = [];
      this.backlogHead = 0;
    } else if (this.backlogHead > 1024 && this.backlogHead * 2 > this.backlog.length) {
      // compact now and then so a long-blocked inbox does not keep its consumed head alive
      this.backlog = this.backlog.slice(this.backlogHead);
      this.backlogHead = 0;
    }
  }

  /**
   * A JSON-RPC 2.0 batch (ACP-V2-TRANS-11: accepted on every connection, never sent by us): its
   * entries run in order exactly like single messages, ahead of whatever arrived after it, and
   * their replies go back together as one array once the last is known; a batch of notifications
   * and responses only gets no reply. Empty or oversized arrays get one -32600 and run nothing.
   */
  private startBatch(entries: unknown[]): void {
    const batch = this.openBatch(entries);
    if (!batch) return;
    // queued at the head of the backlog, so nothing that arrived after the batch overtakes its entries
    this.backlog.splice(this.backlogHead, 0, ...entries.map((m) => new BatchEntry(m, batch)));
    if (!this.draining && !this.blocked) this.drain();
  }

  private dispatch(message: unknown, reply: Sink): Promise<unknown> | undefined {
    if (!isObj(message)) {
      this.problem('invalid-message', `expected a JSON-RPC object, got ${describe(message)}`);
      reply(errorReply(null, AcpError.invalidRequest(`expected a JSON object, got ${describe(message)}`)));
      return undefined;
    }
    const m = message;
    const method = m.method;
    const hasId = hasOwn.call(m, 'id');
    if (typeof method === 'string') {
      if (m.jsonrpc !== '2.0') {
        if (hasId)
          reply(
            errorReply(validId(m.id), AcpError.invalidRequest(`"jsonrpc" must be "2.0" (got ${describe(m.jsonrpc)})`)),
          );
        else this.problem('invalid-message', `notification ${method} without "jsonrpc": "2.0"`);
        return undefined;
      }
      if (hasId) {
        const id = m.id;
        if (!isWireRequestId(id)) {
          reply(
            errorReply(null, AcpError.invalidRequest(`"id" must be a string, a number or null (got ${describe(id)})`)),
          );
          return undefined;
        }
        this.startRequest(id, method, m.params, reply);
        return undefined;
      }
      return this.runNotification(method, m.params);
    }
    if (hasId && (hasOwn.call(m, 'result') || hasOwn.call(m, 'error'))) {
      return this.settle(m) && this.options.relay ? afterContinuations() : undefined;
    }
    const id = hasId ? validId(m.id) : null;
    if (method !== undefined)
      reply(errorReply(id, AcpError.invalidRequest(`"method" must be a string (got ${describe(method)})`)));
    else
      reply(
        errorReply(
          id,
          AcpError.invalidRequest('a message needs "method" (request or notification) or "result"/"error" (response)'),
        ),
      );
    return undefined;
  }

  private readonly sendReply: Sink = (msg) => this.write(msg);

  private startRequest(id: WireRequestId, method: string, params: unknown, reply: Sink): void {
    if (method === CANCEL_REQUEST_METHOD) {
      reply(
        errorReply(id, AcpError.invalidRequest(`${CANCEL_REQUEST_METHOD} is a notification; send it without "id"`)),
      );
      return;
    }
    const fallback = this.fallbackRequest;
    const handler: RequestHandler | undefined =
      this.requestHandlers?.get(method) ?? (fallback && ((p, c) => fallback(method, p, c)));
    if (!handler) {
      reply(errorReply(id, AcpError.methodNotFound(method)));
      return;
    }
    const ctx = new InboundRequest(id, method);
    if (id !== null) (this.inbound ??= new Map<WireRequestId, InboundRequest>()).set(id, ctx);
    const done = (result: unknown, error: unknown, failed: boolean): void => {
      if (id !== null) this.forgetInbound(id, ctx);
      if (this.closeInfo) return;
      try {
        if (!failed) reply({ jsonrpc: '2.0', id, result: result === undefined ? null : result });
        else reply(errorReply(id, toAcpError(error, ctx.aborted)));
      } catch (e) {
        // a result/error that JSON cannot carry (BigInt, cycle) must still get an answer, not crash the peer
        reply(
          errorReply(
            id,
            AcpError.internal(
              `the ${failed ? 'error' : 'result'} of ${method} could not be sent as JSON: ${messageOf(e)}`,
            ),
          ),
        );
      }
    };
    let result: unknown;
    try {
      result = handler(params, ctx);
    } catch (e) {
      done(undefined, e, true);
      return;
    }
    if (result instanceof Promise)
      result.then(
        (v) => done(v, undefined, false),
        (e) => done(undefined, e, true),
      );
    else done(result, undefined, false);
  }

  private runNotification(method: string, params: unknown): Promise<unknown> | undefined {
    if (method === CANCEL_REQUEST_METHOD) {
      const requestId = isObj(params) ? params.requestId : undefined;
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        // unknown or already answered ids are ignored (ACP-ALL-CREQ-04)
        const reason = AcpError.cancelled(`cancelled by the peer ($/cancel_request ${JSON.stringify(requestId)})`);
        const c = this.inbound?.get(requestId);
        if (c) c.cancel(reason);
        else if (typeof requestId === 'number') this.inboundRounded(requestId)?.cancel(reason);
      }
      return undefined;
    }
    const handler = this.notificationHandlers?.get(method);
    let r: void | Promise<void>;
    try {
      if (handler) r = handler(params, method);
      else if (this.fallbackNotification) r = this.fallbackNotification(method, params);
      else return undefined;
    } catch (e) {
      this.problem('handler-error', `handler for notification ${method} threw: ${messageOf(e)}`, e);
      return undefined;
    }
    if (r instanceof Promise) {
      return r.catch((e: unknown) =>
        this.problem('handler-error', `handler for notification ${method} failed: ${messageOf(e)}`, e),
      );
    }
    return undefined;
  }

  /**
   * The running request whose exact id (a `bigint`, an {@link ExactNumberId} such as `1.0` or `1e2`)
   * JSON.parse read as `rounded` in a `$/cancel_request`; none when that is ambiguous. Only on a
   * miss, over the requests running, so a scan is fine.
   */
  private inboundRounded(rounded: number): InboundRequest | undefined {
    let found: InboundRequest | undefined;
    if (!this.inbound) return undefined;
    for (const [id, c] of this.inbound) {
      if (!(typeof id === 'bigint' || id instanceof ExactNumberId) || Number(id.toString()) !== rounded) continue;
      if (found) return undefined;
      found = c;
    }
    return found;
  }

  /** Answers a pending request; false for a response nobody waits for. */
  private settle(m: Record<string, unknown>): boolean {
    const id = m.id;
    const p = this.pendingFor(id);
    if (!p) {
      this.problem('unknown-response', `response for unknown request id ${showRequestId(id)}`, m);
      return false;
    }
    this.forgetPending(p.id);
    if (hasOwn.call(m, 'error') && m.error !== undefined) {
      const e = m.error;
      const err =
        e && typeof e === 'object'
          ? AcpError.fromObject(e)
          : AcpError.internal(`malformed error in response to ${p.method}`, m.error);
      this.answered(p, { error: err });
      p.reject(err);
    } else {
      this.answered(p, { result: m.result });
      p.resolve(m.result);
    }
    return true;
  }

  /**
   * A message nested deeper than the transport accepts: a request gets -32602, a response
   * rejects its request, a notification becomes a problem; nothing reaches a handler.
   */
  private refuseTooDeep({ message, limit }: TooDeep): void {
    const why = `the message is nested deeper than ${limit} levels (the limit for incoming JSON)`;
    const one = (m: unknown, reply: Sink): void => {
      if (!isObj(m)) {
        reply(errorReply(null, AcpError.invalidRequest(why)));
        return;
      }
      const r = m;
      const hasId = hasOwn.call(r, 'id');
      if (typeof r.method === 'string') {
        if (!hasId) this.problem('invalid-message', `notification ${r.method} dropped: ${why}`);
        else
          reply(
            errorReply(validId(r.id), AcpError.invalidParams(`${why}; send shallower params`, { maxDepth: limit })),
          );
        return;
      }
      if (hasId && (hasOwn.call(r, 'result') || hasOwn.call(r, 'error'))) {
        const p = this.pendingFor(r.id);
        if (p) {
          this.forgetPending(p.id);
          const err = new AcpError(
            ErrorCode.InvalidParams,
            `Invalid result: the response to ${p.method} is nested deeper than ${limit} levels (the limit for incoming JSON)`,
            { maxDepth: limit },
          );
          this.answered(p, { error: err });
          p.reject(err);
        } else this.problem('unknown-response', `response for unknown request id ${showRequestId(r.id)} (and ${why})`);
        return;
      }
      reply(errorReply(hasId ? validId(r.id) : null, AcpError.invalidRequest(why)));
    };
    if (!Array.isArray(message)) {
      one(message, this.sendReply);
      return;
    }
    // a batch: each entry is refused as above (none runs), the replies go back as one array
    const batch = this.openBatch(message);
    if (batch) for (const m of message) one(m, batch.sink);
  }

  /** The reply collector for a batch, or `undefined` after refusing an empty or oversized array whole. */
  private openBatch(entries: unknown[]): BatchReplies | undefined {
    const refusal = batchRefusal(entries.length);
    if (refusal) {
      this.problem('invalid-message', refusal);
      this.sendReply(errorReply(null, AcpError.invalidRequest(refusal)));
      return undefined;
    }
    return new BatchReplies(entries.filter(expectsReply).length, (replies) => this.write(replies));
  }

  /** The request a response answers; ids this peer never sent (other types included) have none. */
  private pendingFor(id: unknown): Pending | undefined {
    return typeof id === 'number' || typeof id === 'string' ? this.pending?.get(id) : undefined;
  }

  // Not `without` from lazy-map.ts, as the server's maps use: a module both the rpc entry and
  // `internal` reach becomes a bundle chunk of its own, one more file every agent loads before it
  // answers initialize (test/startup-modules.test.ts).

  /** Drops an answered (or abandoned) request, and the map with the last one. */
  private forgetPending(id: RequestId): void {
    const pending = this.pending;
    if (pending?.delete(id) && pending.size === 0) this.pending = undefined;
  }

  /** Drops a request that ended, unless a later one reuses its id (then that one stays cancellable). */
  private forgetInbound(id: WireRequestId, request: InboundRequest): void {
    const inbound = this.inbound;
    if (inbound?.get(id) === request && inbound.delete(id) && inbound.size === 0) this.inbound = undefined;
  }

  private answered(p: Pending, answer: { result: unknown } | { error: AcpError }): void {
    if (!p.onAnswer) return;
    try {
      p.onAnswer(answer);
    } catch (e) {
      this.problem('handler-error', `onAnswer of ${p.method} threw: ${messageOf(e)}`, e);
    }
  }

  private onInvalidLine(info: InvalidLine): void {
    this.problem('parse', `not a JSON line: ${info.error.message}`, info);
    if (this.options.answerParseErrors !== false) {
      this.write(
        errorReply(
          null,
          AcpError.parseError(`${info.error.message} (line starts ${JSON.stringify(info.line.slice(0, 40))})`),
        ),
      );
    }
  }

  private onClosed(info: CloseInfo): void {
    if (this.closeInfo) return;
    this.closeInfo = info;
    const err = new ConnectionClosedError(info);
    // a response already received but queued behind a slow notification handler still settles
    // its request, in order; only requests with no answer in hand are rejected
    const answered = this.backlogHead < this.backlog.length ? answeredIds(this.backlog, this.backlogHead) : undefined;
    const pending = this.pending;
    if (pending)
      for (const [id, p] of pending) {
        if (answered?.has(id)) continue;
        this.forgetPending(id);
        p.reject(err);
      }
    const inbound = this.inbound;
    this.inbound = undefined;
    if (inbound) for (const c of inbound.values()) c.cancel(err);
    this.resolveClosed(info);
  }

  private problem(kind: ProtocolProblem['kind'], message: string, detail?: unknown): void {
    this.options.onProblem?.({ kind, message, detail });
  }
}

type Sink = (reply: object) => void;

/** An incoming message the transport found nested too deeply; queued like any other message. */
class TooDeep {
  constructor(
    readonly message: unknown,
    readonly limit: number,
  ) {}
}

/** Most entries one batch may hold; a bigger one is refused whole (one -32600), nothing of it runs. */
export const MAX_BATCH_ENTRIES = 1000;

/** Why a JSON array cannot be run as a batch (JSON-RPC 2.0 §6), or `undefined` when it can. */
function batchRefusal(entries: number): string | undefined {
  if (entries === 0) return 'an empty JSON array is not a batch: a batch needs at least one JSON-RPC message';
  if (entries > MAX_BATCH_ENTRIES)
    return `a batch of ${entries} entries is over the limit of ${MAX_BATCH_ENTRIES}: send at most ${MAX_BATCH_ENTRIES} per array, or one JSON-RPC object per line`;
  return undefined;
}

/**
 * True for a batch entry that gets a reply: everything but a notification and a response (the
 * same split {@link JsonRpcPeer}'s dispatch makes), so a batch knows how many replies to wait for.
 */
function expectsReply(m: unknown): boolean {
  if (!isObj(m)) return true;
  const hasId = hasOwn.call(m, 'id');
  if (typeof m.method === 'string') return hasId;
  return !(hasId && (hasOwn.call(m, 'result') || hasOwn.call(m, 'error')));
}

/** Collects the replies to one batch's entries and sends them as one array when the last is in. */
class BatchReplies {
  private readonly replies: object[] = [];
  constructor(
    private outstanding: number,
    private readonly send: (replies: object[]) => void,
  ) {}
  /** Takes one entry's reply; throws, like a direct write, when it cannot be sent as JSON. */
  readonly sink: Sink = (reply) => {
    // checked now, so the one entry gets its -32603 instead of the whole array failing later
    messageToText(reply);
    this.replies.push(reply);
    if (--this.outstanding === 0) this.send(this.replies);
  };
}

/** One entry of a batch, queued in the backlog like a single message; its reply goes to the batch. */
class BatchEntry {
  constructor(
    readonly message: unknown,
    readonly batch: BatchReplies,
  ) {}
}

function errorReply(id: WireRequestId, e: AcpError): object {
  return { jsonrpc: '2.0', id, error: e.toJSON() };
}

function answeredIds(messages: readonly unknown[], from: number): Set<unknown> {
  const ids = new Set<unknown>();
  for (let i = from; i < messages.length; i++) {
    const m = messages[i];
    if (
      isObj(m) &&
      hasOwn.call(m, 'id') &&
      (hasOwn.call(m, 'result') || hasOwn.call(m, 'error')) &&
      typeof m.method !== 'string'
    ) {
      ids.add(m.id);
    }
  }
  return ids;
}

/** The id to echo in an error reply: the request's own when valid, else `null`. */
function validId(id: unknown): WireRequestId {
  return isWireRequestId(id) ? id : null;
}

/** What a thrown value says about itself, for problem reports and -32603 messages. */
function messageOf(e: unknown): string {
  const message = e !== null && typeof e === 'object' && 'message' in e ? e.message : undefined;
  return String(message ?? e);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/**
 * Maps whatever a handler threw to the JSON-RPC error to answer with: {@link AcpError.from}, except
 * that an abort (the request was cancelled, or the handler threw an abort error) answers -32800.
 */
export function toAcpError(e: unknown, aborted = false): AcpError {
  if (e instanceof AcpError) return e;
  if (aborted || isAbortError(e)) return AcpError.cancelled();
  return AcpError.from(e);
}
