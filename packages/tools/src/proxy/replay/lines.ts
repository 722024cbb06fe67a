import type { Readable, Writable } from 'node:stream';

/**
 * Splits a byte stream into lines (`\n`, a `\r` before it is kept like captures keep it) and hands
 * them out one at a time; `next()` resolves `undefined` once the stream has ended and every line
 * was taken. A last line without `\n` is delivered at the end.
 */
export class LineQueue {
  private readonly lines: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private partial: Buffer[] = [];
  private ended = false;
  /** Resolves when the stream has ended (all lines may not have been taken yet). */
  readonly closed: Promise<void>;

  constructor(input: Readable) {
    let onClosed!: () => void;
    this.closed = new Promise((resolve) => (onClosed = resolve));
    input.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      let start = 0;
      let nl = buf.indexOf(10);
      while (nl !== -1) {
        const part = buf.subarray(start, nl);
        const line = this.partial.length > 0 ? Buffer.concat([...this.partial, part]) : part;
        this.partial = [];
        this.push(line.toString('utf8'));
        start = nl + 1;
        nl = buf.indexOf(10, start);
      }
      if (start < buf.length) this.partial.push(buf.subarray(start));
    });
    const end = (): void => {
      if (this.ended) return;
      if (this.partial.length > 0) {
        const rest = Buffer.concat(this.partial).toString('utf8');
        this.partial = [];
        this.push(rest);
      }
      this.ended = true;
      onClosed();
      this.wake(undefined);
    };
    input.once('end', end);
    input.once('close', end);
    input.once('error', end);
  }

  /** The next line, or `undefined` at the end of the stream. */
  next(): Promise<string | undefined> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  private push(line: string): void {
    if (this.waiter) this.wake(line);
    else this.lines.push(line);
  }

  private wake(line: string | undefined): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.(line);
  }
}

/** Writes one line and waits for the stream to drain when its buffer is full (backpressure). */
export async function writeLine(out: Writable, line: string): Promise<void> {
  if (out.destroyed || out.writableEnded) return;
  if (!out.write(line + '\n')) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        out.off('drain', done);
        out.off('close', done);
        out.off('error', done);
        resolve();
      };
      out.once('drain', done);
      out.once('close', done);
      out.once('error', done);
    });
  }
}
