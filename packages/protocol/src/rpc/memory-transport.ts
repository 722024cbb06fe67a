import { RawJson, RawMessage } from './raw-value.js';
import type { CloseInfo, Transport, TransportHandlers } from './transport.js';

/** How a {@link MemoryTransport} pair hands messages over. */
export interface MemoryTransportOptions {
  /**
   * When a batch of queued messages is delivered: `microtask` (default) delivers everything one side
   * sent in a synchronous run at the next microtask checkpoint, so a message crosses several
   * in-process hops within one turn of the event loop; `macrotask` waits for `setImmediate`, letting
   * I/O run between batches (larger batches, one event-loop turn per hop).
   */
  delivery?: 'microtask' | 'macrotask';
  /** Messages queued towards the other side before {@link Transport.whenWritable} waits (default 1024). */
  highWaterMark?: number;
  /**
   * Deep-freeze every message handed over (and the parsed value of a `RawJson` payload in it), so that
   * code that changes a message in place, on either side, throws instead of changing what the other
   * side holds. For tests and debugging: it walks each message. Default false.
   */
  freeze?: boolean;
  /**
   * Which ends take payloads left as received text (`RawJson` params or results, as a stdio transport
   * with `rawPayload` delivers them to a hop that only routes): `true` for both, or `[first, second]`
   * for the ends {@link createMemoryTransportPair} returns. An end that does not take them (the
   * default) gets such a message as a copy with the payload parsed, as any JSON-RPC peer expects.
   */
  rawPayload?: boolean | readonly [boolean, boolean];
}

/**
 * Messages on their way to one side of a pair. Delivered in order, in batches, never inside `send`:
 * a handler always runs on a fresh stack, as it would after a read from a pipe.
 */
class Inbox {
  private queue: unknown[] = [];
  private scheduled = false;
  /** Set when the sending side closed: delivered after the messages it sent before closing. */
  private ended: CloseInfo | undefined;
  /** The sender's `flush` / `whenWritable` waiters, resolved when a batch has been handed over. */
  private waiters: Array<() => void> = [];

  constructor(
    private readonly receiver: MemoryTransport,
    private readonly delivery: 'microtask' | 'macrotask',
  ) {}

  get size(): number {
    return this.queue.length;
  }

  push(message: unknown): void {
    this.queue.push(message);
    this.schedule();
  }

  end(info: CloseInfo): void {
    this.ended ??= info;
    this.schedule();
  }

  /** Forgets what is queued (the receiver closed: nothing will read it) and releases the sender's waiters. */
  clear(): void {
    this.queue = [];
    this.release();
  }

  waitDelivered(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.delivery === 'microtask') queueMicrotask(this.run);
    else setImmediate(this.run);
  }

  /** Called by the receiver's `start`: what arrived before it had handlers. */
  kick(): void {
    if (this.queue.length > 0 || this.ended) this.schedule();
  }

  private readonly run = (): void => {
    this.scheduled = false;
    if (!this.receiver.started) return;
    const batch = this.queue;
    this.queue = [];
    this.receiver.deliver(batch);
    this.release();
    // the sender closed: the receiver ends once it has read everything sent before (like EOF)
    if (this.ended && this.queue.length === 0) this.receiver.close(this.ended);
  };

  private release(): void {
    if (this.waiters.length === 0) return;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/**
 * One end of an in-memory transport pair ({@link createMemoryTransportPair}): it hands message objects
 * to the other end as they are, without serialising them. The receiver gets the sender's object, so
 * neither side may change a message it sent or received (a JSON-RPC peer does not). A
 * {@link RawMessage} (a line a text hop built) is parsed on the way, as a stdio transport's reader
 * would. There is no line, so none of the stdio transport's line errors (invalid JSON, too deep,
 * too long) can happen.
 */
export class MemoryTransport implements Transport {
  private handlers: TransportHandlers | undefined;
  private closed = false;
  /** Set by {@link createMemoryTransportPair}. */
  private link: { inbox: Inbox; outbox: Inbox; other: MemoryTransport; hwm: number; freeze: boolean } | undefined;
  /** This end takes `RawJson` payloads as they are (see {@link MemoryTransportOptions.rawPayload}). */
  private rawPayload = false;

  /**
   * True once `start` has given the transport its handlers.
   * @internal
   */
  get started(): boolean {
    return this.handlers !== undefined;
  }

  /**
   * Wires two ends to each other (see {@link createMemoryTransportPair}).
   * @internal
   */
  static connect(a: MemoryTransport, b: MemoryTransport, options: MemoryTransportOptions = {}): void {
    const delivery = options.delivery ?? 'microtask';
    const hwm = options.highWaterMark ?? 1024;
    const toA = new Inbox(a, delivery);
    const toB = new Inbox(b, delivery);
    const freeze = options.freeze === true;
    const raw = options.rawPayload ?? false;
    [a.rawPayload, b.rawPayload] = typeof raw === 'boolean' ? [raw, raw] : raw;
    a.link = { inbox: toA, outbox: toB, other: b, hwm, freeze };
    b.link = { inbox: toB, outbox: toA, other: a, hwm, freeze };
  }

  start(handlers: TransportHandlers): void {
    if (this.handlers) return;
    this.handlers = handlers;
    this.link?.inbox.kick();
  }

  send(message: object): void {
    const link = this.link;
    if (this.closed || !link || link.other.closed) return;
    let m: unknown = message instanceof RawMessage ? JSON.parse(message.text) : message;
    if (!link.other.rawPayload) m = plainPayload(m);
    link.outbox.push(link.freeze ? deepFreeze(m) : m);
  }

  whenWritable(): Promise<void> {
    const link = this.link;
    if (this.closed || !link || link.other.closed || link.outbox.size < link.hwm) return Promise.resolve();
    return link.outbox.waitDelivered();
  }

  flush(): Promise<void> {
    const link = this.link;
    if (this.closed || !link || link.other.closed || link.outbox.size === 0) return Promise.resolve();
    return link.outbox.waitDelivered();
  }

  /**
   * Ends this side: what it has not read yet is dropped; what it sent is still delivered, then the
   * other side closes with the same `info`.
   */
  close(info: CloseInfo = { reason: 'closed locally' }): void {
    if (this.closed) return;
    this.closed = true;
    this.link?.inbox.clear();
    this.link?.outbox.end(info);
    this.handlers?.onClose(info);
  }

  /**
   * Hands a batch to the handlers, in order. A handler that throws ends the connection (both sides,
   * the error in the {@link CloseInfo}), as an uncaught error ends a process behind a pipe; the
   * messages after it are dropped. The process itself goes on.
   * @internal
   */
  deliver(batch: readonly unknown[]): void {
    const handlers = this.handlers;
    if (!handlers) return;
    for (const message of batch) {
      if (this.closed) return;
      try {
        handlers.onMessage(message);
      } catch (e) {
        const error = e instanceof Error ? e : new Error(String(e));
        this.close({ reason: `the message handler threw: ${error.message}`, error });
        return;
      }
    }
  }

  /**
   * Messages between the two ends not handed over yet, both ways: 0 when nothing is on its way
   * (a conductor lets a notification go past an idle in-process component only then).
   */
  get inFlight(): number {
    return this.link ? this.link.inbox.size + this.link.outbox.size : 0;
  }

  /** True once this side has closed. */
  get isClosed(): boolean {
    return this.closed;
  }
}

/**
 * `m` for an end that does not take `RawJson`: a copy with its params, its result, or the params a
 * `proxy/successor` envelope wraps parsed (where a routing hop leaves received text); `m` itself
 * when it has none.
 */
function plainPayload(m: unknown): unknown {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return m;
  let copy: { [key: string]: unknown } | undefined;
  if ('params' in m) {
    const params = m.params;
    if (params instanceof RawJson) copy = { ...m, params: params.value };
    else if (typeof params === 'object' && params !== null && 'params' in params && params.params instanceof RawJson)
      copy = { ...m, params: { ...params, params: params.params.value } };
  }
  if ('result' in m && m.result instanceof RawJson) copy = { ...(copy ?? m), result: m.result.value };
  return copy ?? m;
}

/** `v` and everything inside it frozen; a `RawJson` is parsed first and its value frozen too. */
function deepFreeze(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  if (v instanceof RawJson) deepFreeze(v.value);
  Object.freeze(v);
  for (const member of Object.values(v)) deepFreeze(member);
  return v;
}

/**
 * Two {@link Transport}s wired to each other in memory, for a peer and the component or agent it talks
 * to in the same process (a conductor's in-process components, tests): message objects cross as they
 * are, in order, delivered asynchronously ({@link MemoryTransportOptions.delivery}); closing one side
 * closes the other once it has read what was sent before.
 */
export function createMemoryTransportPair(options: MemoryTransportOptions = {}): [MemoryTransport, MemoryTransport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  MemoryTransport.connect(a, b, options);
  return [a, b];
}
