import { resultLine } from '../render/ndjson-events.js';
import { alignColumns } from '../render/table.js';
import { frameSide, readCapture } from '@acp-kit/tools/captures';
import { diffCaptures, type CaptureDiff, type DiffFrameRef, type FieldDifference } from '@acp-kit/tools/captures/diff';
import { captureReadFailure, requireFrames } from './captures.js';

const show = (v: unknown): string => {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
};
const what = (r: DiffFrameRef): string => `${r.dir} ${r.kind}${r.method ? ` ${r.method}` : ''}`;
const field = (f: FieldDifference): string => `    ${f.path}: ${show(f.a)} -> ${show(f.b)}`;
const version = (v: number | null): string => (v === null ? '-' : String(v));

/** The readable form of {@link CaptureDiff}. */
export function formatDiff(d: CaptureDiff, pathA: string, pathB: string): string {
  const out: string[] = [];
  out.push(`A: ${pathA} (${d.a.frames} frames)`);
  out.push(`B: ${pathB} (${d.b.frames} frames)`);
  out.push(
    `versions: offered ${version(d.a.version.offered)} / ${version(d.b.version.offered)}, negotiated ${version(d.a.version.negotiated)} / ${version(d.b.version.negotiated)}${d.versionsEqual ? '' : '  DIFFERENT'}`,
  );
  if (d.capabilities.length === 0) out.push('capabilities: same');
  else {
    out.push('capabilities:');
    for (const c of d.capabilities) out.push(field(c));
  }
  out.push(
    `frames: ${d.summary.aligned} aligned (${d.summary.changed} changed), ${d.summary.removed} only in A, ${d.summary.added} only in B${d.alignment === 'lcs' ? '' : ` (alignment: ${d.alignment})`}`,
  );
  if (d.differences.length > 0) out.push('');
  for (const e of d.differences) {
    if (e.type === 'changed') {
      out.push(`~ A#${e.a.seq} / B#${e.b.seq}  ${what(e.a)}`);
      for (const f of e.fields) out.push(field(f));
      if (e.moreFields) out.push(`    ... ${e.moreFields} more`);
    } else {
      const side = e.type === 'removed' ? 'A' : 'B';
      const seqs = e.count === 1 ? `${side}#${e.first.seq}` : `${side}#${e.first.seq}..#${e.last.seq}`;
      out.push(
        `${e.type === 'removed' ? '-' : '+'} ${seqs}  ${e.count > 1 ? `${e.count}x ` : ''}${what(e.first)}  (only in ${side}, after ${side === 'A' ? 'B' : 'A'}#${e.afterOtherSeq})`,
      );
    }
  }
  if (d.truncated > 0)
    out.push(`... ${d.truncated} more differences (use --json for the counts, or compare smaller captures)`);
  if (d.latency.length > 0) {
    out.push('');
    const rows = [['latency p50 ms', 'dir', 'A', 'B', 'delta']];
    const f = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : v.toFixed(1));
    for (const l of d.latency)
      rows.push([
        l.method,
        l.dir === 'editor->agent' ? 'e->a' : 'a->e',
        f(l.a?.p50),
        f(l.b?.p50),
        l.deltaP50Ms === null ? '-' : `${l.deltaP50Ms >= 0 ? '+' : ''}${l.deltaP50Ms.toFixed(1)}`,
      ]);
    out.push(...alignColumns(rows, (i) => i === 0));
  }
  out.push('');
  out.push(d.equal ? 'no differences (timing aside)' : 'the captures differ');
  return `${out.join('\n')}\n`;
}

/**
 * `acp-kit diff A B [--json] [--side editor|agent]`: exit 0 when equal (timing aside), 1 when they
 * differ, 2 usage. Of bridge captures one leg is compared, the editor's by default.
 */
export async function diffCommand(
  pathA: string,
  pathB: string,
  flags: { json?: boolean; side?: string },
): Promise<number> {
  const side = flags.side === 'agent' ? 'agent' : 'editor';
  const read = async (p: string) => {
    let c: Awaited<ReturnType<typeof readCapture>>;
    try {
      c = await readCapture(p);
    } catch (e) {
      captureReadFailure(p, e);
    }
    requireFrames(p, c.frames.length, c.skipped);
    return c;
  };
  const a = await read(pathA);
  const b = await read(pathB);
  const fa = a.frames.filter((f) => frameSide(f) === side);
  const fb = b.frames.filter((f) => frameSide(f) === side);
  // traces of a proxy chain: each hop is compared on its own (the interleaving of hops is the
  // tracer's order, not something either run did)
  const hops = [...new Set([...fa, ...fb].map((f) => f.hop))];
  let equal = true;
  for (const hop of hops) {
    const d = diffCaptures(
      fa.filter((f) => f.hop === hop),
      fb.filter((f) => f.hop === hop),
    );
    equal &&= d.equal;
    const at = hop === undefined ? {} : { hop };
    process.stdout.write(
      flags.json
        ? `${JSON.stringify({ type: 'diff', formatVersion: 1, paths: { a: pathA, b: pathB }, ...at, ...d })}\n`
        : `${hop === undefined ? '' : `hop ${hop}\n`}${formatDiff(d, pathA, pathB)}`,
    );
  }
  if (flags.json) process.stdout.write(resultLine(equal ? 0 : 1));
  return equal ? 0 : 1;
}
