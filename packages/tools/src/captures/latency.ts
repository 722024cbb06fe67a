import type { CaptureFrame, FrameDirection, FrameId } from './frame.js';

/** The other side of a direction: where the answer to a request travels. */
export function oppositeDirection(dir: FrameDirection): FrameDirection {
  return dir === 'editor->agent' ? 'agent->editor' : 'editor->agent';
}

/**
 * Nearest-rank percentile of ascending `sorted` values (`p` in 0..100); `undefined` when empty.
 * Nearest rank, not interpolation: the result is always a value that was measured.
 */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** Count, p50, p99 and max of a set of latencies (ms). */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Summarises latencies (ms, any order); `undefined` for none. Values are rounded to 3 decimals. */
export function summarizeLatencies(values: readonly number[]): LatencySummary | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const r = (n: number | undefined): number => Math.round((n ?? 0) * 1000) / 1000;
  return {
    count: sorted.length,
    p50: r(percentile(sorted, 50)),
    p99: r(percentile(sorted, 99)),
    max: r(sorted[sorted.length - 1]),
  };
}

/** A request as {@link RequestPairer} remembers it until its answer passes. */
export interface PendingRequest {
  seq: number;
  t: number;
  dir: FrameDirection;
  method: string;
  id: FrameId;
}

/** A response (or error) matched with the request it answers. */
export interface AnsweredRequest {
  request: PendingRequest;
  response: CaptureFrame;
  /** Response time minus request time, ms. */
  latencyMs: number;
}

/** JSON-RPC ids compare by value and type (`1` and `"1"` are different ids). */
const idKey = (dir: FrameDirection, id: FrameId | undefined): string => `${dir}:${JSON.stringify(id ?? null)}`;

/**
 * Pairs requests with their responses as frames stream past, in either direction: a response
 * travelling `agent->editor` answers the `editor->agent` request with the same id. Memory holds
 * only the requests still in flight.
 */
export class RequestPairer {
  private readonly pending = new Map<string, PendingRequest>();

  /**
   * Feeds one frame. Returns the answered request for a response/error that matches one in
   * flight, `undefined` otherwise (requests are remembered; a reused id replaces the older one).
   */
  push(frame: CaptureFrame): AnsweredRequest | undefined {
    if (frame.kind === 'request' && frame.method !== undefined) {
      this.pending.set(idKey(frame.dir, frame.id), {
        seq: frame.seq,
        t: frame.t,
        dir: frame.dir,
        method: frame.method,
        id: frame.id ?? null,
      });
      return undefined;
    }
    if (frame.kind !== 'response' && frame.kind !== 'error') return undefined;
    const key = idKey(oppositeDirection(frame.dir), frame.id);
    const request = this.pending.get(key);
    if (!request) return undefined;
    this.pending.delete(key);
    return { request, response: frame, latencyMs: Math.round((frame.t - request.t) * 1000) / 1000 };
  }

  /** The request a response/error frame would answer, without consuming it. */
  peek(frame: CaptureFrame): PendingRequest | undefined {
    return this.pending.get(idKey(oppositeDirection(frame.dir), frame.id));
  }

  /** Requests still unanswered, in the order they were sent. */
  unanswered(): PendingRequest[] {
    return [...this.pending.values()].sort((a, b) => a.seq - b.seq);
  }
}
