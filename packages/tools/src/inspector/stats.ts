import { summarizeLatencies } from '../captures/latency.js';

/**
 * The inspector's latency shapes. Pairing and percentiles are the proxy's
 * (`RequestPairer`, `summarizeLatencies` in src/captures/latency.ts): one implementation for
 * `acp-kit stats`, `acp-kit diff` and the page.
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
      const sum = summarizeLatencies(values);
      return { method, count: values.length + open, open, p50: sum?.p50, p99: sum?.p99, max: sum?.max };
    });
}
