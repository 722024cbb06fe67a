/**
 * A byte buffer that keeps only the newest `limit` bytes of a stream and decodes them as
 * UTF-8 without ever returning a broken character (ACP-V1-TERM-03).
 */
export class TailByteBuffer {
  private chunks: Buffer[] = [];
  private total = 0;
  private dropped = false;

  /** @param limit maximum bytes retained (`Infinity` = unbounded) */
  constructor(readonly limit: number) {}

  /** True once any byte was dropped. */
  get truncated(): boolean {
    return this.dropped;
  }

  /** Bytes currently retained. */
  get byteLength(): number {
    return this.total;
  }

  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (chunk.length >= this.limit) {
      // the chunk alone fills the buffer: keep its tail only
      if (this.total > 0 || chunk.length > this.limit) this.dropped = true;
      this.chunks = this.limit > 0 ? [Buffer.from(chunk.subarray(chunk.length - this.limit))] : [];
      this.total = this.chunks.length ? this.limit : 0;
      return;
    }
    this.chunks.push(chunk);
    this.total += chunk.length;
    while (this.total > this.limit) {
      this.dropped = true;
      const first = this.chunks[0];
      // total counts the retained chunks only, so over the limit there is a first one
      if (first === undefined) break;
      const excess = this.total - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.total -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.total -= excess;
      }
    }
  }

  /**
   * The retained bytes as a string. When bytes were dropped, a partial character at the front
   * is skipped; unless `final`, an incomplete character at the end (a write split mid-character)
   * is held back until its remaining bytes arrive. Invalid sequences become U+FFFD; the result
   * is trimmed from the front if that replacement would push it over the byte limit.
   */
  read(final: boolean): string {
    const [only] = this.chunks;
    let bytes = this.chunks.length === 1 && only !== undefined ? only : Buffer.concat(this.chunks, this.total);
    let start = 0;
    if (this.dropped) {
      // skip UTF-8 continuation bytes (10xxxxxx) left over from a dropped lead byte
      while (start < bytes.length && start < 3 && (bytes.readUInt8(start) & 0xc0) === 0x80) start++;
    }
    let end = bytes.length;
    if (!final) end = completeUtf8Prefix(bytes, start);
    bytes = bytes.subarray(start, end);
    let text = bytes.toString('utf8');
    if (Number.isFinite(this.limit) && Buffer.byteLength(text, 'utf8') > this.limit) {
      // U+FFFD (3 bytes) replaced shorter invalid sequences: drop characters from the front
      const chars = Array.from(text);
      let size = Buffer.byteLength(text, 'utf8');
      let i = 0;
      for (const ch of chars) {
        if (size <= this.limit) break;
        size -= Buffer.byteLength(ch, 'utf8');
        i++;
      }
      text = chars.slice(i).join('');
    }
    return text;
  }
}

/** Length of `bytes` without a trailing incomplete UTF-8 sequence (from `start`). */
function completeUtf8Prefix(bytes: Buffer, start: number): number {
  const end = bytes.length;
  // look back at most 3 bytes for the lead byte of the last sequence
  for (let i = end - 1; i >= Math.max(start, end - 4); i--) {
    const b = bytes.readUInt8(i);
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return end - i < need && need > 1 ? i : end;
  }
  return end;
}
