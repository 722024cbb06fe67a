// Reads what a peer writes to an in-memory stream, one parsed JSON value per line (tests of raw wire input).
import type { Readable } from 'node:stream';

/** The parsed lines written to `from`, in order; `next` takes the oldest, `until` everything up to the one `pred` picks. */
export interface JsonLineReader {
  /** Resolves with the next parsed line (waits for it). */
  next(): Promise<any>;
  /** Resolves with every line up to and including the first that `pred` picks, removing them (waits for it). */
  until(pred: (m: any) => boolean): Promise<any[]>;
}

export function jsonLines(from: Readable): JsonLineReader {
  const got: any[] = [];
  let buf = '';
  let wake: (() => void) | undefined;
  from.setEncoding('utf8');
  from.on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      got.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
    wake?.();
  });
  const arrived = () => new Promise<void>((r) => (wake = r));
  return {
    async next() {
      while (got.length === 0) await arrived();
      return got.shift();
    },
    async until(pred) {
      for (;;) {
        const at = got.findIndex(pred);
        if (at >= 0) return got.splice(0, at + 1);
        await arrived();
      }
    },
  };
}
