import { ROW, type RowTuple } from './api.js';

/** Fields of one row ({@link RowTuple}). */
const STRIDE = 15;

/**
 * The timeline rows of one source, in columns: one Float64Array, {@link STRIDE} numbers a row.
 * 100k rows as 100k small arrays kept the garbage collector busy for tens of milliseconds at a
 * time (every scavenge copied the survivors, every full collection marked them); here the rows
 * the server sends die young once copied in, and what stays is one buffer. Grows in place: the
 * page's memos see a new {@link Data} version, not a new store.
 */
export class RowStore {
  private cols = new Float64Array(STRIDE * 1024);
  private count = 0;
  private readonly bySeq = new Map<number, number>();
  /** string-table indexes used as method / session by some row (the filters' options) */
  readonly methodIds = new Set<number>();
  readonly sessionIds = new Set<number>();
  /** bumped when a row already shown changes (latency, pair, violations arrive later) */
  changes = 0;

  get length(): number {
    return this.count;
  }

  /** Field `field` (a {@link ROW} index) of row `i`. */
  get(i: number, field: number): number {
    return this.cols[i * STRIDE + field] ?? -1;
  }

  /** The row index of the frame with `seq`, if it is here. */
  indexOf(seq: number): number | undefined {
    return this.bySeq.get(seq);
  }

  /** Adds `r`, or replaces the row with its seq (a later state of the same frame). */
  put(r: RowTuple): void {
    const seq = r[ROW.seq];
    let i = this.bySeq.get(seq);
    if (i === undefined) {
      i = this.count++;
      this.bySeq.set(seq, i);
      if (this.count * STRIDE > this.cols.length) this.grow();
    } else this.changes++;
    // a field the tuple ends before (a row without a hop or a summary) is -1: none
    for (let k = 0; k < STRIDE; k++) this.cols[i * STRIDE + k] = r[k] ?? -1;
    if (r[ROW.method] >= 0) this.methodIds.add(r[ROW.method]);
    if (r[ROW.session] >= 0) this.sessionIds.add(r[ROW.session]);
  }

  /** Replaces the row with `r`'s seq; a row not (yet) here is ignored. */
  change(r: RowTuple): void {
    if (this.bySeq.has(r[ROW.seq])) this.put(r);
  }

  /**
   * What can change about row `i` once it is shown: its answer (latency, pair) and violations.
   * The frame detail asks the server again when this changes.
   */
  signature(i: number): string {
    return `${this.get(i, ROW.latency)}|${this.get(i, ROW.pair)}|${this.get(i, ROW.violations)}`;
  }

  private grow(): void {
    const next = new Float64Array(this.cols.length * 2);
    next.set(this.cols);
    this.cols = next;
  }
}
