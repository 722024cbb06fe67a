import { ROW, type RowTuple } from './api.js';
import { KINDS, type Data, type DisplayRow } from './data.js';

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

/**
 * The timeline's rows: the frames `filter` keeps, consecutive frames of one chunk group (the
 * same message, tool call or terminal) collapsed into one row unless its run is expanded.
 */
export function displayRows(data: Data, filter: RowFilter): DisplayRow[] {
  const { strings, rows } = data;
  const { kinds, onlyViolations, matches, expanded } = filter;
  const out: DisplayRow[] = [];
  const methodIdx = filter.method === '' ? -2 : strings.indexOf(filter.method);
  const sessionIdx = filter.session === '' ? -2 : strings.indexOf(filter.session);
  const allKinds = kinds.size === KINDS.length;
  let runGroup = -1;
  let run: DisplayRow | undefined;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (!r) continue;
    if (!allKinds && !kinds.has(strings[r[ROW.kind]] ?? '')) continue;
    if (methodIdx !== -2 && r[ROW.method] !== methodIdx) continue;
    if (sessionIdx !== -2 && r[ROW.session] !== sessionIdx) continue;
    if (onlyViolations && r[ROW.violations] === 0) continue;
    if (matches && !matches.has(r[ROW.seq])) continue;
    const g = r[ROW.group];
    if (g >= 0 && g === runGroup && run && !expanded.has(rows[run.first]?.[ROW.seq] ?? -1)) {
      run.members.push(i);
      continue;
    }
    run = { first: i, members: [i] };
    runGroup = g;
    out.push(run);
  }
  return out;
}

/** The display row holding the frame at row index `ri`: a binary search (display rows are in frame order). */
export function displayIndexOf(display: DisplayRow[], ri: number): number | undefined {
  let lo = 0;
  let hi = display.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = display[mid];
    if (!d) return undefined;
    const last = d.members[d.members.length - 1] ?? d.first;
    if (ri < d.first) hi = mid - 1;
    else if (ri > last) lo = mid + 1;
    else return d.members.includes(ri) ? mid : undefined;
  }
  return undefined;
}

/** The string-table entries the rows use in column `col` (methods, sessions), once each. */
export function usedStrings(data: Data, col: number): string[] {
  const s = new Set<number>();
  for (const r of data.rows) if ((r[col] ?? -1) >= 0) s.add(r[col] ?? -1);
  return [...s].map((i) => data.strings[i] ?? '');
}

/** True for a run of one frame that is shown expanded (its first frame starts an expanded run). */
export function expandedFirst(d: DisplayRow, rows: RowTuple[], expanded: Set<number>): boolean {
  return d.members.length === 1 && expanded.has(rows[d.first]?.[ROW.seq] ?? -1);
}

/** `set` with `value` added, or removed when it was there (a new set: state is never changed in place). */
export function toggled<T>(set: Set<T>, value: T): Set<T> {
  const n = new Set(set);
  if (n.has(value)) n.delete(value);
  else n.add(value);
  return n;
}
