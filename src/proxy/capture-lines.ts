/**
 * Line splitting for the capture reader. `node:readline` decodes every chunk to a string, runs a
 * regex over it and concatenates partial lines as strings: ~0.8 s per 100 MB of capture. Splitting
 * the bytes first and decoding each line once costs about half of that, and captures reach
 * hundreds of MB.
 */

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into UTF-8 lines with the semantics of
 * `readline.createInterface({ input, crlfDelay: Infinity })` over a stream read as `utf8`:
 * `\n`, `\r\n` and a lone `\r` each end a line (also when `\r` and `\n` arrive in different
 * chunks), a last line without a line ending is yielded when it is not empty, and bytes that are
 * not valid UTF-8 decode to U+FFFD. A line may span any number of chunks, and a multi-byte
 * character may be split between two chunks: lines are decoded only once they are complete.
 * Stopping the iteration early stops reading the source (it is returned/destroyed).
 */
export async function* splitLines(source: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<string> {
  for await (const lines of splitLineBatches(source)) yield* lines;
}

/**
 * {@link splitLines}, one array of lines per source chunk (a chunk that completes no line yields
 * nothing): a 100 MB capture has ~10^5..10^6 lines, and every step of an async iterator costs a
 * promise round; per chunk it is ~1600 of them.
 */
export async function* splitLineBatches(source: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<string[]> {
  /** Pieces of the line being collected (bytes after the last line ending seen). */
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** The previous chunk ended with `\r`: a `\n` at the start of the next one belongs to it. */
  let sawCr = false;
  for await (const piece of source) {
    const lines: string[] = [];
    const chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let start = 0;
    if (sawCr && chunk.length > 0) {
      if (chunk[0] === LF) start = 1;
      sawCr = false;
    }
    const end = chunk.length;
    // the next `\r` at or after `start` (-1: none left in this chunk); most captures have none,
    // so this costs one scan per chunk
    let nextCr = chunk.indexOf(CR, start);
    while (start < end) {
      const nl = chunk.indexOf(LF, start);
      let stop: number; // end of the line's bytes
      let next: number; // where the next line starts
      if (nextCr >= 0 && (nl < 0 || nextCr < nl)) {
        stop = nextCr;
        if (nextCr + 1 < end) next = chunk[nextCr + 1] === LF ? nextCr + 2 : nextCr + 1;
        else {
          next = end;
          sawCr = true;
        }
        nextCr = next < end ? chunk.indexOf(CR, next) : -1;
      } else if (nl >= 0) {
        stop = nl;
        next = nl + 1;
      } else break;
      if (pendingBytes === 0) lines.push(chunk.toString('utf8', start, stop));
      else {
        pending.push(chunk.subarray(start, stop));
        const line = Buffer.concat(pending, pendingBytes + stop - start).toString('utf8');
        pending = [];
        pendingBytes = 0;
        lines.push(line);
      }
      start = next;
    }
    if (start < end) {
      // file streams hand out a fresh buffer per chunk, so a view is enough (no copy)
      pending.push(chunk.subarray(start, end));
      pendingBytes += end - start;
    }
    if (lines.length > 0) yield lines;
  }
  if (pendingBytes > 0) yield [Buffer.concat(pending, pendingBytes).toString('utf8')];
}
