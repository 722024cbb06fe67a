/**
 * Small latency helpers for the inspector (pairing requests with answers, percentiles).
 * The proxy's own stats module may replace these later; keep the shapes plain.
 */

/** One answered (or still open) request: who asked, when, and how long the answer took. */
export interface RequestSpan {
  /** seq of the request frame */
  seq: number;
  /** seq of the answer frame; undefined while unanswered */
  answerSeq: number | undefined;
  method: string;
  /** who sent the request */
  dir: 'editor->agent' | 'agent->editor';
  /** ms since capture start */
  start: number;
  /** ms from request to answer; undefined while unanswered */
  latency: number | undefined;
  /** the answer was a JSON-RPC error */
  error: boolean;
}

/** Per-method latency figures (ms). */
export interface MethodLatency {
  method: string;
  count: number;
  /** requests without an answer (not part of the percentiles) */
  open: number;
  p50: number | undefined;
  p99: number | undefined;
  max: number | undefined;
}

/** Nearest-rank percentile of sorted values (`p` in 0..100); undefined for no values. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** The per-method table, sorted by method name. */
export function latencyTable(spans: Iterable<RequestSpan>): MethodLatency[] {
  const by = new Map<string, { values: number[]; open: number }>();
  for (const s of spans) {
    let e = by.get(s.method);
    if (!e) by.set(s.method, (e = { values: [], open: 0 }));
    if (s.latency === undefined) e.open++;
    else e.values.push(s.latency);
  }
  return [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([method, { values, open }]) => {
      values.sort((a, b) => a - b);
      return { method, count: values.length + open, open, p50: percentile(values, 50), p99: percentile(values, 99), max: values.length ? values[values.length - 1] : undefined };
    });
}
