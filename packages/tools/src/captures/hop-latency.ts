import type { CaptureFrame } from './frame.js';
import { summarizeLatencies, type LatencySummary } from './latency.js';

/** The latency of one method's requests on one hop of a proxy chain, and what the hop adds. */
export interface HopLatency {
  /** `Client-Proxy(0)`, ..., `Proxy(n-1)-Agent`: client side first. */
  hop: string;
  method: string;
  /** Request to answer on this hop, ms. */
  latency: LatencySummary;
  /**
   * What this hop and the rest of the chain in front of the next hop add: this hop's latency minus
   * the next hop's for the same request, ms (`null` on the last hop, or when no request pairs up).
   */
  added: LatencySummary | null;
}

/** A hop's place in the chain: the editor's hop first, the agent's last. */
function hopRank(hop: string): number {
  if (hop.startsWith('Client-')) return -1;
  const m = /^Proxy\((\d+)\)-/.exec(hop);
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}

/** Per hop: each method's editor-to-agent request latencies in request order. */
function latenciesByHop(frames: Iterable<CaptureFrame>): Map<string, Map<string, number[]>> {
  const open = new Map<string, { method: string; t: number; slot: number }>();
  const out = new Map<string, Map<string, number[]>>();
  for (const f of frames) {
    if (f.hop === undefined) continue;
    const key = `${f.hop} ${JSON.stringify(f.id ?? null)}`;
    let methods = out.get(f.hop);
    if (!methods) out.set(f.hop, (methods = new Map()));
    if (f.kind === 'request' && f.dir === 'editor->agent' && f.method !== undefined) {
      let list = methods.get(f.method);
      if (!list) methods.set(f.method, (list = []));
      // a slot per request, in the order the requests crossed the hop; filled by its answer
      open.set(key, { method: f.method, t: f.t, slot: list.push(Number.NaN) - 1 });
    } else if ((f.kind === 'response' || f.kind === 'error') && f.dir === 'agent->editor') {
      const req = open.get(key);
      if (!req) continue;
      open.delete(key);
      const list = methods.get(req.method);
      if (list) list[req.slot] = f.t - req.t;
    }
  }
  return out;
}

/**
 * Per-hop latency of a proxy chain's trace (the Rust conductor's `.jsons`, or `acp-kit conduct
 * --trace`): for each hop and method, the request-to-answer time on that hop and what it adds over
 * the next hop. The k-th request of a method on one hop is taken to be the k-th on the next (a
 * component forwards in order); a component that sends requests of the same method of its own
 * shifts that pairing, and its hop's `added` is then not meaningful.
 */
export function hopLatencies(frames: Iterable<CaptureFrame>): HopLatency[] {
  const byHop = latenciesByHop(frames);
  const hops = [...byHop.keys()].sort((a, b) => hopRank(a) - hopRank(b));
  const out: HopLatency[] = [];
  hops.forEach((hop, i) => {
    const next = hops[i + 1] === undefined ? undefined : byHop.get(hops[i + 1] ?? '');
    for (const [method, list] of [...(byHop.get(hop) ?? new Map<string, number[]>())].sort((a, b) =>
      a[0].localeCompare(b[0]),
    )) {
      const latency = summarizeLatencies(list.filter((x) => !Number.isNaN(x)));
      if (!latency) continue;
      const after = next?.get(method) ?? [];
      const diffs = list.flatMap((x, k) => {
        const y = after[k];
        return y === undefined || Number.isNaN(x) || Number.isNaN(y) ? [] : [x - y];
      });
      out.push({ hop, method, latency, added: next ? (summarizeLatencies(diffs) ?? null) : null });
    }
  });
  return out;
}
