import { ROW } from './api.js';
import { KINDS, type Data, type DisplayRow } from './data.js';
import type { RowStore } from './row-store.js';

/** What the timeline shows: the filters of its header and the runs the reader expanded. */
export interface RowFilter {
  kinds: Set<string>;
  /** '' = every method, session */
  method: string;
  session: string;
  onlyViolations: boolean;
  /** seqs of the frames that match the search, undefined = no search */
  matches: Set<number> | undefined;
  /** seqs of the first frames of the chunk runs shown one row per frame */
  expanded: Set<number>;
}

/** `a` with room for `n` entries (doubled when it grows, so appending stays linear). */
function room(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  if (n <= a.length) return a;
  const b = new Int32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/**
 * The timeline's rows: the frames a {@link RowFilter} keeps, consecutive frames of one chunk group
 * (the same message, tool call or terminal) collapsed into one row unless its run is expanded.
 * Kept in typed arrays and extended as frames arrive: a page of new frames costs its own rows,
 * not a pass over the 100k before it. A new filter builds a new one (one pass, a few ms).
 */
export class DisplayRows {
  count = 0;
  /** rows of the store looked at so far */
  private scanned = 0;
  private first = new Int32Array(1024);
  /** run k's members are members[start[k] .. start[k + 1]) (the last run ends at `memberCount`) */
  private start = new Int32Array(1024);
  private members = new Int32Array(1024);
  private memberCount = 0;
  private runGroup = -1;
  private runExpanded = false;
  private readonly methodIdx: number;
  private readonly sessionIdx: number;
  private readonly changes: number;

  constructor(
    readonly store: RowStore,
    private readonly strings: string[],
    readonly filter: RowFilter,
  ) {
    this.methodIdx = filter.method === '' ? -2 : strings.indexOf(filter.method);
    this.sessionIdx = filter.session === '' ? -2 : strings.indexOf(filter.session);
    this.changes = store.changes;
  }

  /**
   * True when {@link extend} gives what a new build would: the same store and filter, and
   * nothing that decided a row already here changed (a method name new to the string table, a
   * violation found in a row already shown when only violations are shown).
   */
  extends(data: Data, filter: RowFilter): boolean {
    const f = this.filter;
    const same =
      data.store === this.store &&
      f.kinds === filter.kinds &&
      f.method === filter.method &&
      f.session === filter.session &&
      f.onlyViolations === filter.onlyViolations &&
      f.matches === filter.matches &&
      f.expanded === filter.expanded;
    if (!same) return false;
    if (filter.onlyViolations && data.store.changes !== this.changes) return false;
    return (
      (filter.method === '' || data.strings.indexOf(filter.method) === this.methodIdx) &&
      (filter.session === '' || data.strings.indexOf(filter.session) === this.sessionIdx)
    );
  }

  /** Takes in the rows added to the store since the last call. */
  extend(): void {
    const { store, strings, filter } = this;
    const allKinds = filter.kinds.size === KINDS.length;
    for (let i = this.scanned; i < store.length; i++) {
      if (!allKinds && !filter.kinds.has(strings[store.get(i, ROW.kind)] ?? '')) continue;
      if (this.methodIdx !== -2 && store.get(i, ROW.method) !== this.methodIdx) continue;
      if (this.sessionIdx !== -2 && store.get(i, ROW.session) !== this.sessionIdx) continue;
      if (filter.onlyViolations && store.get(i, ROW.violations) === 0) continue;
      if (filter.matches && !filter.matches.has(store.get(i, ROW.seq))) continue;
      const g = store.get(i, ROW.group);
      this.members = room(this.members, this.memberCount + 1);
      if (!(g >= 0 && g === this.runGroup && this.count > 0 && !this.runExpanded)) {
        this.first = room(this.first, this.count + 1);
        this.start = room(this.start, this.count + 1);
        this.first[this.count] = i;
        this.start[this.count] = this.memberCount;
        this.count++;
        this.runGroup = g;
        this.runExpanded = filter.expanded.has(store.get(i, ROW.seq));
      }
      this.members[this.memberCount++] = i;
    }
    this.scanned = store.length;
  }

  /** Display row `k` (undefined past the end). */
  row(k: number): DisplayRow | undefined {
    if (k < 0 || k >= this.count) return undefined;
    const from = this.start[k] ?? 0;
    const to = k + 1 < this.count ? (this.start[k + 1] ?? 0) : this.memberCount;
    return { first: this.first[k] ?? 0, members: this.members.subarray(from, to) };
  }

  /** The display row holding the frame at row index `ri`: a binary search (display rows are in frame order). */
  indexOfRow(ri: number): number | undefined {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const d = this.row(mid);
      if (!d) return undefined;
      const last = d.members[d.members.length - 1] ?? d.first;
      if (ri < d.first) hi = mid - 1;
      else if (ri > last) lo = mid + 1;
      else return d.members.includes(ri) ? mid : undefined;
    }
    return undefined;
  }
}

/** The display rows for `filter`: `prev` extended when it can be, else built anew. */
export function displayRows(prev: DisplayRows | undefined, data: Data, filter: RowFilter): DisplayRows {
  const d = prev && prev.extends(data, filter) ? prev : new DisplayRows(data.store, data.strings, filter);
  d.extend();
  return d;
}

/** The seqs of the frames of display row `d`. */
export function seqsOf(store: RowStore, d: DisplayRow): number[] {
  return Array.from(d.members, (i) => store.get(i, ROW.seq));
}

/** True for a run of one frame that is shown expanded (its first frame starts an expanded run). */
export function expandedFirst(d: DisplayRow, store: RowStore, expanded: Set<number>): boolean {
  return d.members.length === 1 && expanded.has(store.get(d.first, ROW.seq));
}

/** `set` with `value` added, or removed when it was there (a new set: state is never changed in place). */
export function toggled<T>(set: Set<T>, value: T): Set<T> {
  const n = new Set(set);
  if (n.has(value)) n.delete(value);
  else n.add(value);
  return n;
}
