/**
 * Newline-delimited JSON framing (ACP-ALL-TRANS-04): splits a byte stream into lines,
 * tolerating chunk boundaries anywhere (including inside UTF-8 sequences), CRLF, a BOM,
 * blank lines and very long lines (kept as chunk lists until the newline arrives, so a
 * 50 MB line costs one concatenation).
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partsLength = 0;
  private overflow = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onTooLong: (bytes: number) => void,
    private readonly maxLineBytes = 512 * 1024 * 1024,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    const n = chunk.length;
    while (start < n) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.keep(chunk.subarray(start));
        return;
      }
      if (this.partsLength === 0 && !this.overflow) {
        this.emit(chunk, start, nl);
      } else {
        this.keep(chunk.subarray(start, nl));
        if (this.overflow) {
          this.onTooLong(this.partsLength);
        } else {
          const whole = Buffer.concat(this.parts, this.partsLength);
          this.emit(whole, 0, whole.length);
        }
        this.parts = [];
        this.partsLength = 0;
        this.overflow = false;
      }
      start = nl + 1;
    }
  }

  /** Flushes a final line that had no trailing newline. */
  end(): void {
    if (this.partsLength > 0 || this.overflow) {
      if (this.overflow) this.onTooLong(this.partsLength);
      else {
        const whole = Buffer.concat(this.parts, this.partsLength);
        this.emit(whole, 0, whole.length);
      }
    }
    this.parts = [];
    this.partsLength = 0;
    this.overflow = false;
  }

  private keep(piece: Buffer): void {
    if (piece.length === 0) return;
    this.partsLength += piece.length;
    if (this.overflow) return;
    if (this.partsLength > this.maxLineBytes) {
      this.overflow = true;
      this.parts = [];
      return;
    }
    // copy: the caller may reuse its buffer
    this.parts.push(Buffer.from(piece));
  }

  private emit(buf: Buffer, start: number, end: number): void {
    // a UTF-8 BOM may open the stream (or a line written by a naive logger)
    if (buf[start] === 0xef && end - start >= 3 && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
    if (end > start && buf[end - 1] === 13) end--;
    // skip blank / whitespace-only lines cheaply
    let s = start;
    while (s < end && (buf[s] === 32 || buf[s] === 9 || buf[s] === 13)) s++;
    if (s === end) return;
    if (end - start > this.maxLineBytes) {
      this.onTooLong(end - start);
      return;
    }
    this.onLine(buf.toString('utf8', s, end));
  }
}
