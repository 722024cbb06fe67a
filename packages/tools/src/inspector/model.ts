import {
  frameSide,
  type CaptureFrame,
  type CaptureHeader,
  type CaptureMeta,
  type CaptureSide,
} from '../captures/capture.js';
import { RequestPairer } from '../captures/latency.js';
import { CaptureValidator, type Violation } from '../captures/validate.js';
import { at, stringAt } from '@acp-kit/protocol/internal';
import { SessionViewBuilder, type SessionView } from './session-view.js';
import { latencyTable, type MethodLatency, type RequestSpan } from './stats.js';
import { markFields } from './undeclared.js';
import { frameSummary, summarisesAnswer, type AnsweredRequest } from './frame-summary.js';
import { ROW, type FieldMarks, type FrameDetail, type RowTuple } from './api-types.js';

export { ROW, type FrameDetail, type RowTuple } from './api-types.js';

/** Update kinds that stream one piece of something: consecutive ones collapse into one timeline row. */
const CHUNK_KINDS = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'user_message_chunk',
  'tool_call_content_chunk',
  'terminal_output_chunk',
  'compaction_summary_chunk',
  'session_message_chunk',
]);

/** The group of a chunk frame (its session, kind and entity): consecutive frames of one group collapse. */
function chunkGroup(json: unknown, session: string | undefined, update: string | undefined): string | undefined {
  if (update === undefined || !CHUNK_KINDS.has(update)) return undefined;
  const u = (k: string): unknown => at(json, 'params', 'update', k);
  return `${session ?? ''}|${update}|${String(u('messageId') ?? u('toolCallId') ?? u('terminalId') ?? '')}`;
}

/** The frame's parsed JSON; undefined for an invalid frame that is not even an object. */
function frameJson(frame: CaptureFrame): unknown {
  if (frame.kind === 'invalid' && !frame.raw.trimStart().startsWith('{')) return undefined;
  try {
    return JSON.parse(frame.raw);
  } catch {
    return undefined;
  }
}

/**
 * A capture being inspected: every frame kept (raw text), validated with {@link CaptureValidator}
 * as it arrives, paired (latency) and summarised into timeline rows. Live sources push frames as
 * the proxy records them.
 */
export class CaptureModel {
  readonly frames: CaptureFrame[] = [];
  readonly rows: RowTuple[] = [];
  readonly strings: string[] = [];
  readonly violations: Violation[] = [];
  header: CaptureHeader | undefined;
  readonly metas: CaptureMeta[] = [];
  /** set once the end of a saved capture (or the agent's exit) is known */
  finished = false;
  private readonly stringIndex = new Map<string, number>();
  private readonly bySeq = new Map<number, number>();
  private readonly violationsBySeq = new Map<number, Violation[]>();
  private readonly validator = new CaptureValidator();
  private readonly sessions = new SessionViewBuilder();
  private readonly pairer = new RequestPairer();
  private readonly spans = new Map<number, RequestSpan>();
  /** seq of the request -> method name of requests (for response result marks) */
  private readonly requestMethod = new Map<number, string>();
  private readonly listeners = new Set<(e: ModelEvent) => void>();
  /** frames validated and fed to the session builder so far (analysis trails indexing) */
  private analyzedCount = 0;
  /** metas with the number of frames indexed when they arrived (analysis applies them in that order) */
  private readonly metaAt: number[] = [];
  private metasApplied = 0;
  private validatorDone = false;
  private analysisTimer: NodeJS.Immediate | undefined;
  private analysisWaiters: Array<() => void> = [];
  /**
   * Validation and session building (the costly part) run with each {@link push} when false (live
   * sources: a frame is complete when it arrives); when true they run later in small slices
   * ({@link analyzeInBackground}), so a big saved capture's timeline can be served first.
   */
  deferAnalysis = false;
  /**
   * The leg of a bridge capture this model shows (`acp-kit proxy --bridge` records both): frames of
   * the other leg are counted in {@link otherSideFrames} and skipped, so each leg is decoded with
   * its own protocol version. Plain captures have only the editor leg.
   */
  side: CaptureSide = 'editor';
  /** Frames of the other leg seen by {@link push} (non-zero: the capture is a bridge's). */
  otherSideFrames = 0;

  /** Subscribes to new rows/changes (live stream); returns the unsubscribe function. */
  subscribe(fn: (e: ModelEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Adds one frame (in capture order). */
  push(frame: CaptureFrame): void {
    if (frameSide(frame) !== this.side) {
      this.otherSideFrames++;
      return;
    }
    const index = this.frames.length;
    this.frames.push(frame);
    this.bySeq.set(frame.seq, index);
    const json = frameJson(frame);
    let session = stringAt(json, 'params', 'sessionId');
    const update = stringAt(json, 'params', 'update', 'sessionUpdate');
    const group = chunkGroup(json, session, update);
    let latency = -1;
    let pair = -1;
    const newStrings: string[] = [];
    const str = (s: string | undefined): number => {
      if (s === undefined) return -1;
      let i = this.stringIndex.get(s);
      if (i === undefined) {
        i = this.strings.length;
        this.strings.push(s);
        this.stringIndex.set(s, i);
        newStrings.push(s);
      }
      return i;
    };
    const changed: RowTuple[] = [];
    const answered = this.pairer.push(frame);
    if (frame.kind === 'request' && frame.method !== undefined) {
      this.requestMethod.set(frame.seq, frame.method);
      this.spans.set(frame.seq, {
        seq: frame.seq,
        answerSeq: undefined,
        method: frame.method,
        dir: frame.dir,
        start: frame.t,
        latency: undefined,
        error: false,
      });
    } else if (answered) {
      const reqSeq = answered.request.seq;
      latency = answered.latencyMs;
      pair = reqSeq;
      // a request without a method name has no span (the pairer pairs it all the same)
      const span = this.spans.get(reqSeq);
      if (span) {
        span.answerSeq = frame.seq;
        span.latency = latency;
        span.error = frame.kind === 'error';
      }
      const reqIndex = this.bySeq.get(reqSeq);
      const reqRow = reqIndex === undefined ? undefined : this.rows[reqIndex];
      if (reqRow) {
        reqRow[ROW.latency] = latency;
        reqRow[ROW.pair] = frame.seq;
        changed.push(reqRow);
      }
      // the answer belongs to the request's session (session/new answers carry the new id)
      if (session === undefined) session = stringAt(json, 'result', 'sessionId');
      if (session === undefined && reqRow && reqRow[ROW.session] >= 0) session = this.strings[reqRow[ROW.session]];
    }
    const row: RowTuple = [
      frame.seq,
      frame.t,
      frame.dir === 'editor->agent' ? 0 : 1,
      str(frame.kind),
      str(frame.method),
      frame.id === undefined ? -1 : str(JSON.stringify(frame.id)),
      Buffer.byteLength(frame.raw, 'utf8'),
      str(session),
      str(update),
      str(group),
      latency,
      pair,
      0,
      str(frame.hop),
    ];
    const summary = this.summaryOf(frame, json, answered?.request.seq);
    // most frames have none: a row without one stays 14 numbers on the wire
    if (summary !== undefined) row.push(str(summary));
    this.rows.push(row);
    let found: Violation[] = [];
    if (!this.deferAnalysis && this.analyzedCount === index) {
      this.applyMetas(index);
      this.sessions.push(frame, json);
      found = this.validator.push(frame);
      this.analyzedCount++;
      this.addViolations(found, changed);
    }
    for (const l of this.listeners)
      l({
        type: 'rows',
        rows: [row],
        changed: changed.filter((r) => r !== row),
        strings: newStrings,
        violations: found,
      });
  }

  /** The frame's one-line summary; an answer's reads its request back (only for the methods that use it). */
  private summaryOf(frame: CaptureFrame, json: unknown, requestSeq: number | undefined): string | undefined {
    let request: AnsweredRequest | undefined;
    const i = requestSeq === undefined ? undefined : this.bySeq.get(requestSeq);
    const req = i === undefined ? undefined : this.frames[i];
    if (req?.method !== undefined && summarisesAnswer(req.method))
      request = { method: req.method, params: at(frameJson(req), 'params') };
    return frameSummary(frame, json, request);
  }

  /** Frames validated and decoded into sessions so far (equal to `frames.length` once caught up). */
  get analyzed(): number {
    return this.analyzedCount;
  }

  /** True when every frame is analyzed and, for a finished capture, the end-of-capture rules ran. */
  get analysisComplete(): boolean {
    return this.analyzedCount === this.frames.length && (!this.finished || this.validatorDone);
  }

  /**
   * Analyzes frames that were indexed but not yet validated, in slices of about `sliceMs`,
   * yielding to the event loop between slices (the server keeps answering meanwhile). Violations
   * found are reported to subscribers as `rows` events with the changed rows.
   */
  analyzeInBackground(sliceMs = 12): void {
    if (this.analysisTimer || this.analysisComplete) return;
    const step = (): void => {
      this.analysisTimer = undefined;
      const until = performance.now() + sliceMs;
      this.analyzeUntil(() => performance.now() >= until);
      if (!this.analysisComplete) this.analysisTimer = setImmediate(step);
    };
    this.analysisTimer = setImmediate(step);
  }

  /** Resolves once {@link analysisComplete} (runs the analysis now if nothing else drives it). */
  async whenAnalyzed(): Promise<void> {
    if (this.analysisComplete) return;
    if (!this.analysisTimer) this.analyzeInBackground();
    await new Promise<void>((r) => this.analysisWaiters.push(r));
  }

  /** Stops background analysis (the server is closing). */
  stopAnalysis(): void {
    if (this.analysisTimer) clearImmediate(this.analysisTimer);
    this.analysisTimer = undefined;
  }

  private analyzeUntil(stop: () => boolean): void {
    const changed: RowTuple[] = [];
    const found: Violation[] = [];
    let n = 0;
    while (this.analyzedCount < this.frames.length) {
      const i = this.analyzedCount;
      this.applyMetas(i);
      const frame = this.frames[i];
      if (!frame) break;
      let json: unknown;
      try {
        json = JSON.parse(frame.raw);
      } catch {
        json = undefined;
      }
      this.sessions.push(frame, json);
      const v = this.validator.push(frame);
      this.analyzedCount++;
      if (v.length) {
        found.push(...v);
        this.addViolations(v, changed);
      }
      // the clock is read every 64 frames: reading it per frame would cost more than the frame
      if (++n % 64 === 0 && stop()) break;
    }
    if (this.analyzedCount === this.frames.length) this.applyMetas(this.frames.length);
    if (this.analyzedCount === this.frames.length && this.finished && !this.validatorDone) {
      this.validatorDone = true;
      const end = this.validator.finish();
      found.push(...end);
      this.addViolations(end, changed);
    }
    const complete = this.analysisComplete;
    if (found.length || changed.length || complete)
      for (const l of this.listeners)
        l({
          type: 'rows',
          rows: [],
          changed,
          strings: [],
          violations: found,
          analyzed: this.analyzedCount,
          ...(complete ? { analysisComplete: true } : {}),
        });
    if (complete) for (const w of this.analysisWaiters.splice(0)) w();
  }

  private applyMetas(framesBefore: number): void {
    for (;;) {
      const meta = this.metas[this.metasApplied];
      const at = this.metaAt[this.metasApplied];
      if (meta === undefined || at === undefined || at > framesBefore) return;
      this.metasApplied++;
      if (typeof meta.protocolVersion === 'number') this.sessions.setVersion(meta.protocolVersion);
    }
  }

  /** A meta line (protocol version, agent exit). */
  meta(meta: CaptureMeta): void {
    // a bridge's meta line carries both legs' versions: the agent leg reads its own
    if (this.side === 'agent') {
      const { protocolVersion: _editorVersion, ...rest } = meta;
      meta =
        typeof meta.agentProtocolVersion === 'number' ? { ...rest, protocolVersion: meta.agentProtocolVersion } : rest;
    }
    this.metas.push(meta);
    this.metaAt.push(this.frames.length);
    if (this.analyzedCount === this.frames.length) this.applyMetas(this.frames.length);
    if ('exitCode' in meta) this.finish();
    for (const l of this.listeners) l({ type: 'meta', meta });
  }

  /** The end of the capture: requests still open are reported (ACP-ALL-RPC-01). */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    const changed: RowTuple[] = [];
    let found: Violation[] = [];
    // the end-of-capture rules need every frame validated first
    if (this.analyzedCount === this.frames.length) {
      this.validatorDone = true;
      found = this.validator.finish();
      this.addViolations(found, changed);
    }
    for (const l of this.listeners)
      l({
        type: 'rows',
        rows: [],
        changed,
        strings: [],
        violations: found,
        finished: true,
        ...(this.analysisComplete ? { analyzed: this.analyzedCount, analysisComplete: true } : {}),
      });
    if (this.analysisComplete) for (const w of this.analysisWaiters.splice(0)) w();
    else if (this.deferAnalysis) this.analyzeInBackground();
  }

  /** The detail of one frame (undefined for an unknown seq). */
  detail(seq: number): FrameDetail | undefined {
    const i = this.bySeq.get(seq);
    if (i === undefined) return undefined;
    const frame = this.frames[i];
    const row = this.rows[i];
    if (!frame || !row) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(frame.raw);
    } catch {
      json = undefined;
    }
    const version = this.sessions.protocolVersion;
    const pair = row[ROW.pair] >= 0 ? row[ROW.pair] : undefined;
    const requestMethod =
      frame.kind === 'response' || frame.kind === 'error'
        ? pair !== undefined
          ? this.requestMethod.get(pair)
          : undefined
        : undefined;
    let marks: FieldMarks = { undeclared: [], meta: [] };
    if (version !== undefined && json !== undefined) {
      try {
        marks = markFields(version, json, requestMethod);
      } catch {
        /* a schema walk that fails must not hide the frame */
      }
    }
    return {
      frame,
      json,
      marks,
      violations: this.violationsBySeq.get(seq) ?? [],
      pair,
      latency: row[ROW.latency] >= 0 ? row[ROW.latency] : undefined,
      protocolVersion: version,
      summary: this.strings[row[ROW.summary] ?? -1],
    };
  }

  /** Sessions rebuilt from every frame so far, or (replay) from the frames up to `uptoSeq`. */
  sessionViews(uptoSeq?: number): SessionView[] {
    if (uptoSeq === undefined) return this.sessions.views();
    const b = new SessionViewBuilder();
    for (const meta of this.metas)
      if (typeof meta.protocolVersion === 'number' && meta.seq <= uptoSeq) b.setVersion(meta.protocolVersion);
    for (const f of this.frames) {
      if (f.seq > uptoSeq) break;
      let json: unknown;
      try {
        json = JSON.parse(f.raw);
      } catch {
        json = undefined;
      }
      b.push(f, json);
    }
    return b.views();
  }

  /** Requests with their answers (the waterfall) and the per-method table. */
  latency(): { spans: RequestSpan[]; table: MethodLatency[] } {
    const spans = [...this.spans.values()];
    return { spans, table: latencyTable(spans) };
  }

  /** Seqs of frames whose raw text contains `q` (case-insensitive). */
  search(q: string): number[] {
    const needle = q.toLowerCase();
    if (needle === '') return [];
    const out: number[] = [];
    for (const f of this.frames) if (f.raw.toLowerCase().includes(needle)) out.push(f.seq);
    return out;
  }

  private addViolations(found: Violation[], changed: RowTuple[]): void {
    for (const v of found) {
      this.violations.push(v);
      for (const seq of new Set(v.seqs)) {
        const list = this.violationsBySeq.get(seq) ?? [];
        list.push(v);
        this.violationsBySeq.set(seq, list);
        const i = this.bySeq.get(seq);
        const row = i === undefined ? undefined : this.rows[i];
        if (row) {
          row[ROW.violations] = list.length;
          if (!changed.includes(row)) changed.push(row);
        }
      }
    }
  }
}

/** What a live model reports to subscribers. */
export type ModelEvent =
  | {
      type: 'rows';
      rows: RowTuple[];
      changed: RowTuple[];
      strings: string[];
      violations: Violation[];
      finished?: boolean;
      /** frames analyzed so far (sent when background analysis progresses) */
      analyzed?: number;
      /** every frame validated and decoded: the session view is final for what is indexed */
      analysisComplete?: boolean;
    }
  | { type: 'meta'; meta: CaptureMeta };
