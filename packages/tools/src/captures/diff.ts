import { diffArrays } from 'diff';
import type { CaptureFrame, FrameDirection, FrameKind } from './frame.js';
import { at, isObj } from '@acp-kit/protocol/internal';
import { RequestPairer, oppositeDirection, summarizeLatencies } from './latency.js';

/** Where a frame is in its capture, and what it is. */
export interface DiffFrameRef {
  seq: number;
  t: number;
  dir: FrameDirection;
  kind: FrameKind;
  /** The method; for responses and errors the method of the request they answer. */
  method?: string;
}

/** One field that differs; a side where the field is absent has no `a` / `b` key. */
export interface FieldDifference {
  /** Path in the message, e.g. `params.update.content.text` or `result.agentCapabilities.loadSession`. */
  path: string;
  a?: unknown;
  b?: unknown;
}

/** A difference between the two captures, in capture order. */
export type DiffEntry =
  | {
      /** Aligned frames whose contents differ. */
      type: 'changed';
      a: DiffFrameRef;
      b: DiffFrameRef;
      fields: FieldDifference[];
      /** Differences beyond the first 50 of this frame, not listed. */
      moreFields?: number;
    }
  | {
      /** Consecutive frames of the same kind only in A (`removed`) or only in B (`added`). */
      type: 'removed' | 'added';
      count: number;
      first: DiffFrameRef;
      last: DiffFrameRef;
      /** seq of the last aligned frame before them in the other capture (0 = none). */
      afterOtherSeq: number;
    };

/** The protocol versions of one capture's initialize exchange (`null` when absent). */
export interface VersionInfo {
  offered: number | null;
  negotiated: number | null;
}

/** p50 latency of one method in both captures. */
export interface MethodLatencyDelta {
  method: string;
  dir: FrameDirection;
  a: { count: number; p50: number } | null;
  b: { count: number; p50: number } | null;
  /** `b.p50 - a.p50` (ms) when both answered the method. */
  deltaP50Ms: number | null;
}

/** What {@link diffCaptures} reports (also the `acp-kit diff --json` shape, documented in docs/captures.md). */
export interface CaptureDiff {
  /** No frame, version or capability differences (timing never counts). */
  equal: boolean;
  /** How frames were aligned: `lcs` (exact), `runs` (LCS over runs of equal frame kinds, for captures too different for the exact one in time), `none` (positional). */
  alignment: 'lcs' | 'runs' | 'none';
  a: { frames: number; version: VersionInfo };
  b: { frames: number; version: VersionInfo };
  versionsEqual: boolean;
  /** Capability differences from the initialize exchange: `client.*` (request), `agent.*` (response). */
  capabilities: FieldDifference[];
  /** Frame counts: aligned pairs (of which `changed` differ), frames only in A (`removed`) or only in B (`added`). */
  summary: { aligned: number; changed: number; removed: number; added: number };
  /** The differences in order, at most `maxEntries` of them. */
  differences: DiffEntry[];
  /** Entries beyond `maxEntries`, not listed. */
  truncated: number;
  /** Per method p50 latency in A and B, sorted by method. */
  latency: MethodLatencyDelta[];
}

/** Options of {@link diffCaptures}. */
export interface DiffOptions {
  /** Most entries listed in `differences` (default 1000; the summary always counts all). */
  maxEntries?: number;
  /** Time budget of the exact alignment before falling back to runs (default 2000 ms). */
  timeoutMs?: number;
}

/**
 * Fields holding identifiers the agent or client generates: compared by correspondence, not by
 * value. The first time an id appears in an aligned pair, A's and B's values are paired; later
 * they must pair the same way again.
 */
const ID_KEYS = new Set([
  'sessionId',
  'messageId',
  'userMessageId',
  'toolCallId',
  'terminalId',
  'planId',
  'elicitationId',
  'requestId',
]);
/** Wall-clock fields: never compared. */
const TIME_KEYS = new Set(['updatedAt', 'createdAt', 'timestamp']);
const MAX_FIELDS = 50;
const UPDATE_KIND = /"sessionUpdate"\s*:\s*"([^"\\]*)"/;

interface Prepared {
  frames: readonly CaptureFrame[];
  keys: number[];
  methods: (string | undefined)[];
  version: VersionInfo;
  clientCaps: unknown;
  agentCaps: unknown;
  latencies: Map<string, { method: string; dir: FrameDirection; values: number[] }>;
}

/**
 * `xs[i]` for an index the diff computed itself (from the arrays' own lengths): a miss is a bug in
 * the alignment, said as such, not an `undefined` travelling on.
 */
function nth<T>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new RangeError(`diff: index ${i} outside the ${xs.length} items it was computed from`);
  return x;
}

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function prepare(frames: readonly CaptureFrame[], intern: Map<string, number>): Prepared {
  const pairer = new RequestPairer();
  const keys: number[] = new Array(frames.length);
  const methods: (string | undefined)[] = new Array(frames.length);
  const version: VersionInfo = { offered: null, negotiated: null };
  let clientCaps: unknown;
  let agentCaps: unknown;
  const latencies = new Map<string, { method: string; dir: FrameDirection; values: number[] }>();
  for (const [i, f] of frames.entries()) {
    let method = f.method;
    if (f.kind === 'response' || f.kind === 'error') {
      const answered = pairer.push(f);
      method = answered?.request.method;
      if (answered) {
        const k = `${answered.request.method}\u0000${answered.request.dir}`;
        let l = latencies.get(k);
        if (!l) latencies.set(k, (l = { method: answered.request.method, dir: answered.request.dir, values: [] }));
        l.values.push(answered.latencyMs);
        if (method === 'initialize' && f.kind === 'response') {
          const result = at(parse(f.raw), 'result');
          const pv = at(result, 'protocolVersion');
          if (typeof pv === 'number') version.negotiated = pv;
          agentCaps = at(result, 'agentCapabilities') ?? at(result, 'capabilities');
        }
      }
    } else if (f.kind === 'request') {
      pairer.push(f);
      if (f.method === 'initialize' && f.dir === 'editor->agent') {
        const params = at(parse(f.raw), 'params');
        const pv = at(params, 'protocolVersion');
        if (typeof pv === 'number') version.offered = pv;
        clientCaps = at(params, 'clientCapabilities') ?? at(params, 'capabilities');
      }
    }
    methods[i] = method;
    // updates are most of a capture: their kind keeps a chunk from aligning with a tool call
    // (a regex is enough: the key only steers the alignment, the comparison parses)
    const update = method === 'session/update' ? UPDATE_KIND.exec(f.raw)?.[1] : undefined;
    const key = `${f.dir}|${f.kind}|${method ?? ''}|${update ?? ''}`;
    let k = intern.get(key);
    if (k === undefined) intern.set(key, (k = intern.size));
    keys[i] = k;
  }
  return { frames, keys, methods, version, clientCaps, agentCaps, latencies };
}

type Op = { type: 'same'; a: number; b: number } | { type: 'removed'; a: number } | { type: 'added'; b: number };

/** Ops over the middle part (after common prefix/suffix) with jsdiff's Myers diff (O(ND)). */
function lcsOps(ka: number[], kb: number[], timeoutMs: number): { ops: Op[]; alignment: CaptureDiff['alignment'] } {
  let pre = 0;
  while (pre < ka.length && pre < kb.length && ka[pre] === kb[pre]) pre++;
  let suf = 0;
  while (suf < ka.length - pre && suf < kb.length - pre && ka[ka.length - 1 - suf] === kb[kb.length - 1 - suf]) suf++;
  const ops: Op[] = [];
  for (let i = 0; i < pre; i++) ops.push({ type: 'same', a: i, b: i });
  const ma = ka.slice(pre, ka.length - suf);
  const mb = kb.slice(pre, kb.length - suf);
  let alignment: CaptureDiff['alignment'] = 'lcs';
  if (ma.length > 0 || mb.length > 0) {
    const middle = middleChanges(ma, mb, timeoutMs);
    alignment = middle.alignment;
    let ia = pre;
    let ib = pre;
    for (const c of middle.changes) {
      const count = c.value.length;
      if (c.added) for (let j = 0; j < count; j++) ops.push({ type: 'added', b: ib++ });
      else if (c.removed) for (let j = 0; j < count; j++) ops.push({ type: 'removed', a: ia++ });
      else for (let j = 0; j < count; j++) ops.push({ type: 'same', a: ia++, b: ib++ });
    }
  }
  for (let i = suf; i > 0; i--) ops.push({ type: 'same', a: ka.length - i, b: kb.length - i });
  return { ops, alignment };
}

type Change = { value: number[]; added?: boolean; removed?: boolean };

/** The changes between two non-empty-together key lists: exact in time, else over runs, else positional. */
function middleChanges(
  ma: number[],
  mb: number[],
  timeoutMs: number,
): { changes: Change[]; alignment: CaptureDiff['alignment'] } {
  if (ma.length === 0 || mb.length === 0)
    return {
      changes: [{ value: ma.length ? ma : mb, removed: ma.length > 0, added: mb.length > 0 }],
      alignment: 'lcs',
    };
  const exact = diffArrays(ma, mb, { timeout: timeoutMs });
  if (exact) return { changes: exact, alignment: 'lcs' };
  // runs are few (a streamed turn is one run), so they get a budget of their own
  const runs = runsDiff(ma, mb, Math.max(timeoutMs, 1000));
  if (runs) return { changes: runs, alignment: 'runs' };
  return {
    changes: [
      { value: ma, removed: true },
      { value: mb, added: true },
    ],
    alignment: 'none',
  };
}

const WORST: ReadonlyArray<CaptureDiff['alignment']> = ['lcs', 'runs', 'none'];

/**
 * Aligns each direction on its own, then merges the pairs back into capture order. Within one
 * direction the order is the sender's and means something; across directions it is timing: the two
 * peers write at once (an agent's notification after `session/new` and the client's next request
 * race through the proxy), so a frame that only moved past frames of the other direction is no
 * difference. An answer still follows its request: the pair is in the other direction's sequence.
 */
function alignByDirection(
  a: readonly CaptureFrame[],
  b: readonly CaptureFrame[],
  ka: number[],
  kb: number[],
  timeoutMs: number,
): { ops: Op[]; alignment: CaptureDiff['alignment'] } {
  const pairOfA = new Map<number, number>();
  const pairedB = new Set<number>();
  let alignment: CaptureDiff['alignment'] = 'lcs';
  for (const dir of ['editor->agent', 'agent->editor'] as const) {
    const ia = indicesOf(a, dir);
    const ib = indicesOf(b, dir);
    const r = lcsOps(
      ia.map((i) => nth(ka, i)),
      ib.map((i) => nth(kb, i)),
      timeoutMs,
    );
    if (WORST.indexOf(r.alignment) > WORST.indexOf(alignment)) alignment = r.alignment;
    for (const op of r.ops) {
      if (op.type !== 'same') continue;
      const j = nth(ib, op.b);
      pairOfA.set(nth(ia, op.a), j);
      pairedB.add(j);
    }
  }
  // capture order of A; B's unpaired frames go where they stand relative to B's paired ones
  const ops: Op[] = [];
  let nextB = 0;
  const flushB = (upTo: number): void => {
    for (; nextB < upTo; nextB++) if (!pairedB.has(nextB)) ops.push({ type: 'added', b: nextB });
  };
  for (let i = 0; i < a.length; i++) {
    const j = pairOfA.get(i);
    if (j === undefined) {
      ops.push({ type: 'removed', a: i });
      continue;
    }
    flushB(j);
    ops.push({ type: 'same', a: i, b: j });
  }
  flushB(b.length);
  return { ops, alignment };
}

function indicesOf(frames: readonly CaptureFrame[], dir: FrameDirection): number[] {
  const out: number[] = [];
  for (const [i, f] of frames.entries()) if (f.dir === dir) out.push(i);
  return out;
}

/** Fallback for very different captures: LCS over runs of equal keys, then runs paired frame by frame. */
function runsDiff(
  ma: number[],
  mb: number[],
  timeoutMs: number,
): Array<{ value: number[]; added: boolean; removed: boolean }> | undefined {
  const runs = (k: number[]): Array<{ key: number; len: number }> => {
    const out: Array<{ key: number; len: number }> = [];
    for (const x of k) {
      const last = out[out.length - 1];
      if (last && last.key === x) last.len++;
      else out.push({ key: x, len: 1 });
    }
    return out;
  };
  const ra = runs(ma);
  const rb = runs(mb);
  const changes = diffArrays(ra, rb, { timeout: timeoutMs, comparator: (x, y) => x.key === y.key });
  if (!changes) return undefined;
  const out: Array<{ value: number[]; added: boolean; removed: boolean }> = [];
  let ia = 0;
  let ib = 0;
  const take = (from: number[], at: number, n: number): number[] => from.slice(at, at + n);
  for (const c of changes) {
    if (c.removed) {
      const n = c.value.reduce((s, r) => s + r.len, 0);
      out.push({ value: take(ma, ia, n), added: false, removed: true });
      ia += n;
    } else if (c.added) {
      const n = c.value.reduce((s, r) => s + r.len, 0);
      out.push({ value: take(mb, ib, n), added: true, removed: false });
      ib += n;
    } else {
      // a common run: pair as many frames as both have, the rest is only on one side
      for (const run of c.value) {
        let la = 0;
        let lb = 0;
        while (ia + la < ma.length && ma[ia + la] === run.key && (la === 0 || ma[ia + la - 1] === ma[ia + la])) la++;
        while (ib + lb < mb.length && mb[ib + lb] === run.key && (lb === 0 || mb[ib + lb - 1] === mb[ib + lb])) lb++;
        const both = Math.min(la, lb);
        out.push({ value: take(ma, ia, both), added: false, removed: false });
        if (la > both) out.push({ value: take(ma, ia + both, la - both), added: false, removed: true });
        if (lb > both) out.push({ value: take(mb, ib + both, lb - both), added: true, removed: false });
        ia += la;
        ib += lb;
      }
    }
  }
  return out;
}

const IDENT = /^[A-Za-z_$][\w$]*$/;
const child = (path: string, key: string): string =>
  IDENT.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;

/** Pairs A's and B's identifiers by first appearance in aligned frames. */
class IdCorrespondence {
  private readonly aToB = new Map<string, string>();
  private readonly bToA = new Map<string, string>();

  /** True when `a` and `b` correspond (pairing them if neither was seen). */
  match(category: string, a: unknown, b: unknown): boolean {
    const ka = `${category}\u0000${JSON.stringify(a)}`;
    const kb = `${category}\u0000${JSON.stringify(b)}`;
    const pa = this.aToB.get(ka);
    const pb = this.bToA.get(kb);
    if (pa === undefined && pb === undefined) {
      this.aToB.set(ka, kb);
      this.bToA.set(kb, ka);
      return true;
    }
    return pa === kb && pb === ka;
  }
}

function compareValues(
  a: unknown,
  b: unknown,
  path: string,
  out: FieldDifference[],
  ids: IdCorrespondence | undefined,
  key?: string,
): void {
  if (key !== undefined && TIME_KEYS.has(key)) return;
  if (
    key !== undefined &&
    ids &&
    ID_KEYS.has(key) &&
    (typeof a === 'string' || typeof a === 'number') &&
    (typeof b === 'string' || typeof b === 'number')
  ) {
    if (!ids.match(key, a, b)) out.push({ path, a, b });
    return;
  }
  if (a === b) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const xa: readonly unknown[] = a;
    const xb: readonly unknown[] = b;
    for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
      const p = `${path}[${i}]`;
      if (i >= xa.length) out.push({ path: p, b: xb[i] });
      else if (i >= xb.length) out.push({ path: p, a: xa[i] });
      else compareValues(xa[i], xb[i], p, out, ids);
    }
    return;
  }
  if (!isObj(a) || !isObj(b)) {
    // different types, or equal-typed scalars that differ
    out.push({ path, a, b });
    return;
  }
  const oa = a;
  const ob = b;
  for (const k of Object.keys(oa)) {
    const p = child(path, k);
    if (!(k in ob)) {
      if (!TIME_KEYS.has(k)) out.push({ path: p, a: oa[k] });
    } else compareValues(oa[k], ob[k], p, out, ids, k);
  }
  for (const k of Object.keys(ob)) if (!(k in oa) && !TIME_KEYS.has(k)) out.push({ path: child(path, k), b: ob[k] });
}

function ref(p: Prepared, i: number): DiffFrameRef {
  const f = nth(p.frames, i);
  const r: DiffFrameRef = { seq: f.seq, t: f.t, dir: f.dir, kind: f.kind };
  const m = p.methods[i];
  if (m !== undefined) r.method = m;
  return r;
}

/**
 * Compares two captures (e.g. two recordings of the same scripted run). Frames are aligned by a
 * longest common subsequence over (kind, method: for answers the answered method; for
 * `session/update` also the update kind), each direction on its own (how the two directions
 * interleave is timing), then aligned frames are compared field by field. Request ids, session ids, message ids, tool
 * call ids (and other generated ids) are compared by correspondence, so two runs that only differ
 * in generated ids are equal; timestamps (frame times and `updatedAt`-like fields) never count.
 * Latency is reported per method (p50 of each side and the delta) but is not a difference.
 */
export function diffCaptures(
  a: readonly CaptureFrame[],
  b: readonly CaptureFrame[],
  options: DiffOptions = {},
): CaptureDiff {
  const intern = new Map<string, number>();
  const pa = prepare(a, intern);
  const pb = prepare(b, intern);
  const { ops, alignment } = alignByDirection(a, b, pa.keys, pb.keys, options.timeoutMs ?? 2000);
  const { differences, truncated, summary } = collectDifferences(ops, pa, pb, options.maxEntries ?? 1000);
  const capabilities: FieldDifference[] = [];
  compareValues(pa.clientCaps ?? null, pb.clientCaps ?? null, 'client', capabilities, undefined);
  compareValues(pa.agentCaps ?? null, pb.agentCaps ?? null, 'agent', capabilities, undefined);
  const versionsEqual = pa.version.offered === pb.version.offered && pa.version.negotiated === pb.version.negotiated;
  return {
    equal:
      summary.changed === 0 &&
      summary.removed === 0 &&
      summary.added === 0 &&
      versionsEqual &&
      capabilities.length === 0,
    alignment,
    a: { frames: a.length, version: pa.version },
    b: { frames: b.length, version: pb.version },
    versionsEqual,
    capabilities,
    summary,
    differences,
    truncated,
    latency: latencyDeltas(pa, pb),
  };
}

/**
 * Walks the alignment: aligned frames compared field by field, frames on one side only grouped in
 * runs of the same key. At most `maxEntries` entries listed; the summary counts all.
 */
function collectDifferences(
  ops: readonly Op[],
  pa: Prepared,
  pb: Prepared,
  maxEntries: number,
): Pick<CaptureDiff, 'differences' | 'truncated' | 'summary'> {
  const ids = new IdCorrespondence();
  const differences: DiffEntry[] = [];
  let truncated = 0;
  const summary = { aligned: 0, changed: 0, removed: 0, added: 0 };
  const push = (e: DiffEntry): void => {
    if (differences.length < maxEntries) differences.push(e);
    else truncated++;
  };
  let lastA = 0;
  let lastB = 0;
  let run: Extract<DiffEntry, { type: 'removed' | 'added' }> | undefined;
  let runKey = -1;
  const flush = (): void => {
    if (run) push(run);
    run = undefined;
  };
  for (const op of ops) {
    if (op.type === 'same') {
      flush();
      summary.aligned++;
      const fa = nth(pa.frames, op.a);
      const fb = nth(pb.frames, op.b);
      lastA = fa.seq;
      lastB = fb.seq;
      const fields = compareFrames(fa, fb, ids);
      if (fields.length > 0) {
        summary.changed++;
        const e: DiffEntry = {
          type: 'changed',
          a: ref(pa, op.a),
          b: ref(pb, op.b),
          fields: fields.slice(0, MAX_FIELDS),
        };
        if (fields.length > MAX_FIELDS) e.moreFields = fields.length - MAX_FIELDS;
        push(e);
      }
      continue;
    }
    const side = op.type === 'removed' ? pa : pb;
    const i = op.type === 'removed' ? op.a : op.b;
    summary[op.type]++;
    const key = nth(side.keys, i);
    if (run && run.type === op.type && runKey === key) {
      run.count++;
      run.last = ref(side, i);
    } else {
      flush();
      run = {
        type: op.type,
        count: 1,
        first: ref(side, i),
        last: ref(side, i),
        afterOtherSeq: op.type === 'removed' ? lastB : lastA,
      };
      runKey = key;
    }
  }
  flush();
  return { differences, truncated, summary };
}

/** The fields in which two aligned frames differ (the whole line when either is not a JSON object). */
function compareFrames(fa: CaptureFrame, fb: CaptureFrame, ids: IdCorrespondence): FieldDifference[] {
  const fields: FieldDifference[] = [];
  const ma = fa.kind === 'invalid' ? undefined : parse(fa.raw);
  const mb = fb.kind === 'invalid' ? undefined : parse(fb.raw);
  if (!isObj(ma) || !isObj(mb)) {
    if (fa.raw !== fb.raw) fields.push({ path: '(line)', a: fa.raw, b: fb.raw });
    return fields;
  }
  // the JSON-RPC id: requests pair by (direction, id); answers use their request's pairing
  const { id: ida, ...restA } = ma;
  const { id: idb, ...restB } = mb;
  const reqDirA = fa.kind === 'request' ? fa.dir : oppositeDirection(fa.dir);
  if ('id' in ma || 'id' in mb) {
    if (!ids.match(`id:${reqDirA}`, ida ?? null, idb ?? null)) fields.push({ path: 'id', a: ida, b: idb });
  }
  compareValues(restA, restB, '', fields, ids);
  return fields;
}

/** p50 latency per method and direction in A and B, sorted by method. */
function latencyDeltas(pa: Prepared, pb: Prepared): MethodLatencyDelta[] {
  const latency: MethodLatencyDelta[] = [];
  for (const key of new Set([...pa.latencies.keys(), ...pb.latencies.keys()])) {
    const la = pa.latencies.get(key);
    const lb = pb.latencies.get(key);
    const either = la ?? lb;
    if (!either) continue; // not reached: the key came from one of the two maps
    const sa = la ? summarizeLatencies(la.values) : undefined;
    const sb = lb ? summarizeLatencies(lb.values) : undefined;
    latency.push({
      method: either.method,
      dir: either.dir,
      a: sa ? { count: sa.count, p50: sa.p50 } : null,
      b: sb ? { count: sb.count, p50: sb.p50 } : null,
      deltaP50Ms: sa && sb ? Math.round((sb.p50 - sa.p50) * 1000) / 1000 : null,
    });
  }
  latency.sort((x, y) => (x.method === y.method ? x.dir.localeCompare(y.dir) : x.method < y.method ? -1 : 1));
  return latency;
}
