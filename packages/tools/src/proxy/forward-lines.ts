import type { Readable, Writable } from 'node:stream';
import type { FrameDirection } from '../captures/frame.js';

/**
 * Longest line the recording/validating proxy holds whole (256 MiB): a longer one is forwarded as
 * its bytes come and recorded truncated. A line must become a JavaScript string to be recorded and
 * checked, and V8 cannot make strings of much more than 512 M characters: past that the proxy died.
 */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/** How much of an over-long line is kept for the capture. */
const HEAD_BYTES = 64 * 1024;

/** What {@link forwardLines} hands over for each line. */
export interface LineSink {
  /** A complete line (without its `\n`), before its bytes are forwarded. */
  line(dir: FrameDirection, bytes: Buffer): void;
  /** A line longer than the limit, after it was forwarded: its first bytes and its length. */
  oversize(dir: FrameDirection, head: Buffer, bytes: number): void;
}

/** The first `n` bytes of `parts` together. */
function headOf(parts: readonly Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let left = n;
  for (const p of parts) {
    if (left <= 0) break;
    out.push(p.subarray(0, left));
    left -= Math.min(left, p.length);
  }
  return Buffer.concat(out);
}

/**
 * Hands the complete lines of `chunk` (the first at `nl`, `before` the held start of the first) to
 * `sink`, inside one `batch`; returns where the incomplete rest of `chunk` starts.
 */
function recordLines(
  chunk: Buffer,
  firstNl: number,
  before: readonly Buffer[],
  dir: FrameDirection,
  sink: LineSink,
  batch: { begin(): void; end(): void } | undefined,
  maxLineBytes: number,
): number {
  let start = 0;
  batch?.begin();
  try {
    for (let nl = firstNl; nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      const line = start === 0 && before.length > 0 ? Buffer.concat([...before, part]) : part;
      if (line.length > maxLineBytes) sink.oversize(dir, line.subarray(0, HEAD_BYTES), line.length);
      else sink.line(dir, line);
      start = nl + 1;
    }
  } finally {
    // on disk before forwarded
    batch?.end();
  }
  return start;
}

/** Runs `fn` inside one batch, so that what it records is flushed together even when it throws. */
function inBatch(batch: { begin(): void; end(): void } | undefined, fn: () => void): void {
  batch?.begin();
  try {
    fn();
  } finally {
    batch?.end();
  }
}

function sumBytes(parts: Buffer[]): number {
  return parts.reduce((n, b) => n + b.length, 0);
}

/**
 * Splits `from` into lines, hands each to `sink.line` (record, check) and then writes the bytes
 * unchanged to `to`, honouring backpressure. A last line without `\n` is handled at EOF. A line
 * longer than `maxLineBytes` is not held: its bytes are forwarded as they come (unchanged) and
 * `sink.oversize` gets its head once it ended, so the proxy neither dies nor stalls on it.
 */
export function forwardLines(
  from: Readable,
  to: Writable,
  dir: FrameDirection,
  sink: LineSink,
  endTarget: boolean,
  batch: { begin(): void; end(): void } | undefined,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): void {
  // bytes of a line not complete yet: neither recorded nor forwarded
  let held: Buffer[] = [];
  let heldBytes = 0;
  // an over-long line in progress: forwarded as it comes, its head kept for the record
  let over: { head: Buffer; bytes: number } | undefined;
  // one wait per backpressure episode: an over-long line writes all its held chunks at once
  let waitingForDrain = false;
  const write = (out: Buffer): void => {
    if (!to.write(out) && !waitingForDrain) {
      waitingForDrain = true;
      from.pause();
      to.once('drain', () => {
        waitingForDrain = false;
        from.resume();
      });
    }
  };
  const recordOver = (): void => {
    const o = over;
    over = undefined;
    if (!o) return;
    inBatch(batch, () => sink.oversize(dir, o.head, o.bytes));
  };
  const goOver = (parts: Buffer[], bytes: number): void => {
    over = { head: headOf(parts, HEAD_BYTES), bytes };
    for (const p of parts) write(p);
  };
  const onData = (chunk: Buffer): void => {
    if (over) {
      const nl = chunk.indexOf(10);
      const part = nl === -1 ? chunk : chunk.subarray(0, nl);
      // the head may have started in held bytes shorter than it
      if (over.head.length < HEAD_BYTES)
        over.head = Buffer.concat([over.head, part.subarray(0, HEAD_BYTES - over.head.length)]);
      over.bytes += part.length;
      write(nl === -1 ? chunk : chunk.subarray(0, nl + 1));
      if (nl === -1) return;
      recordOver();
      if (nl + 1 < chunk.length) onData(chunk.subarray(nl + 1));
      return;
    }
    const nl = chunk.indexOf(10);
    if (nl === -1 || heldBytes + nl > maxLineBytes) {
      if (heldBytes + (nl === -1 ? chunk.length : nl) > maxLineBytes) {
        const before = held;
        held = [];
        heldBytes = 0;
        if (nl === -1) goOver([...before, chunk], sumBytes(before) + chunk.length);
        else {
          goOver(before, sumBytes(before));
          onData(chunk);
        }
        return;
      }
      held.push(chunk);
      heldBytes += chunk.length;
      return;
    }
    const before = held;
    held = [];
    heldBytes = 0;
    const start = recordLines(chunk, nl, before, dir, sink, batch, maxLineBytes);
    // forward the whole lines only after they were recorded; the rest goes with its newline
    const head = chunk.subarray(0, start);
    write(before.length > 0 ? Buffer.concat([...before, head]) : head);
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (rest.length > maxLineBytes) goOver([rest], rest.length);
      else {
        held.push(rest);
        heldBytes = rest.length;
      }
    }
  };
  from.on('data', onData);
  from.once('end', () => {
    if (over) recordOver();
    else if (held.length > 0) {
      const rest = Buffer.concat(held);
      held = [];
      heldBytes = 0;
      inBatch(batch, () => sink.line(dir, rest));
      to.write(rest);
    }
    if (endTarget) to.end();
  });
}
