import type { Readable, Writable } from 'node:stream';
import { MAX_JSON_DEPTH, mayHaveUnsafeId, nestedDeeperThan, restoreExactIds, stringifyMessage } from './json-guard.js';
import { LineSplitter } from './ndjson.js';
import { readLazyMessage } from './envelope-scan.js';
import { RawMessage } from './raw-value.js';
import type { CloseInfo, Transport, TransportHandlers } from './transport.js';

export interface StreamTransportOptions {
  /** Longest accepted line in bytes (default 512 MiB); longer lines are reported and skipped. */
  maxLineBytes?: number;
  /** Bytes buffered before {@link Transport.whenWritable} waits (default 4 MiB). */
  highWaterMark?: number;
  /** End the writable side on close (default true). */
  endOnClose?: boolean;
  /**
   * Deepest nesting of objects/arrays accepted in one incoming message (default
   * {@link MAX_JSON_DEPTH} = 128); deeper messages go to {@link TransportHandlers.onTooDeep}.
   */
  maxDepth?: number;
  /**
   * Deliver a message's `params` / `result` object or array unparsed, as `RawJson` text that
   * {@link Transport.send} writes back as received (for hops that only route: a proxy chain's
   * conductor, a pass-through component). Lines the envelope scanner does not take are parsed as
   * usual. Default false.
   */
  rawPayload?: boolean;
  /**
   * With `rawPayload`: sees each message the envelope scanner read, before it is delivered, and
   * returns true when it took the message (a routing hop that forwarded it as text, see
   * {@link RawMessage}): the message is then not delivered to the handlers. Called in arrival order,
   * synchronously, so what it forwards keeps its place among the messages that are delivered.
   * `line` is the text the message was read from.
   */
  bypass?: (message: Record<string, unknown>, line: string) => boolean;
}

/**
 * Newline-delimited JSON over a pair of Node streams (the stdio transport, ACP-ALL-TRANS-03/04).
 * Writes are coalesced per macrotask into one large `write()`, and `drain` is honoured:
 * while the OS pipe is full, messages accumulate in memory in order.
 */
const FLUSH_BYTES = 64 * 1024;
/** How long the input is still read after the output closed (see `start`). */
const OUTPUT_CLOSED_READ_MS = 1000;

export class StreamTransport implements Transport {
  private handlers: TransportHandlers | undefined;
  private queue: string[] = [];
  private queuedBytes = 0;
  private scheduled = false;
  private waitingDrain = false;
  private closed = false;
  /** Why the output is gone while the input is still read to its end (see `closeAfterInput`). */
  private outputGone: CloseInfo | undefined;
  private writableWaiters: Array<() => void> = [];
  private flushWaiters: Array<() => void> = [];
  private readonly hwm: number;
  private readonly maxDepth: number;
  private readonly splitter: LineSplitter;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: StreamTransportOptions = {},
  ) {
    this.hwm = options.highWaterMark ?? 4 * 1024 * 1024;
    this.maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
    this.splitter = new LineSplitter(
      (line) => this.onLine(line),
      (bytes) =>
        this.handlers?.onInvalidLine({
          line: `<${bytes} bytes>`,
          error: new Error(
            `line of ${bytes} bytes exceeds the limit of ${options.maxLineBytes ?? 512 * 1024 * 1024} bytes`,
          ),
        }),
      options.maxLineBytes,
    );
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.input.on('data', (chunk: Buffer | string) => {
      this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    });
    this.input.on('end', () => {
      this.splitter.end();
      this.close(this.outputGone ?? { reason: 'input stream ended' });
    });
    this.input.on('error', (error) => this.close({ reason: `input stream failed: ${error.message}`, error }));
    // a write that fails (EPIPE: the child exited) loses nothing the child wrote before it went
    this.output.on('error', (error) =>
      this.closeAfterInput({ reason: `output stream failed: ${error.message}`, error }),
    );
    this.output.on('close', () => this.closeAfterInput({ reason: 'output stream closed' }));
  }

  /**
   * Nothing can be written any more, but what the other side wrote before it went away may still
   * be unread: Node destroys a child's stdin as soon as the child exits, possibly before its last
   * stdout lines (a final answer, a usage line) were read, and a write to it then fails with EPIPE.
   * Read the input to its end first, for a short while at most (a peer that closed only its
   * reading side would otherwise keep us open); then close with `info`.
   */
  private closeAfterInput(info: CloseInfo): void {
    if (this.closed || this.outputGone !== undefined) return;
    if (this.input.readableEnded || this.input.destroyed) {
      this.close(info);
      return;
    }
    this.outputGone = info;
    this.waitingDrain = false;
    this.queue = [];
    this.queuedBytes = 0;
    this.resolveWritable();
    this.resolveFlush();
    setTimeout(() => this.close(info), OUTPUT_CLOSED_READ_MS).unref();
  }

  private onLine(line: string): void {
    if (this.options.rawPayload) {
      const m = readLazyMessage(line, this.maxDepth);
      if (m !== undefined) {
        if (this.options.bypass?.(m, line) === true) return;
        this.handlers?.onMessage(m);
        return;
      }
    }
    // checked before parsing: V8's JSON.parse is iterative, but everything after it
    // (validators, stringify, handlers) recurses
    const tooDeep = nestedDeeperThan(line, this.maxDepth);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      this.handlers?.onInvalidLine({
        line: line.length > 200 ? line.slice(0, 200) + '…' : line,
        error: e instanceof Error ? e : new Error(String(e)),
      });
      return;
    }
    // ids JSON.parse changed (beyond 2^53, beyond a double's digits): take their text from the line
    if (mayHaveUnsafeId(value, line)) value = restoreExactIds(value, line);
    if (tooDeep) {
      if (this.handlers?.onTooDeep) this.handlers.onTooDeep(value, this.maxDepth);
      else
        this.handlers?.onInvalidLine({
          line: line.slice(0, 200) + '…',
          error: new Error(`message nested deeper than ${this.maxDepth} levels`),
        });
      return;
    }
    this.handlers?.onMessage(value);
  }

  send(message: object): void {
    if (this.closed || this.outputGone !== undefined) return;
    // an exact id (bigint, ExactNumberId) is written as it came; anything else unserializable throws
    const s = message instanceof RawMessage ? message.text : stringifyMessage(message);
    this.queue.push(s);
    this.queuedBytes += s.length + 1;
    if (this.waitingDrain) return;
    // A producer that never yields to the event loop must not build one huge burst: hand
    // 64 KiB batches to the OS as they fill, so the reader works while we produce.
    if (this.queuedBytes >= FLUSH_BYTES) this.flushNow();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.onImmediate);
    }
  }

  private readonly onImmediate = (): void => {
    this.scheduled = false;
    this.flushNow();
  };

  private readonly flushNow = (): void => {
    if (this.closed || this.queue.length === 0) {
      this.resolveFlush();
      return;
    }
    const data = this.queue.length === 1 ? this.queue[0] + '\n' : this.queue.join('\n') + '\n';
    this.queue = [];
    this.queuedBytes = 0;
    const ok = this.output.write(data);
    if (ok) {
      this.resolveWritable();
      this.resolveFlush();
    } else {
      this.waitingDrain = true;
      this.output.once('drain', () => {
        this.waitingDrain = false;
        if (this.queue.length > 0) this.flushNow();
        else {
          this.resolveWritable();
          this.resolveFlush();
        }
      });
    }
  };

  private resolveWritable(): void {
    if (this.writableWaiters.length === 0) return;
    const w = this.writableWaiters;
    this.writableWaiters = [];
    for (const f of w) f();
  }

  private resolveFlush(): void {
    if (this.flushWaiters.length === 0 || this.queue.length > 0 || this.waitingDrain) return;
    const w = this.flushWaiters;
    this.flushWaiters = [];
    for (const f of w) f();
  }

  whenWritable(): Promise<void> {
    if (this.closed || this.outputGone !== undefined || (!this.waitingDrain && this.queuedBytes < this.hwm))
      return Promise.resolve();
    return new Promise((resolve) => this.writableWaiters.push(resolve));
  }

  flush(): Promise<void> {
    if (this.closed || this.outputGone !== undefined || (this.queue.length === 0 && !this.waitingDrain))
      return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  close(info: CloseInfo = { reason: 'closed locally' }): void {
    if (this.closed) return;
    // hand over whatever is still queued before ending (also while waiting for drain: the
    // stream buffers it, and dropping it would lose the last messages to a slow reader)
    if (this.queue.length > 0) {
      try {
        this.output.write(this.queue.join('\n') + '\n');
      } catch {
        /* the stream is gone */
      }
      this.queue = [];
    }
    this.closed = true;
    this.resolveWritable();
    const fw = this.flushWaiters;
    this.flushWaiters = [];
    for (const f of fw) f();
    if (this.options.endOnClose !== false && this.outputGone === undefined) {
      try {
        this.output.end();
      } catch {
        /* ignore */
      }
    }
    this.input.removeAllListeners('data');
    this.handlers?.onClose(info);
  }
}

/** The stdio transport of an agent process: reads stdin, writes stdout. */
export function stdioTransport(options?: StreamTransportOptions): StreamTransport {
  return new StreamTransport(process.stdin, process.stdout, options);
}
