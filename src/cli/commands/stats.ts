// single modules, not proxy/index.js: the barrel would load the `diff` package (capture diffs) too
import {
  frameSide,
  hopLatencies,
  openCapture,
  CaptureStatsCollector,
  type CaptureFrame,
  type CaptureStats,
  type HopLatency,
} from '@acp-kit/tools/captures';
import { captureReadFailure, requireFrames } from './captures.js';
import { resultLine } from '../render/ndjson-events.js';
import { alignColumns } from '../render/table.js';

const n = (v: number): string => v.toLocaleString('en-US');
const ms = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : v.toFixed(1));
const arrow = (d: string): string => (d === 'editor->agent' ? 'e->a' : 'a->e');

function bytes(v: number): string {
  if (v < 10_000) return `${v} B`;
  if (v < 10_000_000) return `${(v / 1000).toFixed(1)} kB`;
  return `${(v / 1e6).toFixed(1)} MB`;
}

/** The readable form of {@link CaptureStats}. */
export function formatStats(s: CaptureStats, label: string): string {
  const out: string[] = [];
  out.push(
    `${label}: ${n(s.frames)} frames in ${(s.durationMs / 1000).toFixed(3)} s, protocol v${s.protocolVersion ?? '?'}`,
  );
  out.push(
    `bytes: editor->agent ${bytes(s.bytes['editor->agent'])}, agent->editor ${bytes(s.bytes['agent->editor'])}${s.invalid ? `; ${n(s.invalid)} non-JSON-RPC lines` : ''}${s.unmatchedResponses ? `; ${n(s.unmatchedResponses)} responses to unknown ids` : ''}`,
  );
  out.push('');
  const rows = [['method', 'dir', 'count', 'errors', 'unanswered', 'p50 ms', 'p99 ms', 'max ms', 'bytes']];
  for (const m of s.methods) {
    rows.push([
      m.method,
      arrow(m.dir),
      n(m.requests + m.notifications),
      m.requests ? n(m.errors) : '-',
      m.requests ? n(m.unanswered) : '-',
      ms(m.latency?.p50),
      ms(m.latency?.p99),
      ms(m.latency?.max),
      bytes(m.bytes),
    ]);
  }
  for (const line of alignColumns(rows, (i) => i === 0)) out.push(line.trimEnd());
  if (Object.keys(s.updates).length > 0) {
    out.push('');
    out.push(
      `updates: ${Object.entries(s.updates)
        .map(([k, v]) => `${k} ${n(v)}`)
        .join(', ')}`,
    );
  }
  if (s.errors.length > 0) {
    out.push('');
    out.push('errors:');
    for (const e of s.errors)
      out.push(
        `  ${String(e.code ?? '(no code)').padStart(7)}  ${n(e.count)}x  ${e.message}  (${e.methods.join(', ')})`,
      );
  }
  out.push('');
  if (s.turns.length === 0) out.push('turns: none');
  else {
    out.push(
      `turns: ${n(s.turns.length)}; stop reasons: ${Object.entries(s.stopReasons)
        .map(([k, v]) => `${k} ${n(v)}`)
        .join(', ')}`,
    );
    const trows = [['prompt seq', 'session', 'first chunk ms', 'duration ms', 'stop reason']];
    for (const t of s.turns) {
      trows.push([
        String(t.promptSeq),
        t.sessionId ?? '-',
        ms(t.timeToFirstChunkMs),
        ms(t.durationMs),
        t.error
          ? `error ${t.error.code ?? ''} ${t.error.message}`.trim()
          : t.endSeq === null
            ? '(unfinished)'
            : (t.stopReason ?? '(none)'),
      ]);
    }
    for (const line of alignColumns(trows, (i) => i === 1 || i === 4)) out.push(`  ${line.trimEnd()}`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * `acp-kit stats CAPTURE [--json] [--side editor|agent]`: streams the capture (of a bridge capture
 * one leg, the editor's by default); exit 0, or 2 when it cannot be read.
 */
export async function statsCommand(path: string, flags: { json?: boolean; side?: string }): Promise<number> {
  const side = flags.side === 'agent' ? 'agent' : 'editor';
  const r = openCapture(path);
  // traces of a proxy chain hold each message once per hop it crossed: one set of stats per hop
  const collectors = new Map<string | undefined, CaptureStatsCollector>();
  // requests and answers of a chain's hops, for the per-hop latency (notifications are not kept)
  const hopFrames: CaptureFrame[] = [];
  let all = 0;
  try {
    for await (const f of r) {
      all++;
      if (frameSide(f) !== side) continue;
      let c = collectors.get(f.hop);
      if (!c) collectors.set(f.hop, (c = new CaptureStatsCollector()));
      c.push(f);
      if (f.hop !== undefined && f.kind !== 'notification') hopFrames.push(f);
    }
  } catch (e) {
    captureReadFailure(path, e);
  }
  requireFrames(path, all, r.skipped());
  if (collectors.size === 0) collectors.set(undefined, new CaptureStatsCollector());
  for (const [hop, c] of collectors) {
    const s = c.result();
    if (flags.json)
      process.stdout.write(
        `${JSON.stringify({ type: 'stats', capture: path, ...(hop === undefined ? {} : { hop }), ...s })}\n`,
      );
    else process.stdout.write(hop === undefined ? formatStats(s, path) : `hop ${hop}\n${formatStats(s, path)}\n`);
  }
  const hops = hopLatencies(hopFrames);
  if (hops.length > 0) {
    if (flags.json) process.stdout.write(`${JSON.stringify({ type: 'hop-latency', capture: path, hops })}\n`);
    else process.stdout.write(formatHopLatencies(hops));
  }
  if (flags.json) process.stdout.write(resultLine(0));
  return 0;
}

/** The per-hop latency table of a chain's trace. */
function formatHopLatencies(hops: HopLatency[]): string {
  const rows = [['hop', 'method', 'count', 'p50 ms', 'p99 ms', 'added p50 ms', 'added p99 ms']];
  for (const h of hops) {
    const { count, p50, p99 } = h.latency;
    rows.push([h.hop, h.method, n(count), ms(p50), ms(p99), ms(h.added?.p50), ms(h.added?.p99)]);
  }
  const lines = alignColumns(rows, (i) => i <= 1).map((l) => `  ${l.trimEnd()}`);
  return `per-hop latency (request to answer on each hop; added: over the next hop):\n${lines.join('\n')}\n`;
}
